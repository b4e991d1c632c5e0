/* ABI-3 compiler: conditions (compare-and-branch forms) and statements. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsl/compiler3.h"


static bool local_int(c3 *c, const lsl_expr *e, int *slot)
{
    var3 v;
    if (e->kind == E_IDENT && c3_find_var(c, e->name, &v) && !v.global && v.type == LSL_TYPE_INTEGER) {
        *slot = v.slot;
        return true;
    }
    return false;
}

/* Compiles a condition that jumps to a (patched later) target when false;
 * returns the jump's ip.  Loop tests on integer locals fuse into one
 * compare-and-branch. */
static bool scan_push(c3 *c, const lsl_expr *e)
{
    if (!c3_reserve(c, (void **)&c->scan, &c->capscan, c->nscan, sizeof *c->scan))
        return false;
    c->scan[c->nscan++] = e;
    return true;
}

/* Does every node of e pass: integer literals and integer variables
 * (`quiet`: numbers, float ones too), under unary operators and binary
 * ones (not && || for `int_expr`; not / % for `quiet`)?  Walked with the
 * scan stack, not recursion. */
static bool numeric_tree(c3 *c, const lsl_expr *e, bool quiet)
{
    c->nscan = 0;
    if (!scan_push(c, e))
        return false;
    while (c->nscan) {
        e = c->scan[--c->nscan];
        var3 v;
        switch (e->kind) {
        case E_INT:
            break;
        case E_FLOAT:
            if (!quiet)
                return false;
            break;
        case E_IDENT:
            if (!c3_find_var(c, e->name, &v) ||
                !(v.type == LSL_TYPE_INTEGER || (quiet && v.type == LSL_TYPE_FLOAT)))
                return false;
            break;
        case E_MEMBER: /* a component of a vector or rotation variable: a float */
            if (!quiet || e->lhs->kind != E_IDENT || !c3_find_var(c, e->lhs->name, &v) ||
                (v.type != LSL_TYPE_VECTOR && v.type != LSL_TYPE_ROTATION))
                return false;
            break;
        case E_UNARY:
            if (!scan_push(c, e->lhs))
                return false;
            break;
        case E_BINARY:
            if (quiet ? e->op == T_SLASH || e->op == T_PERCENT : e->op == T_AND_AND || e->op == T_OR_OR)
                return false;
            if (!scan_push(c, e->lhs) || !scan_push(c, e->rhs))
                return false;
            break;
        default:
            return false;
        }
    }
    return true;
}

/* An expression of integers only (locals, globals, literals, integer
 * operators): its type is integer. */
bool c3_int_expr(c3 *c, const lsl_expr *e) { return numeric_tree(c, e, false); }

/* Numbers only, no side effect, no fault: evaluating it or not cannot be
 * told apart, so a condition may skip it. */
static bool quiet_expr(c3 *c, const lsl_expr *e) { return numeric_tree(c, e, true); }

/* The jump target field of a conditional jump ccond_false emitted. */
static int32_t *jump_target(fal3_insn *in)
{
    switch (in->op) {
    case F3_JZ: case F3_JNZ: case F3_JZ_AND: case F3_JNZ_AND: return &in->a;
    case F3_JZ_L: case F3_JNZ_L: return &in->b;
    default:
        if ((in->op >= F3_JNLT_I && in->op <= F3_JNGE_F) || (in->op >= F3_JLT_F && in->op <= F3_JGE_F))
            return &in->a;
        return &in->c;
    }
}

/* An unpatched jump's target field: -1 ends its chain, -2 - ip names the
 * chain's next jump (a target packed in 24 bits: 0xFFFFFF ends, else the
 * next ip); set_target writes either a real target or such a link. */
static bool packed_target(const fal3_insn *in)
{
    return in->op == F3_JZ_IOP_LL || in->op == F3_JNZ_IOP_LL || in->op == F3_JZ_IOP_LK || in->op == F3_JNZ_IOP_LK ||
           in->op == F3_JCMPF_LK || in->op == F3_JCMPF_LKT;
}

