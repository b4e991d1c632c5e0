/* The verifier: operand ranges and the stack depth along every path.
 *
 * Stack model.  The VM has one flat stack; a function (a Call target) reads
 * and pops slots its caller pushed (the return slot, the arguments), so
 * depth is tracked relative to each function's entry and summarised as
 *   need  - how many slots below its entry the function reaches,
 *   net   - how the caller's depth changes when it returns,
 *   peak  - how far above its entry it grows.
 * A Call checks need against the caller's depth at the call; the roots —
 * RunOp (depth 0) and every event handler (depth = its argument count,
 * popped again by Return's extraPop) — check their own need against their
 * entry depth.  TaskCall inserts the task's variable slots (+nvars) and the
 * matching TaskReturn removes them, so a per-path stack of open tasks is
 * kept.  Each function's instructions are visited once (the first depth
 * seen at an instruction is kept; a different depth along another path is
 * reported), so the analysis is linear per function. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "patho/internal.h"
#include "patho/isa.h"
#include "patho/text.h"

#define MAX_OPEN_TASKS 8
#define MAX_NEST 200

typedef struct vstate {
    int64_t depth;
    uint8_t ntasks;
    uint32_t tasks[MAX_OPEN_TASKS];
    int64_t bases[MAX_OPEN_TASKS]; /* depth of each open task's base (its variable 0) */
} vstate;

/* Each time an instruction reaches further below the entry than any before
 * it (in visiting order), a record: so the first instruction that goes
 * below any threshold is the first record above it. */
typedef struct record {
    uint32_t insn;
    int64_t below, depth;
} record;

typedef struct summary {
    uint8_t state; /* 0 not analysed, 1 in progress, 2 done */
    bool returns;
    int64_t need, net, peak;
    /* Task variables addressed while no task of this function's own is
     * open (so in the caller's task): the distance from that task's base to
     * this function's entry that they need (t + 1 - depth at the
     * instruction, the largest), and the instruction behind it. */
    bool has_task;
    int64_t task_need;
    uint32_t task_insn, task_t;
    record *rec;
    uint32_t nrec, caprec;
} summary;

/* Scratch for one nesting level of the analysis, reused by every function
 * analysed at that level; `stamp[i] == gen` marks instruction i visited in
 * the current function, so starting a function costs nothing per
 * instruction of the program. */
typedef struct level {
    vstate *st;
    uint32_t *stamp, *work;
    uint32_t gen;
} level;

typedef struct verifier {
    level levels[MAX_NEST + 1];
    int max_nest;
    bool nest_reported;
    const gsvm_patho_program *p;
    gsvm_patho_issue *issues;
    size_t count, cap;
    bool oom;
    summary *fn; /* by entry instruction */
    uint8_t *reported; /* per instruction: a depth issue was already reported */
    int nest;
} verifier;

