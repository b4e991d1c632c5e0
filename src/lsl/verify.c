/* The static verifier: proves, before a program runs, that none of the
 * document's faults can happen in it (except a host that fails at run time).
 *
 * For every handler it follows all paths from the entry, tracking the stack
 * depth and the type (integer, string or either) of every stack slot and
 * every local; at a join the depths must agree and the types merge.  It
 * checks every operand against the tables, every jump target, every pop
 * against the depth, every operator against its operand types, every host
 * call against the ABI-2 host signatures, every global store against the
 * global's type, and that every path ends in Halt.  The stack effects come
 * from isa.def.  The VM still checks everything at run time: verifying is
 * for tools and loaders that want to refuse a bad program up front. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsl/abi2.h"

enum { VT_INT = 1, VT_STR = 2, VT_ANY = 3 };
#define VERIFY_MAX_DEPTH 1024u
#define VERIFY_MAX_BYTES ((size_t)256 * 1024 * 1024)

typedef struct vstate {
    int32_t depth; /* -1: not reached yet */
    uint8_t *types; /* depth stack slots, then the handler's locals */
} vstate;

typedef struct verifier {
    const gsvm_lsl_program *p;
    const fal_event *e;
    vstate *states; /* one per instruction */
    size_t *work;
    size_t nwork;
    bool *queued;
    size_t bytes;
    char msg[300];
    long long bad_ip;
} verifier;

static const struct {
    const char *name;
    int argc;
    uint8_t args[2];
} host_sigs[] = {
    {"llOwnerSay", 1, {VT_STR}},
    {"llSay", 2, {VT_INT, VT_STR}},
};

static const char *vt_name(uint8_t t)
{
    return t == VT_INT ? "integer" : t == VT_STR ? "string" : "integer or string";
}

static bool fail(verifier *v, size_t ip, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail(verifier *v, size_t ip, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v->msg, sizeof v->msg, fmt, ap);
    va_end(ap);
    v->bad_ip = (long long)ip;
    return false;
}

/* Flows `depth`/`types` into instruction `to`, queueing it when it changed. */
static bool flow(verifier *v, size_t from, size_t to, int32_t depth, const uint8_t *types)
{
    if (to >= v->p->ncode)
        return fail(v, from, "%s: control leaves the code (to ip %zu)", v->e->name, to);
    size_t width = (size_t)depth + v->e->local_count;
    vstate *s = &v->states[to];
    bool changed = false;
    if (s->depth < 0) {
        v->bytes += width + 1;
        if (v->bytes > VERIFY_MAX_BYTES)
            return fail(v, from, "%s: too large to verify", v->e->name);
        s->types = malloc(width ? width : 1);
        if (!s->types)
            return fail(v, from, "out of memory verifying");
        memcpy(s->types, types, width);
        s->depth = depth;
        changed = true;
    } else if (s->depth != depth) {
        return fail(v, to, "%s: the stack holds %d values at ip %zu on one path and %d on another",
                    v->e->name, (int)s->depth, to, (int)depth);
    } else {
        for (size_t i = 0; i < width; i++)
            if ((s->types[i] | types[i]) != s->types[i]) {
                s->types[i] |= types[i];
                changed = true;
            }
    }
    if (changed && !v->queued[to]) {
        v->queued[to] = true;
        v->work[v->nwork++] = to;
    }
    return true;
}