static int32_t target_of(fal3_insn *in)
{
    int32_t t = *jump_target(in);
    if (packed_target(in)) {
        uint32_t v = (uint32_t)t >> 8;
        return v == 0xFFFFFFu ? -1 : -2 - (int32_t)v;
    }
    return t;
}

static void set_target(fal3_insn *in, int32_t target)
{
    int32_t *t = jump_target(in);
    if (packed_target(in)) {
        uint32_t v = target == -1 ? 0xFFFFFFu : target <= -2 ? (uint32_t)(-2 - target) : (uint32_t)target;
        *t = (int32_t)(((uint32_t)*t & 255u) | (v << 8));
    } else
        *t = target;
}

static long ccond_false1(c3 *c, const lsl_expr *e);

/* Compiles a condition that jumps to a (patched later) target when false;
 * returns the last of its false-jumps, which chain to the others (a jump's
 * unpatched target -2 - ip names the previous one, -1 ends the chain).
 * `A && B` with a quiet B and a pure A (so B's value cannot depend on
 * A's evaluation) tests A first and skips B when A is false: LSL evaluates
 * both, which no one can tell apart. */
static bool split_and(c3 *c, const lsl_expr *e)
{
    return e->kind == E_BINARY && e->op == T_AND_AND && pure_expr(e->lhs) && quiet_expr(c, e->rhs);
}

/* `A || B` with the same operands: A true skips B, else B decides. */
static bool split_or(c3 *c, const lsl_expr *e)
{
    return e->kind == E_BINARY && e->op == T_OR_OR && pure_expr(e->lhs) && quiet_expr(c, e->rhs);
}

/* The tests of a chain of such `A || B || C` (parsed (A || B) || C), left
 * to right, into *leaves (freed by the caller); their count. */
static size_t or_leaves(c3 *c, const lsl_expr *e, const lsl_expr ***leaves)
{
    size_t n = 0, cap = 0;
    *leaves = NULL;
    for (const lsl_expr *x = e; ; x = x->lhs) {
        if (!c3_reserve(c, (void **)leaves, &cap, n, sizeof **leaves))
            return 0;
        (*leaves)[n++] = split_or(c, x) ? x->rhs : x;
        if (!split_or(c, x))
            break;
    }
    for (size_t i = 0; i < n / 2; i++) { /* collected right to left */
        const lsl_expr *t = (*leaves)[i];
        (*leaves)[i] = (*leaves)[n - 1 - i];
        (*leaves)[n - 1 - i] = t;
    }
    return n;
}

static bool invert_jump(fal3_insn *in);
static void patch_false(c3 *c, long at, size_t target);

/* ccond_false of an `A || B || C` chain: each test but the last jumps past
 * the chain when true; the last one's false-jump is the chain's. */
static long ccond_false_or(c3 *c, const lsl_expr *e)
{
    const lsl_expr **leaves;
    size_t n = or_leaves(c, e, &leaves);
    long trues = -1, j = n ? 0 : -1;
    for (size_t i = 0; i < n && j >= 0; i++) {
        j = ccond_false1(c, leaves[i]);
        if (j < 0 || i + 1 == n)
            break;
        if (!invert_jump(&c->p->code[j])) {
            c3_fail(c, leaves[i]->line, leaves[i]->col, "internal: no inverse for a condition jump");
            j = -1;
            break;
        }
        if (trues >= 0)
            set_target(&c->p->code[j], (int32_t)(-2 - trues));
        trues = j;
    }
    free(leaves);
    if (j >= 0) {
        patch_false(c, trues, c->p->ncode);
        c->barrier = c->p->ncode; /* the true-jumps land here */
    }
    return j;
}

/* The tests of such `A && B`s are its leaves, compiled left to right, each
 * one false-jump; the chain runs from the last one's back to the first's.
 * `todo` holds the operands still to compile (no recursion). */
