/* ABI 3 programs: builders and the type verifier (the program file, the
 * listing and the instruction-set table are prog3_file.c's).
 *
 * The verifier runs on every program, compiled or loaded: it walks each
 * function's code, computing the operand stack's depth and the static type
 * of every operand at every instruction, and rejects any instruction whose
 * operands are out of range or of the wrong type, any path that leaves the
 * function, and any merge of two different stack shapes.  So the VM's typed
 * opcodes never see a wrong value, and a snapshot restore can check every
 * value it reads against the stack shape at its ip (fal3_stack_shape). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "base/hash.h"
#include "base/reader.h"
#include "lsl/listing.h"
#include "lsl/prog3.h"
#include "lsl/value_codec.h"

const fal3_op_info fal3_ops[F3_COUNT] = {
#define FALCON3_OP(name, mnem, operands, pops, pushes, meaning) {mnem, operands, pops, pushes, meaning},
#include "lsl/isa3.def"
#undef FALCON3_OP
};


int fal3_event_index(const char *name)
{
    const lsl_event_def *e = lsl_event_by_name(name, strlen(name));
    return e ? e->index : -1;
}

gsvm_lsl3_program *fal3_program_new(void)
{
    gsvm_lsl3_program *p = calloc(1, sizeof(gsvm_lsl3_program));
    if (p) {
        p->abi = 3;
        atomic_init(&p->refs, 1);
    }
    return p;
}

const gsvm_lsl3_program *gsvm_lsl3_program_retain(const gsvm_lsl3_program *prog)
{
    if (prog)
        atomic_fetch_add_explicit(&((gsvm_lsl3_program *)prog)->refs, 1, memory_order_relaxed);
    return prog;
}

void gsvm_lsl3_program_free(gsvm_lsl3_program *p)
{
    if (!p || atomic_fetch_sub_explicit(&p->refs, 1, memory_order_acq_rel) != 1)
        return;
    free(p->code);
    free(p->lines);
    free(atomic_load(&p->threaded));
    for (size_t i = 0; i < p->nconst; i++)
        lsl_value_release(&p->consts[i]);
    free(p->consts);
    for (size_t i = 0; i < p->nglobal; i++) {
        lsl_value_release(&p->globals[i]);
        free(p->global_names[i]);
    }
    free(p->globals);
    free(p->global_names);
    for (size_t i = 0; i < p->nfunc; i++) {
        free(p->funcs[i].name);
        free(p->funcs[i].slot_types);
    }
    free(p->funcs);
    for (size_t i = 0; i < p->nstate; i++)
        free(p->states[i].name);
    free(p->states);
    free(p->shape_off);
    free(p->shape_depth);
    free(p->shape_func);
    free(p->shape_types);
    free(p);
}

long fal3_emit(gsvm_lsl3_program *p, fal3_op op, int32_t a, int32_t b, int32_t c)
{
    if (p->ncode >= FAL3_MAX_CODE) {
        p->oom = true;
        return -1;
    }
    if (p->ncode == p->capcode) {
        size_t nc = p->capcode ? p->capcode * 2 : 256;
        fal3_insn *n = realloc(p->code, nc * sizeof *n);
        if (!n) {
            p->oom = true;
            return -1;
        }
        p->code = n;
        p->capcode = nc;
    }
    p->code[p->ncode] = (fal3_insn){op, a, b, c};
    return (long)p->ncode++;
}

void fal3_mark_line(gsvm_lsl3_program *p, uint32_t line, uint32_t col)
{
    uint32_t ip = (uint32_t)p->ncode;
    while (p->nlines && p->lines[p->nlines - 1].ip > ip)
        p->nlines--; /* the optimiser took back instructions */
    if (p->nlines) {
        fal3_line *last = &p->lines[p->nlines - 1];
        if (last->line == line && last->col == col)
            return;
        if (last->ip == ip) { /* nothing emitted under the last position */
            if (p->nlines >= 2 && p->lines[p->nlines - 2].line == line && p->lines[p->nlines - 2].col == col)
                p->nlines--;
            else
                *last = (fal3_line){ip, line, col};
            return;
        }
    }
    if (p->nlines == p->caplines) {
        size_t nc = p->caplines ? p->caplines * 2 : 64;
        fal3_line *n = realloc(p->lines, nc * sizeof *n);
        if (!n) {
            p->oom = true;
            return;
        }
        p->lines = n;
        p->caplines = nc;
    }
    p->lines[p->nlines++] = (fal3_line){ip, line, col};
}

bool gsvm_lsl3_program_line(const gsvm_lsl3_program *p, uint64_t ip, uint32_t *line, uint32_t *col)
{
    size_t lo = 0, hi = p->nlines; /* the last entry with entry.ip <= ip */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->lines[mid].ip <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || ip >= p->ncode || p->lines[lo - 1].line == 0) {
        *line = *col = 0;
        return false;
    }
    *line = p->lines[lo - 1].line;
    *col = p->lines[lo - 1].col;
    return true;
}

long fal3_const(gsvm_lsl3_program *p, lsl_value v)
{
    if (p->nconst >= FAL3_MAX_CONSTS) {
        lsl_value_release(&v);
        p->oom = true;
        return -1;
    }
    if (p->nconst == p->capconst) {
        size_t nc = p->capconst ? p->capconst * 2 : 16;
        lsl_value *n = realloc(p->consts, nc * sizeof *n);
        if (!n) {
            lsl_value_release(&v);
            p->oom = true;
            return -1;
        }
        p->consts = n;
        p->capconst = nc;
    }
    p->consts[p->nconst] = v;
    return (long)p->nconst++;
}