static bool check_handler(verifier *v)
{
    const gsvm_lsl_program *p = v->p;
    const fal_event *e = v->e;
    size_t nl = e->local_count;
    uint8_t *cur = malloc(VERIFY_MAX_DEPTH + nl + 2), *lt = malloc(nl + 1);
    if (!cur || !lt) {
        free(cur);
        free(lt);
        return fail(v, e->entry_ip, "out of memory verifying");
    }
    /* entry: empty stack; parameters typed, other locals integer 0 */
    for (size_t i = 0; i < nl; i++)
        cur[i] = i < e->nparams ? e->param_types[i] : VT_INT;
    bool ok = flow(v, e->entry_ip, e->entry_ip, 0, cur);
    while (ok && v->nwork) {
        size_t ip = v->work[--v->nwork];
        v->queued[ip] = false;
        const fal_insn *in = &p->code[ip];
        int32_t depth = v->states[ip].depth;
        /* working copy: stack slots 0..depth-1, then locals */
        memcpy(cur, v->states[ip].types, (size_t)depth + nl);
        uint8_t *stack = cur;
        /* the locals move to their own buffer while the stack changes size */
        memcpy(lt, cur + depth, nl);
        const char *mn = in->op < FOP_COUNT ? fal_ops[in->op].mnemonic : "?";
#define POP_TYPE(want)                                                                       \
    do {                                                                                     \
        if (depth < 1) {                                                                     \
            ok = fail(v, ip, "%s: %s at ip %zu pops an empty stack", e->name, mn, ip);       \
            break;                                                                           \
        }                                                                                    \
        uint8_t t_ = stack[--depth];                                                         \
        if ((want) && t_ != (want)) {                                                        \
            ok = fail(v, ip, "%s: %s at ip %zu needs %s, the stack may hold %s", e->name, mn, \
                      ip, vt_name(want), vt_name(t_));                                       \
            break;                                                                           \
        }                                                                                    \
    } while (0)
#define PUSH_TYPE(t)                                                                        \
    do {                                                                                    \
        if ((uint32_t)depth >= VERIFY_MAX_DEPTH) {                                          \
            ok = fail(v, ip, "%s: the stack grows past %u values", e->name, VERIFY_MAX_DEPTH); \
            break;                                                                          \
        }                                                                                   \
        stack[depth++] = (t);                                                               \
    } while (0)
        size_t next = ip + 1;
        bool falls = true;
        int32_t target = -1;
        switch (in->op < FOP_COUNT ? (fal_op)in->op : FOP_COUNT) {
        case FOP_PUSH_CONST:
            if (in->a < 0 || (size_t)in->a >= p->nconst)
                ok = fail(v, ip, "%s: bad constant index %d at ip %zu", e->name, (int)in->a, ip);
            else
                PUSH_TYPE(p->consts[in->a].type);
            break;
        case FOP_LOAD_LOCAL:
        case FOP_STORE_LOCAL:
            if (in->a < 0 || (size_t)in->a >= nl) {
                ok = fail(v, ip, "%s: bad local index %d at ip %zu (%zu locals)", e->name,
                          (int)in->a, ip, nl);
            } else if (in->op == FOP_LOAD_LOCAL) {
                PUSH_TYPE(lt[in->a]);
            } else {
                POP_TYPE(0);
                if (ok)
                    lt[in->a] = stack[depth];
            }
            break;
        case FOP_LOAD_GLOBAL:
        case FOP_STORE_GLOBAL:
            if (in->a < 0 || (size_t)in->a >= p->nglobal) {
                ok = fail(v, ip, "%s: bad global index %d at ip %zu", e->name, (int)in->a, ip);
            } else if (in->op == FOP_LOAD_GLOBAL) {
                PUSH_TYPE(p->globals[in->a].type);
            } else {
                /* globals keep their type across events */
                POP_TYPE(p->globals[in->a].type);
            }
            break;
        case FOP_ADD_INT: case FOP_SUB_INT: case FOP_MUL_INT:
        case FOP_LESS_INT: case FOP_GREATER_INT: case FOP_EQUAL_INT:
            POP_TYPE(VT_INT);
            if (ok)
                POP_TYPE(VT_INT);
            if (ok)
                PUSH_TYPE(VT_INT);
            break;
        case FOP_CONCAT_STR:
            POP_TYPE(VT_STR);
            if (ok)
                POP_TYPE(VT_STR);
            if (ok)
                PUSH_TYPE(VT_STR);
            break;
        case FOP_CAST_INT_TO_STR:
            POP_TYPE(VT_INT);
            if (ok)
                PUSH_TYPE(VT_STR);
            break;
        case FOP_JUMP:
            falls = false;
            target = in->a;
            break;
        case FOP_JUMP_IF_ZERO:
            POP_TYPE(VT_INT);
            target = in->a;
            break;
        case FOP_CALL_HOST: {
            if (in->a < 0 || (size_t)in->a >= p->nhost) {
                ok = fail(v, ip, "%s: bad host index %d at ip %zu", e->name, (int)in->a, ip);
                break;
            }
            const char *name = p->host_names[in->a];
            int sig = -1;
            for (int k = 0; k < (int)(sizeof host_sigs / sizeof host_sigs[0]); k++)
                if (strcmp(host_sigs[k].name, name) == 0)
                    sig = k;
            if (sig < 0) {
                ok = fail(v, ip, "%s: ip %zu calls %s, which is not an ABI-2 host function",
                          e->name, ip, name);
            } else if (in->b != host_sigs[sig].argc) {
                ok = fail(v, ip, "%s: ip %zu calls %s with %d arguments, it takes %d", e->name,
                          ip, name, (int)in->b, host_sigs[sig].argc);
            } else {
                for (int k = host_sigs[sig].argc - 1; ok && k >= 0; k--)
                    POP_TYPE(host_sigs[sig].args[k]);
            }
            break; /* both ABI-2 host functions are void */
        }
        case FOP_POP:
            POP_TYPE(0);
            break;
        case FOP_HALT:
            falls = false;
            break;
        default:
            ok = fail(v, ip, "%s: unknown opcode %u at ip %zu", e->name, in->op, ip);
        }
#undef POP_TYPE
#undef PUSH_TYPE
        if (ok) {
            memcpy(cur + depth, lt, nl);
            if (target >= 0 || in->op == FOP_JUMP || in->op == FOP_JUMP_IF_ZERO) {
                if (target < 0)
                    ok = fail(v, ip, "%s: ip %zu jumps outside the code (to %d)", e->name, ip,
                              (int)target);
                else
                    ok = flow(v, ip, (size_t)target, depth, cur);
            }
            if (ok && falls)
                ok = flow(v, ip, next, depth, cur);
        }
    }
    free(lt);
    free(cur);
    return ok;
}

gsvm_status fal2_program_verify(const gsvm_lsl_program *p, gsvm_error *err)
{
    verifier v;
    memset(&v, 0, sizeof v);
    v.p = p;
    v.bad_ip = -1;
    size_t n = p->ncode ? p->ncode : 1;
    v.states = malloc(n * sizeof *v.states);
    v.work = malloc(n * sizeof *v.work);
    v.queued = calloc(n, sizeof *v.queued);
    if (!v.states || !v.work || !v.queued) {
        free(v.states);
        free(v.work);
        free(v.queued);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory verifying");
    }
    bool ok = true;
    for (size_t i = 0; ok && i < p->nevent; i++) {
        for (size_t k = 0; k < n; k++)
            v.states[k] = (vstate){-1, NULL};
        v.e = &p->events[i];
        v.nwork = 0;
        v.bytes = 0;
        memset(v.queued, 0, n * sizeof *v.queued);
        if (v.e->entry_ip >= p->ncode)
            ok = fail(&v, v.e->entry_ip, "%s starts outside the code", v.e->name);
        else
            ok = check_handler(&v);
        for (size_t k = 0; k < p->ncode; k++)
            free(v.states[k].types);
    }
    free(v.states);
    free(v.work);
    free(v.queued);
    if (!ok)
        return gsvm_error_set(err, GSVM_ERR_INPUT, NULL, "%s", v.msg);
    return GSVM_OK;
}