static long ccond_false(c3 *c, const lsl_expr *e)
{
    const lsl_expr **todo = NULL;
    size_t n = 0, cap = 0;
    long chain = -1;
    if (!c3_reserve(c, (void **)&todo, &cap, n, sizeof *todo))
        return -1;
    todo[n++] = e;
    while (n) {
        e = todo[--n];
        if (split_and(c, e)) {
            if (!c3_reserve(c, (void **)&todo, &cap, n + 1, sizeof *todo)) {
                chain = -1;
                break;
            }
            todo[n++] = e->rhs;
            todo[n++] = e->lhs; /* the left one first */
            continue;
        }
        long j = split_or(c, e) ? ccond_false_or(c, e) : ccond_false1(c, e);
        if (j < 0) {
            chain = -1;
            break;
        }
        if (chain >= 0)
            set_target(&c->p->code[j], (int32_t)(-2 - chain));
        chain = j;
    }
    free(todo);
    return chain;
}

static long ccond_false1(c3 *c, const lsl_expr *e)
{
    c->barrier = c->p->ncode;
    if (e->kind == E_IDENT) {
        var3 v;
        if (c3_find_var(c, e->name, &v) && !v.global && v.type == LSL_TYPE_INTEGER)
            return c3_op(c, F3_JZ_L, v.slot, -1, 0); /* `while (flag)` */
    }
    if (e->kind == E_BINARY && (e->op == T_LT || e->op == T_LE || e->op == T_GT || e->op == T_GE ||
                                e->op == T_EQ || e->op == T_NE)) {
        int l, r;
        if (local_int(c, e->rhs, &r) && !local_int(c, e->lhs, &l) && pure_expr(e->lhs) && c3_int_expr(c, e->lhs)) {
            /* `d * d <= n`: the left side first (both pure), then one
             * compare-and-branch against the local */
            lsl_type lt = c3_cexpr(c, e->lhs);
            if (lt == T_ERR)
                return -1;
            fal3_op cmp = e->op == T_LT ? F3_LT_I : e->op == T_LE ? F3_LE_I : e->op == T_GT ? F3_GT_I
                        : e->op == T_GE ? F3_GE_I : e->op == T_EQ ? F3_EQ_I : F3_NE_I;
            return c3_emit(c, F3_JCMP_IL, r, cmp, -1, 1, 0);
        }
    }
    if (e->kind == E_BINARY && (e->op == T_LT || e->op == T_LE || e->op == T_GT)) {
        int l, r;
        if (local_int(c, e->lhs, &l)) {
            if (local_int(c, e->rhs, &r)) {
                if (e->op == T_LT)
                    return c3_op(c, F3_JGE_LL, l, r, -1);
                if (e->op == T_LE)
                    return c3_op(c, F3_JGT_LL, l, r, -1);
                return c3_op(c, F3_JGE_LL, r, l, -1); /* l > r false when r >= l */
            }
            var3 g;
            if (e->rhs->kind == E_IDENT && c3_find_var(c, e->rhs->name, &g) && g.global && g.type == LSL_TYPE_INTEGER &&
                e->op != T_GT) {
                /* a loop bound held in a global: one compare-and-branch */
                return c3_op(c, e->op == T_LT ? F3_JGE_LG : F3_JGT_LG, l, g.slot, -1);
            }
            if (e->rhs->kind == E_INT) {
                if (e->op == T_LT)
                    return c3_op(c, F3_JGE_LI, l, e->rhs->ival, -1);
                if (e->op == T_LE)
                    return c3_op(c, F3_JGT_LI, l, e->rhs->ival, -1);
                return c3_op(c, F3_JLE_LI, l, e->rhs->ival, -1); /* `while (n > 1)` */
            }
        }
    }
    lsl_type t = c3_cexpr(c, e);
    if (t == T_ERR)
        return -1;
    if (t == LSL_TYPE_VOID) {
        c3_fail(c, e->line, e->col, "Type mismatch: a condition cannot be void");
        return -1;
    }
    if (t != LSL_TYPE_INTEGER && c3_op(c, F3_TRUTH, 0, 0, 0) < 0)
        return -1;
    size_t n = c->p->ncode;
    if (e->kind == E_BINARY && (e->op == T_EQ || e->op == T_NE) && e->rhs->kind == E_INT && e->rhs->ival == 0 &&
        n >= c->barrier + 3 && c->p->code[c->barrier].op == F3_PUSH_INT && c->p->code[c->barrier].a == 0 &&
        c->p->code[n - 1].op == (e->op == T_EQ ? F3_EQ_I : F3_NE_I)) {
        /* `x == 0` / `x != 0`: x itself is the test.  The 0 was pushed
         * first (at the barrier); an expression has no jumps, so its code
         * can move down one place. */
        fal3_insn *code = c->p->code;
        memmove(code + c->barrier, code + c->barrier + 1, (n - 2 - c->barrier) * sizeof *code);
        c->p->ncode = n - 2;
        if (c->p->ncode == c->barrier + 1 && (code[c->barrier].op == F3_IOP_LL || code[c->barrier].op == F3_IOP_LK)) {
            /* `n % d == 0`, `h % 2 == 0`: the operation and the test in one */
            fal3_insn *in = &code[c->barrier];
            bool ll = in->op == F3_IOP_LL;
            in->op = e->op == T_EQ ? (ll ? F3_JNZ_IOP_LL : F3_JNZ_IOP_LK) : (ll ? F3_JZ_IOP_LL : F3_JZ_IOP_LK);
            in->c = (in->c & 255) | (int32_t)(0xFFFFFFu << 8);
            c->sd -= 1;
            return (long)c->barrier;
        }
        return c3_emit(c, e->op == T_EQ ? F3_JNZ : F3_JZ, -1, 0, 0, 1, 0);
    }
    if (n > c->barrier) {
        fal3_insn *last = &c->p->code[n - 1];
        fal3_op j = F3_COUNT;
        switch (last->op) {
        case F3_LT_I: j = F3_JNLT_I; break;
        case F3_LE_I: j = F3_JNLE_I; break;
        case F3_GT_I: j = F3_JNGT_I; break;
        case F3_GE_I: j = F3_JNGE_I; break;
        case F3_EQ_I: j = F3_JNEQ_I; break;
        case F3_NE_I: j = F3_JNNE_I; break;
        case F3_LT_F: j = F3_JNLT_F; break;
        case F3_LE_F: j = F3_JNLE_F; break;
        case F3_GT_F: j = F3_JNGT_F; break;
        case F3_GE_F: j = F3_JNGE_F; break;
        case F3_LAND_I: j = F3_JZ_AND; break;
        case F3_CMPF_K: {
            if (n >= c->barrier + 2 && c->p->code[n - 2].op == F3_LOAD_LOCAL &&
                c->slot_types[c->p->code[n - 2].a] == LSL_TYPE_FLOAT) {
                /* `x > 8192.0` on a float local: the slot itself is tested */
                fal3_insn *ld = &c->p->code[n - 2];
                *ld = (fal3_insn){F3_JCMPF_LK, ld->a, last->a, (last->b & 255) | (int32_t)(0xFFFFFFu << 8)};
                c->p->ncode = n - 1;
                c->sd -= 1; /* the local's push, now never made */
                return (long)n - 2;
            }
            /* `x <= 4.0`: compare and branch on the constant */
            last->op = F3_JCMPF_K;
            last->c = -1;
            c->sd -= 1;
            return (long)n - 1;
        }
        case F3_IOP_LK:
            if ((last->c == F3_EQ_I || last->c == F3_NE_I) && last->b == 0) {
                /* `x == 0`, `x != 0` on an integer local: the slot is the test */
                *last = (fal3_insn){last->c == F3_EQ_I ? F3_JNZ_L : F3_JZ_L, last->a, -1, 0};
                c->sd -= 1;
                return (long)n - 1;
            }
            /* `if (n & 1)`: as `n % d` */
            /* fall through */
        case F3_IOP_LL:
            if (n == c->barrier + 1) {
                last->op = last->op == F3_IOP_LL ? F3_JZ_IOP_LL : F3_JZ_IOP_LK;
                last->c = (last->c & 255) | (int32_t)(0xFFFFFFu << 8);
                c->sd -= 1;
                return (long)n - 1;
            }
            break;
        default: break;
        }
        if (j != F3_COUNT) {
            /* compare-and-branch: the comparison's 0/1 never reaches the stack */
            c->p->ncode--;
            c->sd += 1; /* undo the compare's 2 -> 1 */
            return c3_emit(c, j, -1, 0, 0, 2, 0);
        }
    }
    return c3_op(c, F3_JZ, -1, 0, 0);
}