size_t fal3_program_charge(const gsvm_lsl3_program *p)
{
    return p->ncode * FAL3_INSN_BYTES + p->const_bytes;
}

bool gsvm_lsl3_program_has_event(const gsvm_lsl3_program *p, const char *event)
{
    int ei = fal3_event_index(event);
    if (ei < 0)
        return false;
    for (size_t i = 0; i < p->nstate; i++)
        if (p->states[i].handler[ei] >= 0)
            return true;
    return false;
}

const uint8_t *gsvm_lsl3_program_hash(const gsvm_lsl3_program *p)
{
    return p->hash;
}

bool gsvm_lsl3_is_program_file(const uint8_t *data, size_t len)
{
    return len >= 4 && memcmp(data, HWZ3_MAGIC, 4) == 0;
}

/* ---- the verifier -------------------------------------------------------- */

typedef struct vstate {
    uint8_t *types;
    size_t depth, cap;
} vstate;

static bool vpush(vstate *s, lsl_type t)
{
    if (s->depth == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 16;
        uint8_t *n = realloc(s->types, nc);
        if (!n)
            return false;
        s->types = n;
        s->cap = nc;
    }
    s->types[s->depth++] = (uint8_t)t;
    return true;
}

#define VFAIL(...) do { gsvm_error_set(err, GSVM_ERR_INPUT, file, __VA_ARGS__); goto fail; } while (0)