static void issue(verifier *V, long insn, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void issue(verifier *V, long insn, const char *fmt, ...)
{
    if (V->oom || V->count >= 100000)
        return;
    if (V->count == V->cap) {
        size_t ncap = V->cap ? V->cap * 2 : 16;
        gsvm_patho_issue *n = realloc(V->issues, ncap * sizeof *n);
        if (!n) {
            V->oom = true;
            return;
        }
        V->issues = n;
        V->cap = ncap;
    }
    gsvm_patho_issue *is = &V->issues[V->count++];
    is->insn = insn;
    is->offset = insn >= 0 && (uint32_t)insn < V->p->ninsns ? (long long)V->p->insns[insn].offset : -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(is->message, sizeof is->message, fmt, ap);
    va_end(ap);
}

/* ---- operands ------------------------------------------------------------- */

static bool type_ok(uint8_t t) { return t >= 1 && t <= 6; }

static void check_types(verifier *V, long insn, const uint8_t *t, uint32_t n, const char *what)
{
    for (uint32_t i = 0; i < n; i++)
        if (!type_ok(t[i])) {
            issue(V, insn, "%s: unknown type code %u", what, t[i]);
            return;
        }
}

static void check_events(verifier *V, const gsvm_patho_event *ev, uint32_t n, const char *where)
{
    const gsvm_patho_program *p = V->p;
    /* duplicate ids through a small open-addressing set (lists can be long) */
    uint32_t cap = 16;
    while (cap < 2 * (uint64_t)n)
        cap *= 2;
    uint32_t *seen = calloc(cap, sizeof *seen);
    if (!seen) {
        V->oom = true;
        return;
    }
    for (uint32_t e = 0; e < n; e++) {
        if (ev[e].op >= p->ninsns)
            issue(V, -1, "%s event %u: handler op %u outside the code (%u instructions)", where,
                  ev[e].id, ev[e].op, p->ninsns);
        check_types(V, -1, ev[e].arg_types, ev[e].nargs, where);
        for (uint32_t h = (ev[e].id * 2654435761u) & (cap - 1);; h = (h + 1) & (cap - 1)) {
            if (!seen[h]) {
                seen[h] = e + 1;
                break;
            }
            if (ev[seen[h] - 1].id == ev[e].id) {
                issue(V, -1, "%s: event %u has two handlers", where, ev[e].id);
                break;
            }
        }
    }
    free(seen);
}

/* Pool items as the listing shows them: the item containing each byte. */
static uint32_t *pool_items(verifier *V, uint8_t **wide_out)
{
    const gsvm_patho_program *p = V->p;
    uint8_t *refs = calloc(p->pool_size + 1, 1);
    uint32_t *start = malloc((p->pool_size + 1) * sizeof *start);
    uint8_t *wide = calloc(p->pool_size + 1, 1);
    if (!refs || !start || !wide) {
        free(refs);
        free(start);
        free(wide);
        V->oom = true;
        return NULL;
    }
    patho_pool_refs(p, refs);
    for (uint32_t pos = 0; pos < p->pool_size;) {
        bool w;
        uint32_t n = patho_pool_item(p->pool, p->pool_size, pos, refs[pos], &w);
        uint8_t kind = n ? (w ? 1 : 2) : 0;
        if (!n)
            n = p->pool_size - pos;
        for (uint32_t i = pos; i < pos + n; i++) {
            start[i] = pos;
            wide[i] = kind;
        }
        pos += n;
    }
    free(refs);
    *wide_out = wide;
    return start;
}

/* The stack operands of one instruction, gathered through the one
 * definition of what they are (gsvm_patho_stack_operands). */
typedef struct operand_scan {
    int64_t max;   /* the deepest Stack[-v] */
    bool zero;     /* some v is 0 */
} operand_scan;

static void scan_operand(void *user, uint32_t v)
{
    operand_scan *o = user;
    if (v > o->max)
        o->max = v;
    if (!gsvm_patho_stack_slot_ok(v, UINT64_MAX))
        o->zero = true;
}

static operand_scan scan_operands(const gsvm_patho_program *p, const gsvm_patho_insn *in)
{
    operand_scan o = {0, false};
    gsvm_patho_stack_operands(p, in, scan_operand, &o);
    return o;
}

/* Largest Stack[-N] an instruction addresses: the depth it needs, checked
 * against every path's depth below (gsvm_patho_stack_slot_ok's upper end). */
static int64_t max_read(const gsvm_patho_program *p, const gsvm_patho_insn *in)
{
    return scan_operands(p, in).max;
}

static void check_operands(verifier *V)
{
    const gsvm_patho_program *p = V->p;
    uint8_t *kind = NULL;
    uint32_t *start = pool_items(V, &kind);
    if (!start)
        return;
    for (uint32_t i = 0; i < p->ninsns; i++) {
        const gsvm_patho_insn *in = &p->insns[i];
        const gsvm_patho_opinfo *info = &gsvm_patho_ops[in->op];
        const char *ops = info->operands;
        if (scan_operands(p, in).zero)
            issue(V, i, "%s addresses Stack[-0], which names no slot (stack operands count from 1, "
                  "the top)", info->name);
        for (unsigned k = 0; ops[k]; k++) {
            uint32_t v = in->a[k];
            switch (ops[k]) {
            case 'j':
                if (v >= p->ninsns)
                    issue(V, i, "%s target %u outside the code (%u instructions)", info->name, v,
                          p->ninsns);
                break;
            case 'k':
                if (v >= p->ntasks)
                    issue(V, i, "TaskCall of task %u, but there are %u tasks", v, p->ntasks);
                break;
            case 'g':
                if (v >= p->nglobals)
                    issue(V, i, "%s global g%u, but there are %u globals", info->name, v, p->nglobals);
                break;
            case 'T':
                if (v > 1)
                    issue(V, i, "%s addressing mode %u (0 stack or 1 task)", info->name, v);
                break;
            case 'b':
                if (in->op != GSVM_PATHO_OP_JumpB && v > 1)
                    issue(V, i, "%s bool literal %u (0 or 1)", info->name, v);
                break;
            case 'L': check_types(V, i, p->vtypes + in->list, in->list_len, "PushV"); break;
            case 'F': case 'R':
                for (uint32_t a = 0; a < in->list_len; a++)
                    if (p->args[in->list + a].mode > 1) {
                        issue(V, i, "%s argument %u: addressing mode %u (0 stack or 1 task)", info->name,
                              a + 1, p->args[in->list + a].mode);
                        break;
                    }
                break;
            case 's': case 'n': {
                bool want_wide = ops[k] == 's';
                const char *what = want_wide ? "string" : "method name";
                if (v >= p->pool_size) {
                    issue(V, i, "%s %s at pool offset 0x%x outside the pool (%u bytes)", info->name, what,
                          v, p->pool_size);
                    break;
                }
                if (!patho_pool_string_size(p->pool, p->pool_size, v, want_wide)) {
                    issue(V, i, "%s %s at @0x%x has no terminator inside the pool", info->name, what, v);
                    break;
                }
                uint8_t kd = kind[v];
                if (kd == 0 || (kd == 1) != want_wide)
                    issue(V, i, "%s %s @0x%x points into %s at @0x%x", info->name, what, v,
                          kd == 1 ? "a UTF-16 string" : kd == 2 ? "an 8-bit string" : "raw bytes",
                          start[v]);
                else if (want_wide && (v - start[v]) % 2)
                    issue(V, i, "%s string @0x%x is not on a character of the UTF-16 string at @0x%x",
                          info->name, v, start[v]);
                break;
            }
            }
        }
    }
    free(start);
    free(kind);
}

/* ---- task variables --------------------------------------------------------- */

typedef struct task_scan {
    bool any;
    uint32_t max; /* the largest N of a tN */
} task_scan;

static void scan_task(void *user, uint32_t t)
{
    task_scan *o = user;
    if (!o->any || t > o->max)
        o->max = t;
    o->any = true;
}

/* The distance from a task's base to the top when its own code starts
 * (its variables, and its parameters when a TaskCall entered it: the start
 * task gets none), the smaller of the two ways in; INT64_MAX when the task
 * is never entered (its handlers never run). */
static int64_t task_entry_distance(const gsvm_patho_program *p, const bool *called, uint32_t t)
{
    int64_t best = INT64_MAX;
    if (t >= p->ntasks)
        return best;
    if (t == p->run_task)
        best = p->tasks[t].nvars;
    if (called[t] && (int64_t)p->tasks[t].nvars + p->tasks[t].nparams < best)
        best = (int64_t)p->tasks[t].nvars + p->tasks[t].nparams;
    return best;
}

/* ---- stack depth ----------------------------------------------------------- */

static void analyse(verifier *V, uint32_t entry);

static uint32_t task_vars(const gsvm_patho_program *p, uint32_t t)
{
    return t < p->ntasks ? p->tasks[t].nvars : 0;
}

static void analyse(verifier *V, uint32_t entry)
{
    const gsvm_patho_program *p = V->p;
    summary *S = &V->fn[entry];
    S->state = 1;
    S->need = 0;
    S->peak = 0;
    S->has_task = false;
    if (++V->nest > V->max_nest) {
        if (!V->nest_reported)
            issue(V, entry, "calls nest more than %d deep: the stack is not checked below that",
                  V->max_nest);
        V->nest_reported = true;
        S->state = 2;
        S->returns = true;
        V->nest--;
        return;
    }
    level *lv = &V->levels[V->nest];
    if (!lv->st) {
        lv->st = malloc((size_t)p->ninsns * sizeof *lv->st);
        lv->stamp = calloc((size_t)p->ninsns + 1, sizeof *lv->stamp);
        lv->work = malloc((size_t)(p->ninsns + 1) * sizeof *lv->work);
        if (!lv->st || !lv->stamp || !lv->work) {
            V->oom = true;
            S->state = 2;
            V->nest--;
            return;
        }
    }
    vstate *st = lv->st;
    uint32_t *work = lv->work, *stamp = lv->stamp, gen = ++lv->gen;
    size_t nwork = 0;
    stamp[entry] = gen;
    st[entry].depth = 0;
    st[entry].ntasks = 0;
    work[nwork++] = entry;
    bool have_net = false;
    while (nwork && !V->oom) {
        uint32_t i = work[--nwork];
        vstate s = st[i];
        const gsvm_patho_insn *in = &p->insns[i];
        const gsvm_patho_opinfo *info = &gsvm_patho_ops[in->op];
        gsvm_patho_shape shape = gsvm_patho_op_shape(in->op);
        int64_t d = s.depth, reach = max_read(p, in), pops = 0, push = 0;
        /* Task variables: in a task this function opened, checked here
         * against its base; in the caller's task, summarised (task_need)
         * and checked where the task is known (a caller's TaskCall, or a
         * root).  The rule is the VM's (gsvm_patho_task_slot_ok). */
        task_scan ts = {false, 0};
        gsvm_patho_task_operands(p, in, scan_task, &ts);
        if (ts.any && s.ntasks > 0) {
            int64_t dist = d - s.bases[s.ntasks - 1];
            if (!gsvm_patho_task_slot_ok(ts.max, dist) && !V->reported[i]) {
                V->reported[i] = 1;
                issue(V, i, "%s addresses task variable t%u, but task %u has %lld slot(s) here "
                      "(variables, parameters, pushed values)", info->name, ts.max,
                      s.tasks[s.ntasks - 1], (long long)(dist > 0 ? dist : 0));
            }
        } else if (ts.any && (!S->has_task || (int64_t)ts.max + 1 - d > S->task_need)) {
            S->has_task = true;
            S->task_need = (int64_t)ts.max + 1 - d;
            S->task_insn = i;
            S->task_t = ts.max;
        }
        uint32_t succ[2];
        int nsucc = 0;
        bool falls = true;
        switch (info->cls) {
        case GSVM_PATHO_C_PUSH: push = 1; break;
        case GSVM_PATHO_C_PUSHV: push = in->list_len; break;
        case GSVM_PATHO_C_POPN: pops = in->a[0]; break;
        case GSVM_PATHO_C_POPE: pops = (in->a[2] & 2) ? 0 : 1; break;
        case GSVM_PATHO_C_POPGE: pops = (in->a[1] & 1) ? 0 : 1; break;
        case GSVM_PATHO_C_FPUSH: pops = in->a[shape.flag_at] & shape.popmask; push = 1; break;
        case GSVM_PATHO_C_FSET: pops = in->a[shape.flag_at] & shape.popmask; break;
        case GSVM_PATHO_C_JUMP:
            falls = false;
            if (in->a[0] < p->ninsns)
                succ[nsucc++] = in->a[0];
            break;
        case GSVM_PATHO_C_JUMPB:
            pops = in->a[3];
            if (in->a[1] < p->ninsns)
                succ[nsucc++] = in->a[1];
            break;
        case GSVM_PATHO_C_RETURN: pops = in->a[0]; falls = false; break;
        case GSVM_PATHO_C_TCALL:
            push = task_vars(p, in->a[0]);
            if (s.ntasks < MAX_OPEN_TASKS) {
                /* its parameters (already pushed) stay above its variables */
                s.bases[s.ntasks] = d - (in->a[0] < p->ntasks ? p->tasks[in->a[0]].nparams : 0);
                s.tasks[s.ntasks++] = in->a[0];
            }
            break;
        case GSVM_PATHO_C_TRET:
            if (s.ntasks)
                pops = task_vars(p, s.tasks[--s.ntasks]);
            else if (!V->reported[i]) {
                V->reported[i] = 1;
                issue(V, i, "TaskReturn without a TaskCall before it in this function");
            }
            break;
        case GSVM_PATHO_C_CALL: {
            uint32_t t = in->a[0];
            if (t >= p->ninsns)
                break;
            if (V->fn[t].state == 0)
                analyse(V, t);
            const summary *c = &V->fn[t];
            if (c->need > reach)
                reach = c->need;
            if (d + c->peak > S->peak)
                S->peak = d + c->peak;
            if (c->state == 2 && !c->returns)
                falls = false; /* the callee never returns */
            else
                push = c->state == 2 ? c->net : 0;
            if (c->has_task && s.ntasks > 0) {
                int64_t dist = d - s.bases[s.ntasks - 1];
                if (c->task_need > dist && !V->reported[i]) {
                    V->reported[i] = 1;
                    issue(V, i, "Call of op %u, whose %s (op %u) addresses task variable t%u: task %u "
                          "has %lld slot(s) at the call, %lld too few", t,
                          gsvm_patho_ops[p->insns[c->task_insn].op].name, c->task_insn, c->task_t,
                          s.tasks[s.ntasks - 1], (long long)(dist > 0 ? dist : 0),
                          (long long)(c->task_need - dist));
                }
            } else if (c->has_task && (!S->has_task || c->task_need - d > S->task_need)) {
                S->has_task = true;
                S->task_need = c->task_need - d;
                S->task_insn = c->task_insn;
                S->task_t = c->task_t;
            }
            break;
        }
        default: break;
        }
        /* how far below this function's entry the instruction reaches */
        int64_t below = (reach > pops ? reach : pops) - d;
        if (below > S->need) {
            S->need = below;
            if (S->nrec == S->caprec) {
                uint32_t nc = S->caprec ? S->caprec * 2 : 4;
                record *r = realloc(S->rec, nc * sizeof *r);
                if (!r) {
                    V->oom = true;
                    break;
                }
                S->rec = r;
                S->caprec = nc;
            }
            S->rec[S->nrec++] = (record){i, below, d};
        }
        int64_t nd = d - pops + push;
        if (nd > S->peak)
            S->peak = nd;
        if (info->cls == GSVM_PATHO_C_RETURN) {
            if (!have_net) {
                S->net = nd;
                have_net = true;
            } else if (S->net != nd && !V->reported[i]) {
                V->reported[i] = 1;
                issue(V, i, "returns with the stack %+lld from its entry; another Return leaves %+lld",
                      (long long)nd, (long long)S->net);
            }
        }
        if (falls) {
            if (i + 1 < p->ninsns)
                succ[nsucc++] = i + 1;
            else if (!V->reported[i]) {
                V->reported[i] = 1;
                issue(V, i, "execution runs past the end of the code");
            }
        }
        for (int k = 0; k < nsucc; k++) {
            uint32_t n = succ[k];
            if (stamp[n] != gen) {
                stamp[n] = gen;
                st[n] = s;
                st[n].depth = nd;
                work[nwork++] = n;
            } else if (st[n].depth != nd && !V->reported[n]) {
                V->reported[n] = 1;
                issue(V, n, "stack depth differs between paths into this instruction (%+lld and %+lld)",
                      (long long)st[n].depth, (long long)nd);
            }
        }
    }
    S->returns = have_net;
    S->state = 2;
    V->nest--;
}

/* `task_dist`: the smallest distance from the running task's base to the
 * top at the root's entry. */
static void check_root(verifier *V, uint32_t op, int64_t entry_depth, int64_t task_dist, const char *what)
{
    const gsvm_patho_program *p = V->p;
    if (op >= p->ninsns)
        return;
    if (V->fn[op].state == 0)
        analyse(V, op);
    const summary *S = &V->fn[op];
    if (S->has_task && S->task_need > task_dist && !V->reported[S->task_insn]) {
        V->reported[S->task_insn] = 1;
        issue(V, S->task_insn,
              "%s addresses task variable t%u on a path from %s, whose task has %lld slot(s) at "
              "its entry, %lld too few", gsvm_patho_ops[p->insns[S->task_insn].op].name, S->task_t,
              what, (long long)task_dist, (long long)(S->task_need - task_dist));
    }
    for (uint32_t r = 0; r < S->nrec; r++) {
        const record *rc = &S->rec[r];
        if (rc->below <= entry_depth)
            continue;
        const gsvm_patho_insn *in = &p->insns[rc->insn];
        issue(V, rc->insn,
              "stack depth goes negative on a path from %s: %s at depth %lld reaches %lld slot(s) "
              "below the bottom",
              what, gsvm_patho_ops[in->op].name, (long long)(rc->depth + entry_depth),
              (long long)(rc->below - entry_depth));
        return;
    }
    /* The root's Return then pops its extraPop -- an event handler's
     * arguments -- as well: it must leave at least those on the stack. */
    if (S->returns && S->net < 0 && entry_depth > 0)
        issue(V, op,
              "%s returns with the stack %+lld from its entry, and its Return also pops the %lld "
              "argument slot(s): %lld slot(s) below the bottom",
              what, (long long)S->net, (long long)entry_depth, (long long)-S->net);
}

static gsvm_status run(const gsvm_patho_program *p, bool operands, gsvm_patho_issue **issues,
                       size_t *count, uint32_t *max_stack, gsvm_error *err)
{
    verifier V;
    memset(&V, 0, sizeof V);
    V.p = p;
    /* nesting levels hold program-sized scratch: keep their total bounded */
    V.max_nest = (int)(1000000u / (p->ninsns + 1));
    if (V.max_nest > MAX_NEST)
        V.max_nest = MAX_NEST;
    if (V.max_nest < 8)
        V.max_nest = 8;
    V.fn = calloc(p->ninsns + 1, sizeof *V.fn);
    V.reported = calloc(p->ninsns + 1, 1);
    if (!V.fn || !V.reported) {
        free(V.fn);
        free(V.reported);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    if (operands) {
        if (p->ntasks == 0)
            issue(&V, -1, "no tasks: RunTask %u does not exist", p->run_task);
        else if (p->run_task >= p->ntasks)
            issue(&V, -1, "RunTask %u out of range (%u tasks)", p->run_task, p->ntasks);
        if (p->run_op >= p->ninsns)
            issue(&V, -1, "RunOp %u outside the code (%u instructions)", p->run_op, p->ninsns);
        for (uint32_t g = 0; g < p->nglobals; g++)
            if (!type_ok(p->globals[g].type))
                issue(&V, -1, "global g%u: unknown type code %u", g, p->globals[g].type);
        for (uint32_t t = 0; t < p->ntasks; t++) {
            char where[32];
            snprintf(where, sizeof where, "task %u", t);
            check_types(&V, -1, p->tasks[t].var_types, p->tasks[t].nvars, where);
            check_events(&V, p->tasks[t].events, p->tasks[t].nevents, where);
        }
        check_events(&V, p->events, p->nevents, "global");
        check_operands(&V);
    }
    int64_t peak = 0;
    char what[64];
    /* Which tasks a TaskCall may enter: with the start task, the ones an
     * event may find running (a global handler runs in any of them). */
    bool *called = calloc(p->ntasks + 1, 1);
    if (!called)
        V.oom = true;
    for (uint32_t i = 0; called && i < p->ninsns; i++)
        if (p->insns[i].op == GSVM_PATHO_OP_TaskCall && p->insns[i].a[0] < p->ntasks)
            called[p->insns[i].a[0]] = true;
    int64_t any_task = INT64_MAX;
    for (uint32_t t = 0; called && t < p->ntasks; t++) {
        int64_t dt = task_entry_distance(p, called, t);
        if (dt < any_task)
            any_task = dt;
    }
    check_root(&V, p->run_op, 0, p->run_task < p->ntasks ? p->tasks[p->run_task].nvars : 0, "RunOp");
    if (p->run_op < p->ninsns)
        peak = V.fn[p->run_op].peak;
    for (uint32_t t = 0; t < p->ntasks; t++)
        for (uint32_t e = 0; e < p->tasks[t].nevents; e++) {
            const gsvm_patho_event *ev = &p->tasks[t].events[e];
            snprintf(what, sizeof what, "task %u event %u", t, ev->id);
            int64_t dt = called ? task_entry_distance(p, called, t) : INT64_MAX;
            check_root(&V, ev->op, ev->nargs, dt == INT64_MAX ? INT64_MAX : dt + ev->nargs, what);
            if (ev->op < p->ninsns && V.fn[ev->op].peak + ev->nargs > peak)
                peak = V.fn[ev->op].peak + ev->nargs;
        }
    for (uint32_t e = 0; e < p->nevents; e++) {
        snprintf(what, sizeof what, "global event %u", p->events[e].id);
        check_root(&V, p->events[e].op, p->events[e].nargs,
                   any_task == INT64_MAX ? INT64_MAX : any_task + p->events[e].nargs, what);
        if (p->events[e].op < p->ninsns && V.fn[p->events[e].op].peak + p->events[e].nargs > peak)
            peak = V.fn[p->events[e].op].peak + p->events[e].nargs;
    }
    free(called);
    for (uint32_t i = 0; i <= p->ninsns; i++)
        free(V.fn[i].rec);
    for (int l = 0; l <= MAX_NEST; l++) {
        free(V.levels[l].st);
        free(V.levels[l].stamp);
        free(V.levels[l].work);
    }
    free(V.fn);
    free(V.reported);
    if (V.oom) {
        free(V.issues);
        return gsvm_error_set(err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    if (max_stack)
        *max_stack = peak < 0 ? 0 : peak > UINT32_MAX ? UINT32_MAX : (uint32_t)peak;
    if (issues) {
        *issues = V.issues;
        *count = V.count;
    } else {
        free(V.issues);
    }
    return GSVM_OK;
}

gsvm_status gsvm_patho_verify(const gsvm_patho_program *p, gsvm_patho_issue **issues,
                              size_t *count, gsvm_error *err)
{
    gsvm_error_clear(err);
    *issues = NULL;
    *count = 0;
    return run(p, true, issues, count, NULL, err);
}

gsvm_status patho_max_stack(const gsvm_patho_program *p, uint32_t *out, gsvm_error *err)
{
    return run(p, false, NULL, NULL, out, err);
}