static void patch_false(c3 *c, long at, size_t target)
{
    while (at >= 0) {
        fal3_insn *in = &c->p->code[at];
        int32_t next = target_of(in);
        set_target(in, (int32_t)target);
        at = next <= -2 ? -2 - next : -1;
    }
}

static bool ccond_true1(c3 *c, const lsl_expr *e, size_t target);

/* Compiles a condition that jumps to `target` when TRUE (a loop's test at
 * its bottom): the false-jump of ccond_false, inverted. */
static bool ccond_true(c3 *c, const lsl_expr *e, size_t target)
{
    /* `A && B` as ccond_false splits it: A false skips B, else B decides;
     * the skips (one chain per A, walked down B's right side) all land
     * after the test */
    long *skips = NULL;
    size_t nskips = 0, cap = 0;
    bool ok = true;
    while (ok && split_and(c, e)) {
        long jf = ccond_false(c, e->lhs);
        ok = jf >= 0 && c3_reserve(c, (void **)&skips, &cap, nskips, sizeof *skips);
        if (ok)
            skips[nskips++] = jf;
        e = e->rhs;
    }
    if (ok && split_or(c, e)) { /* `A || B`: each test jumps when true */
        const lsl_expr **leaves;
        size_t n = or_leaves(c, e, &leaves);
        ok = n > 0;
        for (size_t i = 0; ok && i < n; i++)
            ok = ccond_true1(c, leaves[i], target);
        free(leaves);
    } else
        ok = ok && ccond_true1(c, e, target);
    while (ok && nskips)
        patch_false(c, skips[--nskips], c->p->ncode);
    free(skips);
    return ok;
}