/* Verifies function f (code [entry, end)), recording the shape at each ip. */
static gsvm_status verify_func(gsvm_lsl3_program *p, size_t fi, size_t end, const char *file,
                               gsvm_error *err, size_t *work, vstate *st)
{
    const fal3_func *f = &p->funcs[fi];
    size_t nwork = 0;
    size_t maxd = 0;
    st->depth = 0;
    work[nwork++] = f->entry;
    if (p->shape_depth[f->entry] >= 0)
        return gsvm_error_set(err, GSVM_ERR_INPUT, file, "function %zu starts inside another", fi);
    p->shape_depth[f->entry] = 0;
    p->shape_func[f->entry] = (uint32_t)fi;
    p->shape_off[f->entry] = 0; /* depth 0: no types */
    while (nwork) {
        size_t ip = work[--nwork];
        /* load the recorded shape */
        st->depth = 0;
        for (int32_t i = 0; i < p->shape_depth[ip]; i++)
            if (!vpush(st, (lsl_type)p->shape_types[p->shape_off[ip] + (size_t)i]))
                return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
        for (;;) {
            const fal3_insn *in = &p->code[ip];
            if (in->op < 0 || in->op >= F3_COUNT)
                VFAIL("instruction %zu: unknown opcode %d", ip, in->op);
            const char *kinds = fal3_ops[in->op].operands;
            int32_t ops[3] = {in->a, in->b, in->c};
            for (int k = 0; kinds[k]; k++) {
                int32_t v = ops[k];
                bool ok = true;
                switch (kinds[k]) {
                case 'k': ok = v >= 0 && (size_t)v < p->nconst; break;
                case 'l': ok = v >= 0 && (uint32_t)v < f->nslots; break;
                case 'g': ok = v >= 0 && (size_t)v < p->nglobal; break;
                case 't': ok = v >= (int32_t)f->entry && (size_t)v < end; break;
                case 'F': ok = v >= 0 && (size_t)v < p->nfunc && p->funcs[v].event < 0; break;
                case 'B': ok = v >= 0 && v < LSL_ID_END_ && p->builtin_by_id[v] != NULL; break;
                case 'n': ok = v >= 0 && (uint32_t)v <= 4096; break;
                case 'S': ok = v >= 0 && (size_t)v < p->nstate; break;
                case 'T': ok = v >= LSL_TYPE_INTEGER && v <= LSL_TYPE_LIST; break;
                case 'o': ok = in->op == F3_FOP_LK ? (v >= F3_ADD_F && v <= F3_DIV_F)
                          : in->op == F3_FMA_LK || in->op == F3_FOP_L_S || in->op == F3_FOP_IU ? (v >= F3_ADD_F && v <= F3_MUL_F)
                          : in->op == F3_VOP_TO_L ? (v == F3_ADD_V || v == F3_SUB_V)
                          : in->op == F3_CMPF_K || in->op == F3_JCMPF_K || in->op == F3_JCMPF_KT ? (v >= F3_EQ_F && v <= F3_GE_F)
                          : in->op == F3_JCMP_IL || in->op == F3_JCMP_ILT ? (v >= F3_EQ_I && v <= F3_GE_I)
                          : in->op == F3_IOP_LK || in->op == F3_IOP_LG || in->op == F3_IOP_KR || in->op == F3_IOP_LL || in->op == F3_IOP_K ? (v >= F3_ADD_I && v <= F3_GE_I)
                                                   : v >= 0 && v <= (in->op == F3_UNOP ? LSL_UOP_BITNOT : LSL_OP_OR);
                          break;
                case 'm': ok = v >= 0 && v <= 3; break;
                default: break;
                }
                if (!ok)
                    VFAIL("instruction %zu (%s): operand %c = %d is out of range", ip,
                          fal3_ops[in->op].mnemonic, "abc"[k], v);
            }
            /* pops */
            int pops = fal3_ops[in->op].pops;
            const lsl_builtin *bi = NULL;
            if (in->op == F3_CALL)
                pops = (int)p->funcs[in->a].nparams;
            else if (in->op == F3_CALLB) {
                bi = lsl_builtin_by_id(in->a);
                if (in->b != bi->nargs)
                    VFAIL("instruction %zu: %s takes %u arguments", ip, bi->name, bi->nargs);
                pops = bi->nargs;
            } else if (in->op == F3_MKLIST)
                pops = in->a;
            if ((size_t)pops > st->depth)
                VFAIL("instruction %zu (%s): the stack holds %zu values, it needs %d", ip,
                      fal3_ops[in->op].mnemonic, st->depth, pops);
            uint8_t *top = st->types ? st->types + st->depth : NULL; /* top[-1] is l for binary ops */
            lsl_type res = LSL_TYPE_VOID;
            bool bad = false, ends = false;
            size_t target = (size_t)-1;
            lsl_type t1 = pops >= 1 ? (lsl_type)top[-1] : LSL_TYPE_VOID;
            lsl_type t2 = pops >= 2 ? (lsl_type)top[-2] : LSL_TYPE_VOID;
            switch (in->op) {
            case F3_PUSH_INT: res = LSL_TYPE_INTEGER; break;
            case F3_PUSH_FLOAT: res = LSL_TYPE_FLOAT; break;
            case F3_PUSH_CONST: res = p->consts[in->a].type; break;
            case F3_PUSH_EMPTY: res = (lsl_type)in->a; break;
            case F3_LOAD_LOCAL: res = (lsl_type)f->slot_types[in->a]; break;
            case F3_LOAD_GLOBAL: res = p->globals[in->a].type; break;
            case F3_STORE_LOCAL: bad = t1 != f->slot_types[in->a]; break;
            case F3_PUT_LOCAL: bad = t1 != f->slot_types[in->a]; res = t1; break;
            case F3_STORE_GLOBAL: bad = t1 != p->globals[in->a].type; break;
            case F3_PUT_GLOBAL: bad = t1 != p->globals[in->a].type; res = t1; break;
            case F3_POP: break;
            case F3_DUP: res = t1; break;
            case F3_ADD_I: case F3_SUB_I: case F3_MUL_I: case F3_DIV_I: case F3_MOD_I:
            case F3_BAND_I: case F3_BOR_I: case F3_BXOR_I: case F3_SHL_I: case F3_SHR_I:
            case F3_LAND_I: case F3_LOR_I: case F3_EQ_I: case F3_NE_I: case F3_LT_I:
            case F3_LE_I: case F3_GT_I: case F3_GE_I:
                bad = t1 != LSL_TYPE_INTEGER || t2 != LSL_TYPE_INTEGER;
                res = LSL_TYPE_INTEGER;
                break;
            case F3_NEG_I: case F3_NOT_I: case F3_BNOT_I: case F3_JZ: case F3_JNZ:
                bad = t1 != LSL_TYPE_INTEGER;
                res = in->op == F3_JZ || in->op == F3_JNZ ? LSL_TYPE_VOID : LSL_TYPE_INTEGER;
                if (res == LSL_TYPE_VOID)
                    target = (size_t)in->a;
                break;
            case F3_ADD_F: case F3_SUB_F: case F3_MUL_F: case F3_DIV_F:
                bad = t1 != LSL_TYPE_FLOAT || t2 != LSL_TYPE_FLOAT;
                res = LSL_TYPE_FLOAT;
                break;
            case F3_EQ_F: case F3_NE_F: case F3_LT_F: case F3_LE_F: case F3_GT_F: case F3_GE_F:
                bad = t1 != LSL_TYPE_FLOAT || t2 != LSL_TYPE_FLOAT;
                res = LSL_TYPE_INTEGER;
                break;
            case F3_NEG_F: bad = t1 != LSL_TYPE_FLOAT; res = LSL_TYPE_FLOAT; break;
            case F3_I2F: bad = t1 != LSL_TYPE_INTEGER; res = LSL_TYPE_FLOAT; break;
            case F3_I2F_UNDER:
                bad = t2 != LSL_TYPE_INTEGER;
                res = t1;
                top[-2] = LSL_TYPE_FLOAT;
                break;
            case F3_F2I: bad = t1 != LSL_TYPE_FLOAT; res = LSL_TYPE_INTEGER; break;
            case F3_CONCAT_S:
                bad = t1 != LSL_TYPE_STRING || t2 != LSL_TYPE_STRING;
                res = LSL_TYPE_STRING;
                break;
            case F3_BINOP:
                res = lsl_op_result_type((lsl_op)in->a, t1, t2);
                bad = res == LSL_TYPE_VOID;
                break;
            case F3_UNOP:
                res = lsl_unop_result_type((lsl_unop)in->a, t1);
                bad = res == LSL_TYPE_VOID;
                break;
            case F3_CAST:
                bad = !lsl_cast_allowed(t1, (lsl_type)in->a);
                res = (lsl_type)in->a;
                break;
            case F3_TRUTH: res = LSL_TYPE_INTEGER; break;
            case F3_MKVEC:
                bad = t1 != LSL_TYPE_FLOAT || t2 != LSL_TYPE_FLOAT || top[-3] != LSL_TYPE_FLOAT;
                res = LSL_TYPE_VECTOR;
                break;
            case F3_MKROT:
                bad = t1 != LSL_TYPE_FLOAT || t2 != LSL_TYPE_FLOAT || top[-3] != LSL_TYPE_FLOAT ||
                      top[-4] != LSL_TYPE_FLOAT;
                res = LSL_TYPE_ROTATION;
                break;
            case F3_MKLIST:
                for (int32_t i = 1; i <= in->a; i++)
                    if (top[-i] == LSL_TYPE_LIST || top[-i] == LSL_TYPE_VOID)
                        bad = true;
                res = LSL_TYPE_LIST;
                break;
            case F3_GET_MEMBER:
                bad = !(t1 == LSL_TYPE_ROTATION || (t1 == LSL_TYPE_VECTOR && in->a < 3));
                res = LSL_TYPE_FLOAT;
                break;
            case F3_SET_MEMBER:
                bad = !(t1 == LSL_TYPE_ROTATION || (t1 == LSL_TYPE_VECTOR && in->a < 3)) ||
                      t2 != LSL_TYPE_FLOAT;
                res = t1;
                break;
            case F3_ADD_V: case F3_SUB_V: case F3_DOT_V:
                bad = t1 != LSL_TYPE_VECTOR || t2 != LSL_TYPE_VECTOR;
                res = in->op == F3_DOT_V ? LSL_TYPE_FLOAT : LSL_TYPE_VECTOR;
                break;
            case F3_MUL_VF: case F3_DIV_VF: case F3_MUL_FV:
                bad = in->op == F3_MUL_FV ? t1 != LSL_TYPE_FLOAT || t2 != LSL_TYPE_VECTOR
                                          : t1 != LSL_TYPE_VECTOR || t2 != LSL_TYPE_FLOAT;
                res = LSL_TYPE_VECTOR;
                break;
            case F3_LOAD_MEMBER_L: case F3_STORE_MEMBER_L: {
                lsl_type vt = (lsl_type)f->slot_types[in->a];
                bad = !(vt == LSL_TYPE_ROTATION || (vt == LSL_TYPE_VECTOR && in->b < 3)) ||
                      (in->op == F3_STORE_MEMBER_L && t1 != LSL_TYPE_FLOAT);
                res = in->op == F3_LOAD_MEMBER_L ? LSL_TYPE_FLOAT : LSL_TYPE_VOID;
                break;
            }
            case F3_JMP: target = (size_t)in->a; ends = true; break;
            case F3_CALL: {
                const fal3_func *g = &p->funcs[in->a];
                for (uint32_t i = 0; i < g->nparams; i++)
                    if (top[-(int)g->nparams + (int)i] != g->slot_types[i])
                        bad = true;
                res = (lsl_type)g->ret;
                break;
            }
            case F3_CALLB:
                for (unsigned i = 0; i < bi->nargs; i++)
                    if (top[-(int)bi->nargs + (int)i] != lsl_builtin_arg_type(bi, i))
                        bad = true;
                res = bi->ret;
                break;
            case F3_RET: bad = f->ret != LSL_TYPE_VOID; ends = true; break;
            case F3_RETV: bad = f->ret == LSL_TYPE_VOID || t1 != f->ret; ends = true; break;
            case F3_STATE: ends = true; break;
            case F3_SET_STATE: break;
            case F3_PRINT: bad = t1 != LSL_TYPE_STRING; break;
            case F3_FAULT: bad = in->a != 0; break;
            case F3_INC_LOCAL_I: bad = f->slot_types[in->a] != LSL_TYPE_INTEGER; break;
            case F3_INC_GLOBAL_I: bad = p->globals[in->a].type != LSL_TYPE_INTEGER; break;
            case F3_JGE_LI: case F3_JGT_LI: case F3_JLT_LI: case F3_JLE_LI:
                bad = f->slot_types[in->a] != LSL_TYPE_INTEGER;
                target = (size_t)in->c;
                break;
            case F3_JGE_LL: case F3_JGT_LL: case F3_JLT_LL: case F3_JLE_LL:
                bad = f->slot_types[in->a] != LSL_TYPE_INTEGER || f->slot_types[in->b] != LSL_TYPE_INTEGER;
                target = (size_t)in->c;
                break;
            case F3_LOAD_LL:
                if (!vpush(st, (lsl_type)f->slot_types[in->a]))
                    return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
                res = (lsl_type)f->slot_types[in->b];
                break;
            case F3_ADD_LI: bad = f->slot_types[in->a] != LSL_TYPE_INTEGER; res = LSL_TYPE_INTEGER; break;
            case F3_APPEND_LOCAL: case F3_APPEND_GLOBAL: {
                lsl_type dt = in->op == F3_APPEND_LOCAL ? (lsl_type)f->slot_types[in->a] : p->globals[in->a].type;
                bad = !((dt == LSL_TYPE_STRING && t1 == LSL_TYPE_STRING) || (dt == LSL_TYPE_LIST && t1 != LSL_TYPE_VOID));
                break;
            }
            case F3_LIST_SET_LOCAL:
                bad = f->slot_types[in->a] != LSL_TYPE_LIST || t1 != LSL_TYPE_INTEGER || t2 == LSL_TYPE_LIST ||
                      t2 == LSL_TYPE_VOID;
                break;
            case F3_SUB_LI: bad = f->slot_types[in->a] != LSL_TYPE_INTEGER; res = LSL_TYPE_INTEGER; break;
            case F3_ADDF_LL: case F3_SUBF_LL: case F3_MULF_LL:
                bad = f->slot_types[in->a] != LSL_TYPE_FLOAT || f->slot_types[in->b] != LSL_TYPE_FLOAT;
                res = LSL_TYPE_FLOAT;
                break;
            case F3_ADDF_L: case F3_SUBF_L: case F3_MULF_L:
                bad = f->slot_types[in->a] != LSL_TYPE_FLOAT || t1 != LSL_TYPE_FLOAT;
                res = LSL_TYPE_FLOAT;
                break;
            case F3_MULF_K: bad = t1 != LSL_TYPE_FLOAT; res = LSL_TYPE_FLOAT; break;
            case F3_ADDI_LL:
                bad = f->slot_types[in->a] != LSL_TYPE_INTEGER || f->slot_types[in->b] != LSL_TYPE_INTEGER;
                res = LSL_TYPE_INTEGER;
                break;
            case F3_ADDI_L:
                bad = f->slot_types[in->a] != LSL_TYPE_INTEGER || t1 != LSL_TYPE_INTEGER;
                res = LSL_TYPE_INTEGER;
                break;
            case F3_IOP_LK:
                bad = f->slot_types[in->a] != LSL_TYPE_INTEGER || in->c < F3_ADD_I || in->c > F3_GE_I ||
                      in->c == F3_LAND_I || in->c == F3_LOR_I;
                res = LSL_TYPE_INTEGER;
                break;
            case F3_JNLT_I: case F3_JNLE_I: case F3_JNGT_I: case F3_JNGE_I: case F3_JNEQ_I: case F3_JNNE_I:
                bad = t1 != LSL_TYPE_INTEGER || t2 != LSL_TYPE_INTEGER;
                target = (size_t)in->a;
                break;
            case F3_JNLT_F: case F3_JNLE_F: case F3_JNGT_F: case F3_JNGE_F:
            case F3_JLT_F: case F3_JLE_F: case F3_JGT_F: case F3_JGE_F:
                bad = t1 != LSL_TYPE_FLOAT || t2 != LSL_TYPE_FLOAT;
                target = (size_t)in->a;
                break;
            case F3_ADD_F_S: case F3_SUB_F_S: case F3_MUL_F_S:
                bad = f->slot_types[in->a] != LSL_TYPE_FLOAT || t1 != LSL_TYPE_FLOAT || t2 != LSL_TYPE_FLOAT;
                break;
            case F3_ADDF_LL_S: case F3_SUBF_LL_S: case F3_MULF_LL_S:
                bad = f->slot_types[in->a] != LSL_TYPE_FLOAT || f->slot_types[in->b] != LSL_TYPE_FLOAT ||
                      f->slot_types[in->c] != LSL_TYPE_FLOAT;
                break;
            case F3_ADDI_LL_S:
                bad = f->slot_types[in->a] != LSL_TYPE_INTEGER || f->slot_types[in->b] != LSL_TYPE_INTEGER ||
                      f->slot_types[in->c] != LSL_TYPE_INTEGER;
                break;
            case F3_ADD_I_S:
                bad = f->slot_types[in->a] != LSL_TYPE_INTEGER || t1 != LSL_TYPE_INTEGER || t2 != LSL_TYPE_INTEGER;
                break;
            case F3_JZ_AND: case F3_JNZ_AND:
                bad = t1 != LSL_TYPE_INTEGER || t2 != LSL_TYPE_INTEGER;
                target = (size_t)in->a;
                break;
            case F3_RETV_L:
                bad = f->ret == LSL_TYPE_VOID || f->slot_types[in->a] != f->ret;
                ends = true;
                break;
            case F3_IOP_LL:
                bad = f->slot_types[in->a] != LSL_TYPE_INTEGER || f->slot_types[in->b] != LSL_TYPE_INTEGER ||
                      in->c < F3_ADD_I || in->c > F3_GE_I || in->c == F3_LAND_I || in->c == F3_LOR_I;
                res = LSL_TYPE_INTEGER;
                break;
            case F3_IOP_LG:
                bad = f->slot_types[in->a] != LSL_TYPE_INTEGER || p->globals[in->b].type != LSL_TYPE_INTEGER ||
                      in->c < F3_ADD_I || in->c > F3_GE_I || in->c == F3_LAND_I || in->c == F3_LOR_I;
                res = LSL_TYPE_INTEGER;
                break;
            case F3_JGE_LG: case F3_JGT_LG: case F3_JLT_LG: case F3_JLE_LG:
                bad = f->slot_types[in->a] != LSL_TYPE_INTEGER || p->globals[in->b].type != LSL_TYPE_INTEGER;
                target = (size_t)in->c;
                break;
            case F3_CMPF_K:
                bad = t1 != LSL_TYPE_FLOAT || in->b < F3_EQ_F || in->b > F3_GE_F;
                res = LSL_TYPE_INTEGER;
                break;
            case F3_LIST_GET_L:
                bad = f->slot_types[in->a] != LSL_TYPE_LIST || t1 != LSL_TYPE_INTEGER ||
                      (in->b != LSL_ID_llList2Integer && in->b != LSL_ID_llList2Float) || !p->native_by_id[in->b];
                res = in->b == LSL_ID_llList2Integer ? LSL_TYPE_INTEGER : LSL_TYPE_FLOAT;
                break;
            case F3_IOP_KR: case F3_IOP_K:
                bad = t1 != LSL_TYPE_INTEGER || in->b < F3_ADD_I || in->b > F3_GE_I || in->b == F3_LAND_I ||
                      in->b == F3_LOR_I;
                res = LSL_TYPE_INTEGER;
                break;
            case F3_LIST_GET_LL:
                bad = f->slot_types[in->a] != LSL_TYPE_LIST || f->slot_types[in->b] != LSL_TYPE_INTEGER ||
                      (in->c != LSL_ID_llList2Integer && in->c != LSL_ID_llList2Float) || !p->native_by_id[in->c];
                res = in->c == LSL_ID_llList2Integer ? LSL_TYPE_INTEGER : LSL_TYPE_FLOAT;
                break;
            case F3_LIST_SET_LL:
                /* the VM pushes locals[b] for ListSetLocal's code: within max_stack's slack of 2 */
                bad = f->slot_types[in->a] != LSL_TYPE_LIST || f->slot_types[in->b] != LSL_TYPE_INTEGER ||
                      t1 == LSL_TYPE_LIST || t1 == LSL_TYPE_VOID;
                break;
            case F3_IOP_LK_S: {
                int32_t o = in->c & 255, d = in->c >> 8;
                bad = f->slot_types[in->a] != LSL_TYPE_INTEGER || in->c < 0 || o < F3_ADD_I || o > F3_GE_I ||
                      o == F3_LAND_I || o == F3_LOR_I || (uint32_t)d >= f->nslots ||
                      f->slot_types[d] != LSL_TYPE_INTEGER;
                break;
            }
            case F3_IOP_K_S: {
                int32_t o = in->b & 255, d = in->b >> 8;
                bad = t1 != LSL_TYPE_INTEGER || in->b < 0 || o < F3_ADD_I || o > F3_GE_I || o == F3_LAND_I ||
                      o == F3_LOR_I || (uint32_t)d >= f->nslots || f->slot_types[d] != LSL_TYPE_INTEGER;
                break;
            }
            case F3_RETV_ADD_I:
                bad = f->ret != LSL_TYPE_INTEGER || t1 != LSL_TYPE_INTEGER || t2 != LSL_TYPE_INTEGER;
                ends = true;
                break;
            case F3_MULF_LK: bad = f->slot_types[in->a] != LSL_TYPE_FLOAT; res = LSL_TYPE_FLOAT; break;
            case F3_MOVE_LL: bad = f->slot_types[in->a] != f->slot_types[in->b]; break;
            case F3_JCMPF_K: case F3_JCMPF_KT:
                bad = t1 != LSL_TYPE_FLOAT;
                target = (size_t)in->c;
                break;
            case F3_JCMP_IL: case F3_JCMP_ILT:
                bad = t1 != LSL_TYPE_INTEGER || f->slot_types[in->a] != LSL_TYPE_INTEGER;
                target = (size_t)in->c;
                break;
            case F3_JZ_L: case F3_JNZ_L:
                bad = f->slot_types[in->a] != LSL_TYPE_INTEGER;
                target = (size_t)in->b;
                break;
            case F3_JZ_IOP_LL: case F3_JNZ_IOP_LL: case F3_JZ_IOP_LK: case F3_JNZ_IOP_LK: {
                /* JzIOpLK's b is a constant, JzIOpLL's a local */
                int32_t o = in->c & 255;
                int64_t t = (int64_t)((uint32_t)in->c >> 8);
                bool kb = in->op == F3_JZ_IOP_LK || in->op == F3_JNZ_IOP_LK;
                bad = f->slot_types[in->a] != LSL_TYPE_INTEGER || (!kb && f->slot_types[in->b] != LSL_TYPE_INTEGER) ||
                      o < F3_ADD_I || o > F3_GE_I || o == F3_LAND_I || o == F3_LOR_I ||
                      t < (int64_t)f->entry || (size_t)t >= end;
                target = (size_t)t;
                break;
            }
            case F3_ADD_TO_I: bad = f->slot_types[in->a] != LSL_TYPE_INTEGER || t1 != LSL_TYPE_INTEGER; break;
            case F3_ADD_TO_F: bad = f->slot_types[in->a] != LSL_TYPE_FLOAT || t1 != LSL_TYPE_FLOAT; break;
            case F3_FOP_LK:
                bad = f->slot_types[in->a] != LSL_TYPE_FLOAT;
                res = LSL_TYPE_FLOAT;
                break;
            case F3_FOP_LK_S: {
                int32_t o = in->c & 255, d = in->c >> 8;
                bad = f->slot_types[in->a] != LSL_TYPE_FLOAT || in->c < 0 || o < F3_ADD_F || o > F3_DIV_F ||
                      (uint32_t)d >= f->nslots || f->slot_types[d] != LSL_TYPE_FLOAT;
                break;
            }
            case F3_IOP_LL_S: {
                int32_t o = in->c & 255, d = in->c >> 8;
                bad = f->slot_types[in->a] != LSL_TYPE_INTEGER || f->slot_types[in->b] != LSL_TYPE_INTEGER ||
                      in->c < 0 || o < F3_ADD_I || o > F3_GE_I || o == F3_LAND_I || o == F3_LOR_I ||
                      (uint32_t)d >= f->nslots || f->slot_types[d] != LSL_TYPE_INTEGER;
                break;
            }
            case F3_JCMPF_LK: case F3_JCMPF_LKT: {
                int32_t o = in->c & 255;
                int64_t t = (int64_t)((uint32_t)in->c >> 8);
                bad = f->slot_types[in->a] != LSL_TYPE_FLOAT || o < F3_EQ_F || o > F3_GE_F ||
                      t < (int64_t)f->entry || (size_t)t >= end;
                target = (size_t)t;
                break;
            }
            case F3_FMA_LK: /* OP: AddF or SubF */
                bad = f->slot_types[in->a] != LSL_TYPE_FLOAT || t1 != LSL_TYPE_FLOAT || in->c == F3_MUL_F;
                res = LSL_TYPE_FLOAT;
                break;
            case F3_FOP_L_S:
                bad = f->slot_types[in->a] != LSL_TYPE_FLOAT || f->slot_types[in->c] != LSL_TYPE_FLOAT ||
                      t1 != LSL_TYPE_FLOAT;
                break;
            case F3_FMOD_LK: bad = f->slot_types[in->a] != LSL_TYPE_FLOAT || f->slot_types[in->c] != LSL_TYPE_FLOAT; break;
            case F3_LOAD_LOCAL_IF: bad = f->slot_types[in->a] != LSL_TYPE_INTEGER; res = LSL_TYPE_FLOAT; break;
            case F3_FOP_IU:
                bad = t1 != LSL_TYPE_FLOAT || t2 != LSL_TYPE_INTEGER;
                res = LSL_TYPE_FLOAT;
                break;
            case F3_TRUNC_F: bad = t1 != LSL_TYPE_FLOAT; res = LSL_TYPE_FLOAT; break;
            case F3_VOP_LL_S: {
                int32_t o = in->c & 255, d = in->c >> 8;
                bad = f->slot_types[in->a] != LSL_TYPE_VECTOR || f->slot_types[in->b] != LSL_TYPE_VECTOR ||
                      in->c < 0 || (o != F3_ADD_V && o != F3_SUB_V && o != F3_DOT_V) || (uint32_t)d >= f->nslots ||
                      f->slot_types[d] != (o == F3_DOT_V ? LSL_TYPE_FLOAT : LSL_TYPE_VECTOR);
                break;
            }
            case F3_VOP_TO_L: bad = f->slot_types[in->a] != LSL_TYPE_VECTOR || t1 != LSL_TYPE_VECTOR; break;
            case F3_MUL_VK: bad = t1 != LSL_TYPE_VECTOR; res = LSL_TYPE_VECTOR; break;
            default: bad = true; break;
            }
            if (bad)
                VFAIL("instruction %zu (%s): operands of the wrong type", ip, fal3_ops[in->op].mnemonic);
            if (in->op == F3_I2F_UNDER)
                st->depth -= 1;
            else if (in->op != F3_DUP && in->op != F3_LOAD_LL)
                st->depth -= (size_t)pops;
            if (res != LSL_TYPE_VOID && !vpush(st, res))
                return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
            if (st->depth > maxd)
                maxd = st->depth;
            /* successors: target (if any) and, unless the path ends, ip + 1 */
            size_t succ[2];
            int ns = 0;
            if (target != (size_t)-1)
                succ[ns++] = target;
            if (!ends) {
                if (ip + 1 >= end)
                    VFAIL("instruction %zu: the code runs off the end of %s", ip, f->name);
                succ[ns++] = ip + 1;
            }
            size_t next = (size_t)-1;
            for (int k = 0; k < ns; k++) {
                size_t s = succ[k];
                if (p->shape_depth[s] >= 0) {
                    if ((size_t)p->shape_depth[s] != st->depth ||
                        (st->depth && memcmp(p->shape_types + p->shape_off[s], st->types, st->depth) != 0))
                        VFAIL("instruction %zu: two paths meet with different stacks", s);
                    continue;
                }
                /* record the shape */
                if (p->nshape_types + st->depth > p->capshape_types) {
                    size_t nc = (p->capshape_types + st->depth) * 2 + 64;
                    uint8_t *n = realloc(p->shape_types, nc);
                    if (!n)
                        return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
                    p->shape_types = n;
                    p->capshape_types = nc;
                }
                if (st->depth)
                    memcpy(p->shape_types + p->nshape_types, st->types, st->depth);
                p->shape_off[s] = (uint32_t)p->nshape_types;
                p->shape_depth[s] = (int32_t)st->depth;
                p->shape_func[s] = (uint32_t)fi;
                p->nshape_types += st->depth;
                if (s == ip + 1 && !ends)
                    next = s;
                else
                    work[nwork++] = s;
            }
            if (next == (size_t)-1)
                break;
            ip = next;
        }
    }
    if (maxd + 2 > f->max_stack)
        p->funcs[fi].max_stack = (uint32_t)maxd + 2;
    return GSVM_OK;
fail:
    return err ? err->status : GSVM_ERR_INPUT;
}