/* ccond_true of a test that is one leaf. */
static bool ccond_true1(c3 *c, const lsl_expr *e, size_t target)
{
    long at = ccond_false1(c, e);
    if (at < 0)
        return false;
    if (!invert_jump(&c->p->code[at]))
        return c3_fail(c, e->line, e->col, "internal: no inverse for a condition jump");
    patch_false(c, at, target);
    return true;
}

/* Turns a false-jump of ccond_false1 into the jump taken when the test is true. */
static bool invert_jump(fal3_insn *in)
{
    switch (in->op) {
    case F3_JZ: in->op = F3_JNZ; break;
    case F3_JNZ: in->op = F3_JZ; break;
    case F3_JNLT_I: in->op = F3_JNGE_I; break;
    case F3_JNLE_I: in->op = F3_JNGT_I; break;
    case F3_JNGT_I: in->op = F3_JNLE_I; break;
    case F3_JNGE_I: in->op = F3_JNLT_I; break;
    case F3_JNEQ_I: in->op = F3_JNNE_I; break;
    case F3_JNNE_I: in->op = F3_JNEQ_I; break;
    case F3_JNLT_F: in->op = F3_JLT_F; break; /* NaN: !(l < r) is not l >= r */
    case F3_JNLE_F: in->op = F3_JLE_F; break;
    case F3_JNGT_F: in->op = F3_JGT_F; break;
    case F3_JNGE_F: in->op = F3_JGE_F; break;
    case F3_JZ_AND: in->op = F3_JNZ_AND; break;
    case F3_JGE_LI: in->op = F3_JLT_LI; break;
    case F3_JGT_LI: in->op = F3_JLE_LI; break;
    case F3_JGE_LL: in->op = F3_JLT_LL; break;
    case F3_JGT_LL: in->op = F3_JLE_LL; break;
    case F3_JGE_LG: in->op = F3_JLT_LG; break;
    case F3_JGT_LG: in->op = F3_JLE_LG; break;
    case F3_JCMPF_K: in->op = F3_JCMPF_KT; break;
    case F3_JCMPF_LK: in->op = F3_JCMPF_LKT; break;
    case F3_JCMP_IL: in->op = F3_JCMP_ILT; break;
    case F3_JZ_L: in->op = F3_JNZ_L; break;
    case F3_JNZ_L: in->op = F3_JZ_L; break;
    case F3_JZ_IOP_LL: in->op = F3_JNZ_IOP_LL; break;
    case F3_JNZ_IOP_LL: in->op = F3_JZ_IOP_LL; break;
    case F3_JZ_IOP_LK: in->op = F3_JNZ_IOP_LK; break;
    case F3_JNZ_IOP_LK: in->op = F3_JZ_IOP_LK; break;
    case F3_JLE_LI: in->op = F3_JGT_LI; break;
    default: return false;
    }
    return true;
}