static bool k_dup_entry(const size_t *order, size_t n, size_t entry)
{
    size_t seen = 0;
    for (size_t i = 0; i < n; i++)
        seen += order[i] == entry;
    return seen > 1;
}

static int cmp_entry(const void *a, const void *b)
{
    const size_t *x = a, *y = b;
    return (*x > *y) - (*x < *y);
}

/* Checks tables and code, computes shapes and the hash. */
gsvm_status fal3_program_seal_file(gsvm_lsl3_program *p, const char *file, gsvm_error *err)
{
    while (p->nlines && p->lines[p->nlines - 1].ip >= p->ncode)
        p->nlines--; /* positions nothing was emitted under */
    p->builtin_by_id = lsl_builtin_index();
    p->native_by_id = lsl_native_index();
    if (p->nstate == 0)
        return gsvm_error_set(err, GSVM_ERR_INPUT, file, "the program has no default state");
    for (size_t s = 0; s < p->nstate; s++)
        for (int e = 0; e < FAL3_EVENT_COUNT; e++) {
            int32_t h = p->states[s].handler[e];
            if (h < -1 || h >= (int32_t)p->nfunc || (h >= 0 && p->funcs[h].event != e))
                return gsvm_error_set(err, GSVM_ERR_INPUT, file, "state %zu: bad handler for event %d", s, e);
        }
    size_t *order = malloc((p->nfunc + 1) * sizeof *order);
    size_t *work = malloc((p->ncode + 1) * sizeof *work);
    p->shape_off = calloc(p->ncode + 1, sizeof *p->shape_off);
    p->shape_depth = malloc((p->ncode + 1) * sizeof *p->shape_depth);
    p->shape_func = calloc(p->ncode + 1, sizeof *p->shape_func);
    if (!order || !work || !p->shape_off || !p->shape_depth || !p->shape_func) {
        free(order);
        free(work);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
    }
    for (size_t i = 0; i < p->ncode; i++) {
        p->shape_depth[i] = -1;
        if (p->code[i].op < 0 || p->code[i].op >= F3_COUNT) {
            free(order);
            free(work);
            return gsvm_error_set(err, GSVM_ERR_INPUT, file, "instruction %zu: unknown opcode %d", i, p->code[i].op);
        }
    }
    p->const_bytes = 0;
    for (size_t i = 0; i < p->nconst; i++)
        p->const_bytes += lsl_value_mem_size(&p->consts[i]);
    gsvm_status st = GSVM_OK;
    for (size_t i = 0; i < p->nfunc; i++) {
        const fal3_func *f = &p->funcs[i];
        if (f->entry >= p->ncode || f->nparams > f->nslots || f->nparams > 64 ||
            f->nslots > FAL3_MAX_SLOTS || f->ret > LSL_TYPE_LIST || f->event < -1 ||
            f->event >= FAL3_EVENT_COUNT || (f->event >= 0 && f->ret != LSL_TYPE_VOID)) {
            st = gsvm_error_set(err, GSVM_ERR_INPUT, file, "function %zu: bad header", i);
            break;
        }
        for (uint32_t k = 0; k < f->nslots; k++)
            if (f->slot_types[k] < LSL_TYPE_INTEGER || f->slot_types[k] > LSL_TYPE_LIST) {
                st = gsvm_error_set(err, GSVM_ERR_INPUT, file, "function %zu: bad slot type", i);
                break;
            }
        if (st != GSVM_OK)
            break;
        if (f->event >= 0) {
            size_t ne;
            const lsl_event_def *ed = &lsl_events(&ne)[f->event];
            bool ok = f->nparams == ed->nargs;
            for (uint32_t k = 0; ok && k < f->nparams; k++)
                ok = f->slot_types[k] == lsl_type_from_letter(ed->argtypes[k]);
            if (!ok) {
                st = gsvm_error_set(err, GSVM_ERR_INPUT, file, "function %zu: not the signature of %s", i, ed->name);
                break;
            }
        }
        order[i] = f->entry;
    }
    if (st == GSVM_OK) {
        qsort(order, p->nfunc, sizeof *order, cmp_entry);
        vstate vs = {0};
        for (size_t i = 0; st == GSVM_OK && i < p->nfunc; i++) {
            size_t entry = p->funcs[i].entry, end = p->ncode;
            for (size_t k = 0; k < p->nfunc; k++)
                if (order[k] > entry) {
                    end = order[k];
                    break;
                }
            if (k_dup_entry(order, p->nfunc, entry)) {
                st = gsvm_error_set(err, GSVM_ERR_INPUT, file, "two functions share entry %zu", entry);
                break;
            }
            st = verify_func(p, i, end, file, err, work, &vs);
        }
        free(vs.types);
    }
    free(order);
    free(work);
    if (st != GSVM_OK)
        return st;
    uint8_t *bytes;
    size_t len;
    if ((st = gsvm_lsl3_program_save(p, &bytes, &len, err)) != GSVM_OK)
        return st;
    gsvm_sha256(bytes, len, p->hash);
    free(bytes);
    return GSVM_OK;
}

gsvm_status fal3_program_seal(gsvm_lsl3_program *p, gsvm_error *err)
{
    return fal3_program_seal_file(p, NULL, err);
}