static long find_label(c3 *c, const char *name, long line, long col, bool define)
{
    for (size_t i = 0; i < c->nlabels; i++)
        if (strcmp(c->labels[i].name, name) == 0) {
            if (define && c->labels[i].ip >= 0) {
                c3_fail(c, line, col, "Name previously declared within scope: label '%s' is defined twice", name);
                return -1;
            }
            return (long)i;
        }
    if (c->nlabels == c->caplabels) {
        size_t nc = c->caplabels ? c->caplabels * 2 : 8;
        label3 *nl = realloc(c->labels, nc * sizeof *nl);
        if (!nl) {
            c3_fail(c, line, col, "out of memory");
            return -1;
        }
        c->labels = nl;
        c->caplabels = nc;
    }
    c->labels[c->nlabels] = (label3){name, -1, line, col};
    return (long)c->nlabels++;
}

/* A statement without a body (no S_BLOCK, S_IF or loop). */
static bool cstmt_leaf(c3 *c, const lsl_stmt *s)
{
    switch (s->kind) {
    case S_EMPTY:
        return true;
    case S_EXPR:
        return c3_cexpr_stmt(c, s->expr);
    case S_DECL: {
        if (s->expr) {
            lsl_type t = c3_cexpr(c, s->expr);
            if (!c3_coerce(c, t, s->decl_type, s->expr->line, s->expr->col, "initializer"))
                return false;
        } else if (c3_op(c, F3_PUSH_EMPTY, s->decl_type, 0, 0) < 0)
            return false;
        int slot = 0;
        if (!c3_declare_local(c, s->name, s->decl_type, s->name_line, s->name_col, &slot))
            return false;
        return c3_op(c, F3_STORE_LOCAL, slot, 0, 0) >= 0;
    }
    case S_JUMP: {
        long li = find_label(c, s->name, s->line, s->col, false);
        long at = c3_op(c, F3_JMP, -1, 0, 0);
        if (li < 0 || at < 0)
            return false;
        if (c->nfixups == c->capfixups) {
            size_t nc = c->capfixups ? c->capfixups * 2 : 8;
            fixup3 *nf = realloc(c->fixups, nc * sizeof *nf);
            if (!nf)
                return c3_fail(c, s->line, s->col, "out of memory");
            c->fixups = nf;
            c->capfixups = nc;
        }
        c->fixups[c->nfixups++] = (fixup3){(size_t)li, at};
        return true;
    }
    case S_LABEL: {
        long li = find_label(c, s->name, s->line, s->col, true);
        if (li < 0)
            return false;
        c->labels[li].ip = (long)c->p->ncode;
        return true;
    }
    case S_RETURN:
        if (s->expr) {
            if (c->ret == LSL_TYPE_VOID)
                return c3_fail(c, s->line, s->col,
                            "Return statement type doesn't match function return type: this %s returns no value",
                            c->in_event ? "event" : "function");
            lsl_type t = c3_cexpr(c, s->expr);
            if (!c3_coerce(c, t, c->ret, s->expr->line, s->expr->col, "return"))
                return false;
            return c3_op(c, F3_RETV, 0, 0, 0) >= 0;
        }
        if (c->ret != LSL_TYPE_VOID)
            return c3_fail(c, s->line, s->col,
                        "Function returns a value but return statement doesn't: return needs a value of type %s",
                        lsl_type_name(c->ret));
        return c3_op(c, F3_RET, 0, 0, 0) >= 0;
    case S_STATE: {
        long si;
        /* Second Life refuses `state x;` in a function, except as the body
         * of an `if` without else: there it returns from the function and
         * the state changes when the handler ends */
        if (!c->in_event && !c->state_if_body)
            return c3_fail(c, s->line, s->col, "Global functions can't change state");
        if (!lsl_names_get(&c->snames, s->name, &si))
            return c3_fail(c, s->line, s->col, "Name not defined within scope: no state named '%s'", s->name);
        if (c->in_event)
            return c3_op(c, F3_STATE, (int32_t)si, 0, 0) >= 0;
        if (c3_op(c, F3_SET_STATE, (int32_t)si, 0, 0) < 0)
            return false;
        if (c->ret == LSL_TYPE_VOID)
            return c3_op(c, F3_RET, 0, 0, 0) >= 0;
        return c3_op(c, F3_PUSH_EMPTY, c->ret, 0, 0) >= 0 && c3_op(c, F3_RETV, 0, 0, 0) >= 0;
    }
    case S_BLOCK: case S_IF: case S_WHILE: case S_DO: case S_FOR:
        break; /* cstmt's */
    }
    return c3_fail(c, s->line, s->col, "unknown statement");
}

/* A statement being compiled by cstmt: `stage` counts its steps; `i` the
 * block's statements started, `jf` a false-jump, `chain` an if chain's
 * jumps to its end, `top` a loop's first instruction. */
typedef struct sframe3 {
    const lsl_stmt *s; /* S_IF: the if of the chain being compiled */
    int stage;
    size_t i;
    long line, col; /* the code position to restore when it is done */
    long jf, chain;
    size_t top;
} sframe3;

static bool push_stmt(c3 *c, const lsl_stmt *s)
{
    if (!c3_reserve(c, (void **)&c->sf, &c->capsf, c->nsf, sizeof *c->sf))
        return false;
    c->sf[c->nsf++] = (sframe3){.s = s, .line = c->line, .col = c->col};
    if (s->line > 0) {
        c->line = s->line;
        c->col = s->col;
    }
    return true;
}

/* Compiles a statement and every statement in it, without recursion: each
 * block, if chain and loop whose body is being compiled is a frame on
 * c->sf.  Each statement's code is of its position; a jump may land at a
 * statement's start, so no peephole fuses across it (`barrier`). */
bool c3_cstmt(c3 *c, const lsl_stmt *root)
{
    size_t base = c->nsf;
    long line0 = c->line, col0 = c->col;
    if (!push_stmt(c, root))
        return false;
    while (c->nsf > base) {
        sframe3 *f = &c->sf[c->nsf - 1];
        const lsl_stmt *s = f->s;
        const lsl_stmt *child = NULL;
        bool ok = true;
        if (f->stage == 0) {
            if (c->failed) {
                ok = false;
                goto done;
            }
            c->barrier = c->p->ncode;
        }
        switch (s->kind) {
        case S_BLOCK:
            if (f->stage == 0) {
                c->depth++;
                f->stage = 1;
            }
            if (f->i < s->nstmts) {
                child = s->stmts[f->i++];
                break;
            }
            c3_leave_scope(c);
            break;
        case S_IF:
            /* an else-if chain in one frame; the jumps to its end are chained
             * through their operands until patched */
            if (f->stage == 0) {
                f->chain = -1;
                f->stage = 1; /* the test of f->s */
            } else if (f->stage == 2) { /* the body of f->s is compiled */
                c->state_if_body = false;
                if (!s->else_body) {
                    patch_false(c, f->jf, c->p->ncode);
                    f->stage = 4;
                } else {
                    long je = c3_op(c, F3_JMP, (int32_t)f->chain, 0, 0);
                    if (je < 0) {
                        ok = false;
                        break;
                    }
                    f->chain = je;
                    patch_false(c, f->jf, c->p->ncode);
                    if (s->else_body->kind != S_IF) {
                        f->stage = 3;
                        child = s->else_body;
                        break;
                    }
                    f->s = s = s->else_body;
                    c->barrier = c->p->ncode;
                    f->stage = 1;
                }
            } else if (f->stage == 3) { /* the final else is compiled */
                f->stage = 4;
            }
            if (f->stage == 1) {
                f->jf = ccond_false(c, s->expr);
                c->state_if_body = !s->else_body && s->body->kind == S_STATE;
                if (f->jf < 0) {
                    c->state_if_body = false;
                    ok = false;
                    break;
                }
                f->stage = 2;
                child = s->body;
                break;
            }
            for (long at = f->chain; at >= 0;) {
                long next = c->p->code[at].a;
                c->p->code[at].a = (int32_t)c->p->ncode;
                at = next;
            }
            break;
        case S_WHILE:
            /* tested at the top once, then at the bottom (one jump per turn) */
            if (f->stage++ == 0) {
                f->jf = ccond_false(c, s->expr);
                f->top = c->p->ncode;
                c->barrier = f->top;
                if (f->jf < 0)
                    ok = false;
                else
                    child = s->body;
                break;
            }
            if (!(ok = ccond_true(c, s->expr, f->top)))
                break;
            patch_false(c, f->jf, c->p->ncode);
            break;
        case S_DO:
            if (f->stage++ == 0) {
                f->top = c->p->ncode;
                c->barrier = f->top;
                child = s->body;
                break;
            }
            ok = ccond_true(c, s->expr, f->top);
            break;
        case S_FOR:
            if (f->stage++ == 0) {
                for (size_t i = 0; i < s->ninit && ok; i++)
                    ok = c3_cexpr_stmt(c, s->init[i]);
                f->jf = -1;
                if (ok && s->expr && (f->jf = ccond_false(c, s->expr)) < 0)
                    ok = false;
                if (!ok)
                    break;
                f->top = c->p->ncode;
                c->barrier = f->top;
                child = s->body;
                break;
            }
            c->barrier = c->p->ncode;
            for (size_t i = 0; i < s->nstep && ok; i++)
                ok = c3_cexpr_stmt(c, s->step[i]);
            if (ok)
                ok = s->expr ? ccond_true(c, s->expr, f->top) : c3_op(c, F3_JMP, (int32_t)f->top, 0, 0) >= 0;
            if (ok)
                patch_false(c, f->jf, c->p->ncode);
            break;
        default:
            ok = cstmt_leaf(c, s);
            break;
        }
        if (ok && child) {
            if (push_stmt(c, child))
                continue;
            ok = false;
        }
    done:
        c->line = f->line;
        c->col = f->col;
        c->nsf--;
        if (!ok) { /* a statement's error ends its function's compilation */
            while (c->nsf > base) {
                f = &c->sf[--c->nsf];
                if (f->s->kind == S_BLOCK && f->stage > 0)
                    c3_leave_scope(c);
            }
            c->line = line0;
            c->col = col0;
            return false;
        }
    }
    return true;
}
