/* ABI-3 compiler: expressions (typed operators, peephole fusion of operands, assignments). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsl/compiler3.h"



static bool load_var(c3 *c, const var3 *v)
{
    return c3_op(c, v->global ? F3_LOAD_GLOBAL : F3_LOAD_LOCAL, v->slot, 0, 0) >= 0;
}

static bool store_var(c3 *c, const var3 *v, bool keep)
{
    fal3_op o = v->global ? (keep ? F3_PUT_GLOBAL : F3_STORE_GLOBAL) : (keep ? F3_PUT_LOCAL : F3_STORE_LOCAL);
    return c3_op(c, o, v->slot, 0, 0) >= 0;
}

static bool lvalue(c3 *c, const lsl_expr *lv, var3 *v, int *member)
{
    *member = -1;
    const lsl_expr *base = lv;
    if (lv->kind == E_MEMBER) {
        base = lv->lhs;
        const char *m = lv->name;
        *member = !strcmp(m, "x") ? 0 : !strcmp(m, "y") ? 1 : !strcmp(m, "z") ? 2 : !strcmp(m, "s") ? 3 : -2;
        if (*member == -2)
            return c3_fail(c, lv->line, lv->col, "Use of vector or quaternion method on incorrect type: no member '%s'", m);
    }
    if (base->kind != E_IDENT)
        return c3_fail(c, lv->line, lv->col, "Syntax error: can only assign to a variable");
    if (!c3_find_var(c, base->name, v))
        return c3_fail(c, base->line, base->col, "Name not defined within scope: '%s' is not declared", base->name);
    if (*member >= 0) {
        if (v->type != LSL_TYPE_VECTOR && v->type != LSL_TYPE_ROTATION)
            return c3_fail(c, lv->line, lv->col, "Use of vector or quaternion method on incorrect type: '.%s' needs a vector or rotation", lv->name);
        if (*member == 3 && v->type != LSL_TYPE_ROTATION)
            return c3_fail(c, lv->line, lv->col, "Use of vector or quaternion method on incorrect type: a vector has no member 's'");
    }
    return true;
}

static bool tok_to_op(lsl_tok t, lsl_op *o)
{
    switch (t) {
    case T_PLUS: case T_PLUS_ASSIGN: *o = LSL_OP_ADD; return true;
    case T_MINUS: case T_MINUS_ASSIGN: *o = LSL_OP_SUB; return true;
    case T_STAR: case T_STAR_ASSIGN: *o = LSL_OP_MUL; return true;
    case T_SLASH: case T_SLASH_ASSIGN: *o = LSL_OP_DIV; return true;
    case T_PERCENT: case T_PERCENT_ASSIGN: *o = LSL_OP_MOD; return true;
    case T_EQ: *o = LSL_OP_EQ; return true;
    case T_NE: *o = LSL_OP_NE; return true;
    case T_LT: *o = LSL_OP_LT; return true;
    case T_LE: *o = LSL_OP_LE; return true;
    case T_GT: *o = LSL_OP_GT; return true;
    case T_GE: *o = LSL_OP_GE; return true;
    case T_AMP: *o = LSL_OP_BITAND; return true;
    case T_PIPE: *o = LSL_OP_BITOR; return true;
    case T_CARET: *o = LSL_OP_BITXOR; return true;
    case T_SHL: *o = LSL_OP_SHL; return true;
    case T_SHR: *o = LSL_OP_SHR; return true;
    case T_AND_AND: *o = LSL_OP_AND; return true;
    case T_OR_OR: *o = LSL_OP_OR; return true;
    default: return false;
    }
}

/* Float code that may run before a local read emitted ahead of it: it
 * writes no local and cannot fault.  `first`: it pushes its one value
 * (pops nothing); else it takes the top and pushes its result. */
static bool float_pure(const fal3_insn *in, bool first)
{
    if (first)
        return in->op == F3_ADDF_LL || in->op == F3_SUBF_LL || in->op == F3_MULF_LL || in->op == F3_MULF_LK ||
               in->op == F3_PUSH_FLOAT || (in->op == F3_FOP_LK && in->c != F3_DIV_F);
    return in->op == F3_ADDF_L || in->op == F3_SUBF_L || in->op == F3_MULF_L || in->op == F3_MULF_K ||
           in->op == F3_FMA_LK;
}

/* `l + x`, `l * x` on floats whose right operand x is a float local read
 * before l's one or two pure instructions (float_pure): l's code moves
 * down into the read's place and the local is added or multiplied to it
 * in its slot (IEEE addition and multiplication commute, and l writes no
 * local, so x reads the same after it).  `2.0 * zr * zi + ci` becomes
 * FOpLK, MulFL, AddFL; a LoadLL that pushed x last leaves its first load. */
static bool float_local_last(c3 *c, fal3_op o)
{
    gsvm_lsl3_program *p = c->p;
    size_t n = p->ncode;
    if ((o != F3_ADD_F && o != F3_MUL_F) || n < 2)
        return false;
    size_t len = n >= 3 && float_pure(&p->code[n - 2], true) && float_pure(&p->code[n - 1], false) ? 2
                 : float_pure(&p->code[n - 1], true)                                                ? 1
                                                                                                    : 0;
    if (len == 0 || n < len + 1 || n - len - 1 < c->barrier)
        return false;
    size_t at = n - len - 1; /* the read of x */
    fal3_insn *r = &p->code[at];
    int32_t slot = r->op == F3_LOAD_LOCAL ? r->a : r->op == F3_LOAD_LL ? r->b : -1;
    if (slot < 0 || c->slot_types[slot] != LSL_TYPE_FLOAT)
        return false;
    if (r->op == F3_LOAD_LL) { /* its first load stays */
        r->op = F3_LOAD_LOCAL;
        r->b = 0;
    } else {
        memmove(r, r + 1, len * sizeof *r);
        p->ncode -= 1;
        /* the moved instructions' source positions move with them; the
         * first one's, now at `at`, replaces the read's own */
        size_t k = p->nlines;
        for (; k > 0 && p->lines[k - 1].ip > at; k--)
            p->lines[k - 1].ip--;
        if (k > 0 && k < p->nlines && p->lines[k].ip == p->lines[k - 1].ip) {
            memmove(&p->lines[k - 1], &p->lines[k], (p->nlines - k) * sizeof *p->lines);
            p->nlines--;
        }
    }
    c->sd -= 1;
    return c3_op(c, o == F3_ADD_F ? F3_ADDF_L : F3_MULF_L, slot, 0, 0) >= 0;
}

/* Peephole: fuses a typed operator with the loads just emitted for it
 * (never across `barrier`, where a jump may land).  True when it emitted. */
static bool fuse_binop(c3 *c, fal3_op o)
{
    gsvm_lsl3_program *p = c->p;
    size_t n = p->ncode;
    if (n < c->barrier + 1 || n == 0)
        return false;
    fal3_insn *l = &p->code[n - 1];
    fal3_insn *r = n >= c->barrier + 2 && n >= 2 ? &p->code[n - 2] : NULL;
    if (r && r->op == F3_LOAD_LL && l->op == F3_LOAD_LOCAL) {
        /* `f(b, a % b)`: the loads x, y, z as LoadLL x y, LoadLocal z
         * regroup as LoadLocal x, LoadLL y z (the same pushes), so that the
         * operator's two operands are one LoadLL */
        int32_t x = r->a, y = r->b, z = l->a;
        *r = (fal3_insn){F3_LOAD_LOCAL, x, 0, 0};
        *l = (fal3_insn){F3_LOAD_LL, y, z, 0};
    }
    if ((o == F3_ADD_I || o == F3_SUB_I) && r && r->op == F3_PUSH_INT && l->op == F3_LOAD_LOCAL) {
        int32_t slot = l->a, k = r->a;
        p->ncode -= 2;
        c->sd -= 2;
        return c3_op(c, o == F3_ADD_I ? F3_ADD_LI : F3_SUB_LI, slot, k, 0) >= 0;
    }
    if (o >= F3_MUL_I && o <= F3_GE_I && o != F3_LAND_I && o != F3_LOR_I && r && r->op == F3_PUSH_INT &&
        l->op == F3_LOAD_LOCAL) {
        int32_t slot = l->a, k = r->a;
        p->ncode -= 2;
        c->sd -= 2;
        return c3_op(c, F3_IOP_LK, slot, k, o) >= 0;
    }
    if (o >= F3_ADD_I && o <= F3_GE_I && o != F3_LAND_I && o != F3_LOR_I && r && r->op == F3_LOAD_GLOBAL &&
        l->op == F3_LOAD_LOCAL) {
        int32_t slot = l->a, g = r->a;
        p->ncode -= 2;
        c->sd -= 2;
        return c3_op(c, F3_IOP_LG, slot, g, o) >= 0;
    }
    if (o >= F3_SUB_I && o <= F3_GE_I && o != F3_LAND_I && o != F3_LOR_I && l->op == F3_LOAD_LL) {
        /* both operands locals: `d * d`, `n % d` (LoadLL pushes r, then l) */
        int32_t a = l->b, b = l->a;
        p->ncode -= 1;
        c->sd -= 2;
        return c3_op(c, F3_IOP_LL, a, b, o) >= 0;
    }
    if ((o == F3_ADD_I || o == F3_MUL_I || (o >= F3_BAND_I && o <= F3_BXOR_I) || o == F3_EQ_I || o == F3_NE_I) && r &&
        r->op == F3_LOAD_LOCAL && l->op == F3_PUSH_INT) {
        /* `3 * n`: an operator whose operands commute takes the constant on
         * the right, as `n * 3` */
        int32_t slot = r->a, k = l->a;
        p->ncode -= 2;
        c->sd -= 2;
        return c3_op(c, o == F3_ADD_I ? F3_ADD_LI : F3_IOP_LK, slot, k, o == F3_ADD_I ? 0 : o) >= 0;
    }
    if (o >= F3_ADD_I && o <= F3_GE_I && o != F3_LAND_I && o != F3_LOR_I && l->op == F3_PUSH_INT) {
        /* a constant on the left: `1 << x` */
        int32_t k = l->a;
        p->ncode -= 1;
        c->sd -= 1;
        return c3_op(c, F3_IOP_KR, k, o, 0) >= 0;
    }
    if ((o == F3_ADD_F || o == F3_SUB_F || o == F3_MUL_F) && l->op == F3_I2F_UNDER) {
        /* `x * 0.5 + i`: the integer operand converted by the operator */
        p->ncode -= 1;
        return c3_op(c, F3_FOP_IU, o, 0, 0) >= 0;
    }
    if ((o == F3_ADD_F || o == F3_SUB_F) && l->op == F3_FOP_LK && l->c == F3_MUL_F) {
        /* `a * 3.0 + r`: the product (a double, exact) and the sum in one */
        int32_t slot = l->a, k = l->b;
        p->ncode -= 1;
        c->sd -= 1;
        return c3_op(c, F3_FMA_LK, slot, k, o) >= 0;
    }
    if (o >= F3_ADD_F && o <= F3_DIV_F && r && l->op == F3_LOAD_LOCAL && r->op == F3_PUSH_FLOAT &&
        c->slot_types[l->a] == LSL_TYPE_FLOAT) {
        /* `x OP constant` on a float local: one register-form instruction */
        int32_t slot = l->a, k = r->a;
        p->ncode -= 2;
        c->sd -= 2;
        return c3_op(c, F3_FOP_LK, slot, k, o) >= 0;
    }
    if ((o == F3_ADD_F || o == F3_MUL_F) && r && l->op == F3_PUSH_FLOAT && r->op == F3_LOAD_LOCAL &&
        c->slot_types[r->a] == LSL_TYPE_FLOAT) {
        /* `constant + x`, `constant * x`: the same sum and product (IEEE
         * addition and multiplication commute) */
        int32_t slot = r->a, k = l->a;
        p->ncode -= 2;
        c->sd -= 2;
        return c3_op(c, F3_FOP_LK, slot, k, o) >= 0;
    }
    bool l_safe = l->op == F3_LOAD_GLOBAL || l->op == F3_ADD_LI || l->op == F3_SUB_LI || l->op == F3_ADDI_LL ||
                  (l->op == F3_IOP_LK && ((l->c != F3_DIV_I && l->c != F3_MOD_I) || l->b != 0));
    if (o == F3_ADD_I && r && r->op == F3_LOAD_LOCAL && l_safe) {
        /* `h * 31 + i`: the left's one instruction first, then the local
         * added to it in its slot (integer addition commutes, and the
         * left's instruction writes no local, so the local reads the same
         * after it; nor can it fault, whose position would move to the
         * local's) */
        int32_t slot = r->a;
        *r = *l;
        p->ncode -= 1;
        c->sd -= 1;
        return c3_op(c, F3_ADDI_L, slot, 0, 0) >= 0;
    }
    if (float_local_last(c, o))
        return true;
    if (o == F3_ADD_F || o == F3_SUB_F || o == F3_MUL_F || o == F3_ADD_I) {
        static const fal3_op ll[] = {[F3_ADD_F] = F3_ADDF_LL, [F3_SUB_F] = F3_SUBF_LL, [F3_MUL_F] = F3_MULF_LL,
                                     [F3_ADD_I] = F3_ADDI_LL};
        static const fal3_op l1[] = {[F3_ADD_F] = F3_ADDF_L, [F3_SUB_F] = F3_SUBF_L, [F3_MUL_F] = F3_MULF_L,
                                     [F3_ADD_I] = F3_ADDI_L};
        if (l->op == F3_LOAD_LL) {
            int32_t a = l->b, b = l->a; /* LoadLL pushes r (a) then l (b) */
            p->ncode -= 1;
            c->sd -= 2;
            return c3_op(c, ll[o], a, b, 0) >= 0;
        }
        if (l->op == F3_LOAD_LOCAL) {
            int32_t a = l->a;
            p->ncode -= 1;
            c->sd -= 1;
            return c3_op(c, l1[o], a, 0, 0) >= 0;
        }
    }
    if (o >= F3_EQ_F && o <= F3_GE_F && r && r->op == F3_PUSH_FLOAT && fal3_ops[l->op].pops == 0 &&
        fal3_ops[l->op].pushes == 1) {
        /* `x OP constant`: the constant becomes an operand; x's one
         * stack-neutral instruction moves down into its place */
        int32_t k = r->a;
        *r = *l;
        p->ncode -= 1;
        c->sd -= 1;
        return c3_op(c, F3_CMPF_K, k, o, 0) >= 0;
    }
    if (o == F3_MUL_F && l->op == F3_PUSH_FLOAT && r && r->op == F3_LOAD_LOCAL) {
        int32_t k = l->a, slot = r->a;
        p->ncode -= 2;
        c->sd -= 2;
        return c3_op(c, F3_MULF_LK, slot, k, 0) >= 0;
    }
    if (o == F3_MUL_F && l->op == F3_PUSH_FLOAT) {
        int32_t k = l->a;
        p->ncode -= 1;
        c->sd -= 1;
        return c3_op(c, F3_MULF_K, k, 0, 0) >= 0;
    }
    if (o == F3_MUL_F && r && r->op == F3_PUSH_FLOAT && fal3_ops[l->op].pops == 0 && fal3_ops[l->op].pushes == 1) {
        /* `i * 0.5`: the constant becomes MulFK's operand (IEEE products
         * commute); i's one stack-neutral instruction moves down */
        int32_t k = r->a;
        *r = *l;
        p->ncode -= 1;
        c->sd -= 1;
        return c3_op(c, F3_MULF_K, k, 0, 0) >= 0;
    }
    return false;
}

/* `l OP k` for a computed integer l (not a variable or literal: those have
 * their own fused forms) and an integer literal k, an arithmetic or bit
 * operator (k != 0 for / and %, whose Math Error stays the generic one's). */
/* An integer literal, or one negated (`x / -3`): its value, wrapped as
 * NegI wraps it. */
static bool int_literal(const lsl_expr *e, int32_t *v)
{
    if (e->kind == E_INT) {
        *v = e->ival;
        return true;
    }
    if (e->kind == E_UNARY && e->op == T_MINUS && e->lhs->kind == E_INT) {
        *v = (int32_t)(0u - (uint32_t)e->lhs->ival);
        return true;
    }
    return false;
}

static bool const_right(c3 *c, const lsl_expr *e, lsl_op o)
{
    int32_t k;
    if (!int_literal(e->rhs, &k))
        return false;
    bool arith = o == LSL_OP_ADD || o == LSL_OP_SUB || o == LSL_OP_MUL || o == LSL_OP_BITAND ||
                 o == LSL_OP_BITOR || o == LSL_OP_BITXOR || o == LSL_OP_SHL || o == LSL_OP_SHR ||
                 ((o == LSL_OP_DIV || o == LSL_OP_MOD) && k != 0);
    return !c->failed && arith && e->lhs->kind != E_IDENT && e->lhs->kind != E_INT && c3_int_expr(c, e->lhs);
}

/* The last n instructions (none before the barrier) push float constants. */
static bool const_components(c3 *c, size_t n)
{
    size_t end = c->p->ncode;
    if (c->failed || end < c->barrier + n)
        return false;
    for (size_t i = end - n; i < end; i++)
        if (c->p->code[i].op != F3_PUSH_FLOAT)
            return false;
    return true;
}

/* With r pushed first and l on top: emits `l OP r` and returns its type. */
static lsl_type apply_binop(c3 *c, lsl_op o, lsl_type lt, lsl_type rt, long line, long col, const char *text)
{
    lsl_type res = lsl_op_result_type(o, lt, rt);
    if (res == LSL_TYPE_VOID) {
        c3_fail(c, line, col, "Type mismatch: operator %s cannot take %s and %s", text, lsl_type_name(lt),
             lsl_type_name(rt));
        return T_ERR;
    }
    static const fal3_op iops[] = {
        [LSL_OP_ADD] = F3_ADD_I, [LSL_OP_SUB] = F3_SUB_I, [LSL_OP_MUL] = F3_MUL_I,
        [LSL_OP_DIV] = F3_DIV_I, [LSL_OP_MOD] = F3_MOD_I, [LSL_OP_EQ] = F3_EQ_I,
        [LSL_OP_NE] = F3_NE_I, [LSL_OP_LT] = F3_LT_I, [LSL_OP_LE] = F3_LE_I,
        [LSL_OP_GT] = F3_GT_I, [LSL_OP_GE] = F3_GE_I, [LSL_OP_BITAND] = F3_BAND_I,
        [LSL_OP_BITOR] = F3_BOR_I, [LSL_OP_BITXOR] = F3_BXOR_I, [LSL_OP_SHL] = F3_SHL_I,
        [LSL_OP_SHR] = F3_SHR_I, [LSL_OP_AND] = F3_LAND_I, [LSL_OP_OR] = F3_LOR_I};
    static const fal3_op fops[] = {
        [LSL_OP_ADD] = F3_ADD_F, [LSL_OP_SUB] = F3_SUB_F, [LSL_OP_MUL] = F3_MUL_F,
        [LSL_OP_DIV] = F3_DIV_F, [LSL_OP_MOD] = F3_COUNT, [LSL_OP_EQ] = F3_EQ_F,
        [LSL_OP_NE] = F3_NE_F, [LSL_OP_LT] = F3_LT_F, [LSL_OP_LE] = F3_LE_F,
        [LSL_OP_GT] = F3_GT_F, [LSL_OP_GE] = F3_GE_F, [LSL_OP_BITAND] = F3_COUNT,
        [LSL_OP_BITOR] = F3_COUNT, [LSL_OP_BITXOR] = F3_COUNT, [LSL_OP_SHL] = F3_COUNT,
        [LSL_OP_SHR] = F3_COUNT, [LSL_OP_AND] = F3_COUNT, [LSL_OP_OR] = F3_COUNT};
    if (lt == LSL_TYPE_INTEGER && rt == LSL_TYPE_INTEGER) {
        if (!c->failed && fuse_binop(c, iops[o]))
            return res;
        return c3_op(c, iops[o], 0, 0, 0) >= 0 ? res : T_ERR;
    }
    bool num_l = lt == LSL_TYPE_INTEGER || lt == LSL_TYPE_FLOAT;
    bool num_r = rt == LSL_TYPE_INTEGER || rt == LSL_TYPE_FLOAT;
    if (num_l && num_r && fops[o] != F3_COUNT) {
        if (lt == LSL_TYPE_INTEGER && c3_op(c, F3_I2F, 0, 0, 0) < 0)
            return T_ERR;
        size_t n = c->p->ncode;
        if (rt == LSL_TYPE_INTEGER && lt == LSL_TYPE_FLOAT && !c->failed && n > c->barrier &&
            c->p->code[n - 1].op == F3_PUSH_FLOAT) {
            /* `8192.0 * integer`: the integer converted before the constant
             * is pushed, so that the constant can fuse with the operator */
            int32_t k = c->p->code[n - 1].a;
            c->p->code[n - 1] = (fal3_insn){F3_I2F, 0, 0, 0};
            if (n >= c->barrier + 2 && c->p->code[n - 2].op == F3_F2I) { /* `k * (integer)(x / k)` */
                c->p->code[n - 2].op = F3_TRUNC_F;
                c->p->ncode -= 1;
                c->sd -= 1;
            }
            if (c3_op(c, F3_PUSH_FLOAT, k, 0, 0) < 0)
                return T_ERR;
        } else if (rt == LSL_TYPE_INTEGER && c3_op(c, F3_I2F_UNDER, 0, 0, 0) < 0)
            return T_ERR;
        if (!c->failed && fuse_binop(c, fops[o]))
            return res;
        return c3_op(c, fops[o], 0, 0, 0) >= 0 ? res : T_ERR;
    }
    if (o == LSL_OP_ADD && lt == LSL_TYPE_STRING && rt == LSL_TYPE_STRING)
        return c3_op(c, F3_CONCAT_S, 0, 0, 0) >= 0 ? res : T_ERR;
    if (o == LSL_OP_ADD && res == LSL_TYPE_STRING) {
        /* Second Life adds only a string to a string: a key must be cast */
        c3_fail(c, line, col, "Type mismatch: operator %s cannot take %s and %s", text, lsl_type_name(lt),
             lsl_type_name(rt));
        return T_ERR;
    }
    if (lt == LSL_TYPE_VECTOR && rt == LSL_TYPE_VECTOR && (o == LSL_OP_ADD || o == LSL_OP_SUB || o == LSL_OP_MUL))
        return c3_op(c, o == LSL_OP_ADD ? F3_ADD_V : o == LSL_OP_SUB ? F3_SUB_V : F3_DOT_V, 0, 0, 0) >= 0 ? res : T_ERR;
    if (lt == LSL_TYPE_VECTOR && num_r && (o == LSL_OP_MUL || o == LSL_OP_DIV)) {
        if (rt == LSL_TYPE_INTEGER && c3_op(c, F3_I2F_UNDER, 0, 0, 0) < 0)
            return T_ERR;
        size_t n = c->p->ncode;
        fal3_insn *r = n >= 2 && !c->failed ? &c->p->code[n - 2] : NULL, *l = r ? r + 1 : NULL;
        if (o == LSL_OP_MUL && r && n >= c->barrier + 2 && r->op == F3_PUSH_FLOAT &&
            fal3_ops[l->op].pops == 0 && fal3_ops[l->op].pushes == 1) {
            /* `v * 2.0`: the constant becomes an operand; v's one
             * stack-neutral instruction moves down into its place */
            int32_t k = r->a;
            *r = *l;
            c->p->ncode -= 1;
            c->sd -= 1;
            return c3_op(c, F3_MUL_VK, k, 0, 0) >= 0 ? res : T_ERR;
        }
        return c3_op(c, o == LSL_OP_MUL ? F3_MUL_VF : F3_DIV_VF, 0, 0, 0) >= 0 ? res : T_ERR;
    }
    if (num_l && rt == LSL_TYPE_VECTOR && o == LSL_OP_MUL) {
        if (lt == LSL_TYPE_INTEGER && c3_op(c, F3_I2F, 0, 0, 0) < 0)
            return T_ERR;
        return c3_op(c, F3_MUL_FV, 0, 0, 0) >= 0 ? res : T_ERR;
    }
    return c3_op(c, F3_BINOP, o, 0, 0) >= 0 ? res : T_ERR;
}

/* Second Life's table of compound assignments (variable OP= value); it
 * differs from the operators': no `integer += float`, no `key += ...`. */
static bool sl_compound_ok(lsl_tok op, lsl_type v, lsl_type r)
{
    bool num_r = r == LSL_TYPE_INTEGER || r == LSL_TYPE_FLOAT;
    switch (op) {
    case T_PLUS_ASSIGN:
        if (v == LSL_TYPE_LIST)
            return r != LSL_TYPE_VOID;
        if (v == LSL_TYPE_STRING)
            return r == LSL_TYPE_STRING;
        /* fall through */
    case T_MINUS_ASSIGN:
        return (v == LSL_TYPE_INTEGER && r == LSL_TYPE_INTEGER) || (v == LSL_TYPE_FLOAT && num_r) ||
               (v == r && (v == LSL_TYPE_VECTOR || v == LSL_TYPE_ROTATION));
    case T_STAR_ASSIGN:
    case T_SLASH_ASSIGN:
        if (v == LSL_TYPE_INTEGER)
            return r == LSL_TYPE_INTEGER || (op == T_STAR_ASSIGN && r == LSL_TYPE_FLOAT);
        return (v == LSL_TYPE_FLOAT && num_r) || (v == LSL_TYPE_VECTOR && (num_r || r == LSL_TYPE_ROTATION)) ||
               (v == LSL_TYPE_ROTATION && r == LSL_TYPE_ROTATION);
    case T_PERCENT_ASSIGN:
        return (v == LSL_TYPE_INTEGER && r == LSL_TYPE_INTEGER) || (v == LSL_TYPE_VECTOR && r == LSL_TYPE_VECTOR);
    default:
        return true;
    }
}

/* An assignment's variable: v, the component (or -1) and the type assigned. */
static bool cassign_target(c3 *c, const lsl_expr *e, var3 *v, int *member, lsl_type *vt)
{
    if (!lvalue(c, e->lhs, v, member))
        return false;
    *vt = *member >= 0 ? LSL_TYPE_FLOAT : v->type;
    return true;
}

static lsl_type cassign_store(c3 *c, const lsl_expr *e, bool want, var3 v, int member, lsl_type vt, lsl_type rt);

/* An assignment; `want` leaves its value.  The in-place forms need !want:
 * an assignment used as a value is compiled by c3_cexpr (cassign_target, the
 * right side, cassign_store). */
static lsl_type cassign(c3 *c, const lsl_expr *e, bool want)
{
    var3 v;
    int member;
    lsl_type vt;
    if (!cassign_target(c, e, &v, &member, &vt))
        return T_ERR;
    /* x = llListReplaceList(x, [v], i, i) on a list local: in place */
    const lsl_expr *r = e->rhs;
    if (e->op == T_ASSIGN && !want && member < 0 && !v.global && vt == LSL_TYPE_LIST && r->kind == E_CALL &&
        strcmp(r->name, "llListReplaceList") == 0 && r->nitems == 4 && r->items[0]->kind == E_IDENT &&
        strcmp(r->items[0]->name, e->lhs->name) == 0 && r->items[1]->kind == E_LIST && r->items[1]->nitems == 1 &&
        r->items[2]->kind == E_IDENT && r->items[3]->kind == E_IDENT &&
        strcmp(r->items[2]->name, r->items[3]->name) == 0) {
        long fi;
        var3 iv;
        if (!lsl_names_get(&c->fnames, r->name, &fi) && c3_find_var(c, r->items[2]->name, &iv) &&
            iv.type == LSL_TYPE_INTEGER) {
            lsl_type it = c3_cexpr(c, r->items[1]->items[0]);
            if (it == T_ERR)
                return T_ERR;
            if (it == LSL_TYPE_LIST || it == LSL_TYPE_VOID) {
                c3_fail(c, r->items[1]->line, r->items[1]->col, "%s", c3_list_item_error(it));
                return T_ERR;
            }
            if (!load_var(c, &iv) || c3_op(c, F3_LIST_SET_LOCAL, v.slot, 0, 0) < 0)
                return T_ERR;
            return LSL_TYPE_VOID;
        }
    }
    if (e->op == T_PLUS_ASSIGN && !want && member < 0 && vt == LSL_TYPE_LIST && r->kind == E_LIST &&
        r->nitems == 1) {
        lsl_type it = c3_cexpr(c, r->items[0]); /* l += [x] appends x itself */
        if (it == T_ERR)
            return T_ERR;
        if (it == LSL_TYPE_LIST || it == LSL_TYPE_VOID) {
            c3_fail(c, r->items[0]->line, r->items[0]->col, "%s", c3_list_item_error(it));
            return T_ERR;
        }
        return c3_op(c, v.global ? F3_APPEND_GLOBAL : F3_APPEND_LOCAL, v.slot, 0, 0) >= 0 ? LSL_TYPE_VOID : T_ERR;
    }
    return cassign_store(c, e, want, v, member, vt, c3_cexpr(c, e->rhs));
}

/* The rest of an assignment, its right side (of type rt) compiled. */
static lsl_type cassign_store(c3 *c, const lsl_expr *e, bool want, var3 v, int member, lsl_type vt, lsl_type rt)
{
    if (rt == T_ERR)
        return T_ERR;
    /* s += string, l += anything: in place when the variable holds the only reference */
    if (e->op == T_PLUS_ASSIGN && !want && member < 0 &&
        ((vt == LSL_TYPE_STRING && rt == LSL_TYPE_STRING) || (vt == LSL_TYPE_LIST && rt != LSL_TYPE_VOID)))
        return c3_op(c, v.global ? F3_APPEND_GLOBAL : F3_APPEND_LOCAL, v.slot, 0, 0) >= 0 ? LSL_TYPE_VOID : T_ERR;
    if (e->op == T_ASSIGN) {
        if (!c3_coerce(c, rt, vt, e->line, e->col, "assignment"))
            return T_ERR;
    } else {
        if (!sl_compound_ok(e->op, vt, rt)) {
            c3_fail(c, e->line, e->col, "Type mismatch: %s cannot take %s and %s", lsl_tok_name(e->op),
                 lsl_type_name(vt), lsl_type_name(rt));
            return T_ERR;
        }
        lsl_op o;
        tok_to_op(e->op, &o);
        if (member >= 0) {
            if (!load_var(c, &v) || c3_op(c, F3_GET_MEMBER, member, 0, 0) < 0)
                return T_ERR;
        } else if (!load_var(c, &v))
            return T_ERR;
        lsl_type res = apply_binop(c, o, vt, rt, e->line, e->col, lsl_tok_name(e->op));
        if (res == T_ERR)
            return T_ERR;
        if (res == LSL_TYPE_FLOAT && vt == LSL_TYPE_INTEGER) {
            /* integer *= float: Second Life stores the truncation; the
             * assignment's value (a float where an integer is declared) is
             * code Mono's JIT refuses, a run-time error of the function */
            if (want)
                c->invalid_il = true;
            if (c3_op(c, F3_F2I, 0, 0, 0) < 0)
                return T_ERR;
        } else if (!c3_coerce(c, res, vt, e->line, e->col, "assignment"))
            return T_ERR;
    }
    if (member >= 0 && !want && !v.global) /* `v.x = f;` on a local: the component stored in its slot */
        return c3_op(c, F3_STORE_MEMBER_L, v.slot, member, 0) >= 0 ? LSL_TYPE_VOID : T_ERR;
    if (member >= 0) {
        if (want && c3_op(c, F3_DUP, 0, 0, 0) < 0)
            return T_ERR;
        if (!load_var(c, &v) || c3_op(c, F3_SET_MEMBER, member, 0, 0) < 0 || !store_var(c, &v, false))
            return T_ERR;
        return want ? vt : LSL_TYPE_VOID;
    }
    if (!store_var(c, &v, want))
        return T_ERR;
    return want ? vt : LSL_TYPE_VOID;
}

static lsl_type cincdec(c3 *c, const lsl_expr *e, bool want)
{
    var3 v;
    int member;
    if (!lvalue(c, e->lhs, &v, &member))
        return T_ERR;
    bool inc = e->kind == E_PREINC || e->kind == E_POSTINC;
    bool post = e->kind == E_POSTINC || e->kind == E_POSTDEC;
    lsl_type vt = member >= 0 ? LSL_TYPE_FLOAT : v.type;
    if (vt != LSL_TYPE_INTEGER && vt != LSL_TYPE_FLOAT) {
        c3_fail(c, e->line, e->col, "Type mismatch: ++/-- needs an integer or float");
        return T_ERR;
    }
    if (vt == LSL_TYPE_INTEGER) {
        if (want && post && !load_var(c, &v))
            return T_ERR;
        if (c3_op(c, v.global ? F3_INC_GLOBAL_I : F3_INC_LOCAL_I, v.slot, inc ? 1 : -1, 0) < 0)
            return T_ERR;
        if (want && !post && !load_var(c, &v))
            return T_ERR;
        return want ? vt : LSL_TYPE_VOID;
    }
    /* float (or a member): old value, then +-1.0 */
    if (want && post) {
        if (!load_var(c, &v) || (member >= 0 && c3_op(c, F3_GET_MEMBER, member, 0, 0) < 0))
            return T_ERR;
    }
    float one = inc ? 1.0f : -1.0f;
    int32_t bits;
    memcpy(&bits, &one, 4);
    if (c3_op(c, F3_PUSH_FLOAT, bits, 0, 0) < 0 || !load_var(c, &v) ||
        (member >= 0 && c3_op(c, F3_GET_MEMBER, member, 0, 0) < 0) || c3_op(c, F3_ADD_F, 0, 0, 0) < 0)
        return T_ERR;
    bool keep = want && !post;
    if (member >= 0 && !keep && !v.global) {
        if (c3_op(c, F3_STORE_MEMBER_L, v.slot, member, 0) < 0)
            return T_ERR;
    } else if (member >= 0) {
        if (keep && c3_op(c, F3_DUP, 0, 0, 0) < 0)
            return T_ERR;
        if (!load_var(c, &v) || c3_op(c, F3_SET_MEMBER, member, 0, 0) < 0 || !store_var(c, &v, false))
            return T_ERR;
    } else if (!store_var(c, &v, keep))
        return T_ERR;
    return want ? vt : LSL_TYPE_VOID;
}

/* The leaves of an expression: literals, names, components, ++ / --. */
static lsl_type cleaf(c3 *c, const lsl_expr *e)
{
    switch (e->kind) {
    case E_INT:
        return c3_op(c, F3_PUSH_INT, e->ival, 0, 0) >= 0 ? LSL_TYPE_INTEGER : T_ERR;
    case E_FLOAT:
        return c3_push_value(c, lsl_float((float)e->fval)) ? LSL_TYPE_FLOAT : T_ERR;
    case E_STRING: {
        lsl_value v;
        gsvm_error ee;
        if (lsl_string_new(NULL, LSL_TYPE_STRING, e->sval, e->slen, &v, &ee) != GSVM_OK) {
            c3_fail(c, e->line, e->col, "%s", ee.message);
            return T_ERR;
        }
        return c3_push_value(c, v) ? LSL_TYPE_STRING : T_ERR;
    }
    case E_IDENT: {
        var3 v;
        if (c3_find_var(c, e->name, &v))
            return load_var(c, &v) ? v.type : T_ERR;
        lsl_value k;
        if (c3_lookup_constant(e->name, &k)) {
            lsl_type t = k.type;
            return c3_push_value(c, k) ? t : T_ERR;
        }
        c3_fail(c, e->line, e->col, "Name not defined within scope: '%s' is not declared", e->name);
        return T_ERR;
    }
    case E_MEMBER: {
        var3 v;
        int member;
        if (!lvalue(c, e, &v, &member))
            return T_ERR;
        if (!load_var(c, &v) || c3_op(c, F3_GET_MEMBER, member, 0, 0) < 0)
            return T_ERR;
        return LSL_TYPE_FLOAT;
    }
    case E_PREINC: case E_PREDEC: case E_POSTINC: case E_POSTDEC:
        return cincdec(c, e, true);
    default:
        c3_fail(c, e->line, e->col, "unknown expression");
        return T_ERR;
    }
}

/* An expression being compiled by cexpr: `stage` counts its visits, `i`
 * the items started; the rest is what its later stages need. */
typedef struct eframe3 {
    const lsl_expr *e;
    int stage;
    size_t i;
    long line, col; /* the code position to restore when it is done */
    lsl_type t;     /* E_BINARY: the right operand's type */
    var3 v;         /* E_ASSIGN: the variable, its component and type */
    int member;
    lsl_type vt;
    const lsl_func *fn;    /* E_CALL: a user function */
    const lsl_builtin *b;  /* or a library function */
    int lslot;             /* E_CALL: llList2Integer/Float of this list local, else -1 */
} eframe3;

/* Starts compiling e, with its position as the code's: an operator's own
 * instructions, emitted after its operands', are of the operator. */
static bool push_expr(c3 *c, const lsl_expr *e)
{
    if (!c3_reserve(c, (void **)&c->ef, &c->capef, c->nef, sizeof *c->ef))
        return false;
    c->ef[c->nef++] = (eframe3){.e = e, .line = c->line, .col = c->col, .lslot = -1};
    if (e->line > 0) {
        c->line = e->line;
        c->col = e->col;
    }
    return true;
}

/* Compiles e, leaving its value (if any) on the stack; returns its type or
 * T_ERR.  Without recursion: each operator, call, list or vector whose
 * operands are being compiled is a frame on c->ef; `r` is the type of the
 * operand finished last.  Operands go right to left as Second Life
 * evaluates them (a binary operator's right one first). */
lsl_type c3_cexpr(c3 *c, const lsl_expr *root)
{
    size_t base = c->nef;
    long line0 = c->line, col0 = c->col;
    lsl_type r = T_ERR;
    if (!push_expr(c, root))
        return T_ERR;
    while (c->nef > base) {
        eframe3 *f = &c->ef[c->nef - 1];
        const lsl_expr *e = f->e;
        const lsl_expr *child = NULL;
        lsl_type res = T_ERR;
        if (f->stage == 0 && c->failed)
            goto done;
        switch (e->kind) {
        case E_VECTOR:
        case E_ROTATION:
            if (f->i > 0 && !c3_coerce(c, r, LSL_TYPE_FLOAT, e->items[f->i - 1]->line, e->items[f->i - 1]->col,
                                    "component"))
                break;
            if (f->i < e->nitems) {
                child = e->items[f->i++];
                break;
            }
            if (const_components(c, e->nitems)) {
                /* every component a constant: the vector or rotation is one */
                const fal3_insn *k = &c->p->code[c->p->ncode - e->nitems];
                float x[4] = {0};
                for (size_t i = 0; i < e->nitems; i++)
                    memcpy(&x[i], &k[i].a, 4);
                c->p->ncode -= e->nitems;
                c->sd -= (long)e->nitems;
                lsl_value v = e->kind == E_VECTOR ? lsl_vector(x[0], x[1], x[2]) : lsl_rotation(x[0], x[1], x[2], x[3]);
                res = c3_push_value(c, v) ? (lsl_type)v.type : T_ERR;
            } else if (e->kind == E_VECTOR)
                res = c3_op(c, F3_MKVEC, 0, 0, 0) >= 0 ? LSL_TYPE_VECTOR : T_ERR;
            else
                res = c3_op(c, F3_MKROT, 0, 0, 0) >= 0 ? LSL_TYPE_ROTATION : T_ERR;
            break;
        case E_LIST:
            if (f->i > 0 && (r == LSL_TYPE_LIST || r == LSL_TYPE_VOID)) {
                c3_fail(c, e->items[f->i - 1]->line, e->items[f->i - 1]->col, "%s",
                     c3_list_item_error(r));
                break;
            }
            if (f->i < e->nitems) {
                child = e->items[f->i++];
                break;
            }
            res = c3_emit(c, F3_MKLIST, (int32_t)e->nitems, 0, 0, (int)e->nitems, 1) >= 0 ? LSL_TYPE_LIST : T_ERR;
            break;
        case E_CALL:
            if (f->stage == 0) {
                long fi;
                if (lsl_names_get(&c->fnames, e->name, &fi)) {
                    f->fn = &c->sc->funcs[fi];
                    if (e->nitems != f->fn->nparams) {
                        c3_fail(c, e->line, e->col, "Function call mismatches type or number of arguments: %s takes %zu arguments, not %zu", f->fn->name, f->fn->nparams,
                             e->nitems);
                        break;
                    }
                } else {
                    const lsl_builtin *b = lsl_builtin_by_name(e->name, strlen(e->name));
                    if (!b) {
                        c3_fail(c, e->line, e->col, "Name not defined within scope: no function named '%s'", e->name);
                        break;
                    }
                    if (e->nitems != b->nargs) {
                        c3_fail(c, e->line, e->col, "Function call mismatches type or number of arguments: %s takes %u arguments, not %zu", b->name, b->nargs, e->nitems);
                        break;
                    }
                    f->b = b;
                    var3 lv;
                    if ((b->id == LSL_ID_llList2Integer || b->id == LSL_ID_llList2Float) &&
                        e->items[0]->kind == E_IDENT && c3_find_var(c, e->items[0]->name, &lv) && !lv.global &&
                        lv.type == LSL_TYPE_LIST && pure_expr(e->items[1])) {
                        /* an element of a list local: the list stays in its slot
                         * (the index cannot change it, so reading it after the
                         * index is the same) */
                        f->lslot = lv.slot;
                        f->stage = 1;
                        child = e->items[1];
                        break;
                    }
                }
                f->stage = 1;
            }
            if (f->lslot >= 0) {
                const lsl_builtin *b = f->b;
                if (c3_coerce_arg(c, r, lsl_builtin_arg_type(b, 1), e->items[1], 1, b->name))
                    res = c3_op(c, F3_LIST_GET_L, f->lslot, b->id, 0) >= 0 ? b->ret : T_ERR;
                break;
            }
            if (f->i > 0) {
                size_t k = f->i - 1;
                lsl_type want = f->fn ? f->fn->params[k].type : lsl_builtin_arg_type(f->b, (unsigned)k);
                if (!c3_coerce_arg(c, r, want, e->items[k], k, f->fn ? f->fn->name : f->b->name))
                    break;
            }
            if (f->i < e->nitems) {
                child = e->items[f->i++];
                break;
            }
            if (f->fn) {
                if (c3_emit(c, F3_CALL, (int32_t)(f->fn - c->sc->funcs), 0, 0, (int)f->fn->nparams,
                         f->fn->ret != LSL_TYPE_VOID) >= 0)
                    res = f->fn->ret;
            } else if (c3_emit(c, F3_CALLB, f->b->id, f->b->nargs, 0, f->b->nargs, f->b->ret != LSL_TYPE_VOID) >= 0) {
                res = f->b->ret;
            }
            break;
        case E_UNARY: {
            if (f->stage++ == 0) {
                child = e->lhs;
                break;
            }
            lsl_unop u = e->op == T_MINUS ? LSL_UOP_NEG : e->op == T_NOT ? LSL_UOP_NOT : LSL_UOP_BITNOT;
            lsl_type rt = lsl_unop_result_type(u, r);
            if (rt == LSL_TYPE_VOID) {
                c3_fail(c, e->line, e->col, "Type mismatch: operator %s cannot take %s", lsl_tok_name(e->op), lsl_type_name(r));
                break;
            }
            fal3_op o = F3_UNOP;
            if (r == LSL_TYPE_INTEGER)
                o = u == LSL_UOP_NEG ? F3_NEG_I : u == LSL_UOP_NOT ? F3_NOT_I : F3_BNOT_I;
            else if (r == LSL_TYPE_FLOAT && u == LSL_UOP_NEG)
                o = F3_NEG_F;
            res = c3_op(c, o, u, 0, 0) >= 0 ? rt : T_ERR;
            break;
        }
        case E_BINARY: {
            lsl_op o;
            if (!tok_to_op(e->op, &o)) {
                c3_fail(c, e->line, e->col, "unknown operator %s", lsl_tok_name(e->op));
                break;
            }
            if (f->stage == 0 && const_right(c, e, o)) {
                /* `(h * 31 + i) % 1000003`: a constant needs no evaluation,
                 * so the left side alone, then one instruction with the
                 * constant (the order of evaluation cannot show) */
                f->stage = 3;
                child = e->lhs;
            } else if (f->stage == 3) {
                static const fal3_op iop[] = {[LSL_OP_ADD] = F3_ADD_I, [LSL_OP_SUB] = F3_SUB_I, [LSL_OP_MUL] = F3_MUL_I,
                                              [LSL_OP_DIV] = F3_DIV_I, [LSL_OP_MOD] = F3_MOD_I, [LSL_OP_BITAND] = F3_BAND_I,
                                              [LSL_OP_BITOR] = F3_BOR_I, [LSL_OP_BITXOR] = F3_BXOR_I,
                                              [LSL_OP_SHL] = F3_SHL_I, [LSL_OP_SHR] = F3_SHR_I};
                int32_t k = 0;
                int_literal(e->rhs, &k);
                res = c3_op(c, F3_IOP_K, k, iop[o], 0) >= 0 ? LSL_TYPE_INTEGER : T_ERR;
            } else if (f->stage == 0) { /* right to left */
                f->stage = 1;
                child = e->rhs;
            } else if (f->stage == 1) {
                f->stage = 2;
                f->t = r;
                child = e->lhs;
            } else {
                res = apply_binop(c, o, r, f->t, e->line, e->col, lsl_tok_name(e->op));
            }
            break;
        }
        case E_ASSIGN:
            if (f->stage++ == 0) {
                if (cassign_target(c, e, &f->v, &f->member, &f->vt))
                    child = e->rhs;
                break;
            }
            res = cassign_store(c, e, true, f->v, f->member, f->vt, r);
            break;
        case E_CAST: {
            if (f->stage++ == 0) {
                child = e->lhs;
                break;
            }
            lsl_type to = e->cast_type;
            if (r == to) {
                res = r;
                break;
            }
            if (!lsl_cast_allowed(r, to)) {
                c3_fail(c, e->line, e->col, "Type mismatch: cannot cast %s to %s", lsl_type_name(r), lsl_type_name(to));
                break;
            }
            if (r == LSL_TYPE_INTEGER && to == LSL_TYPE_FLOAT)
                res = c3_op(c, F3_I2F, 0, 0, 0) >= 0 ? to : T_ERR;
            else if (r == LSL_TYPE_FLOAT && to == LSL_TYPE_INTEGER)
                res = c3_op(c, F3_F2I, 0, 0, 0) >= 0 ? to : T_ERR;
            else
                res = c3_op(c, F3_CAST, to, 0, 0) >= 0 ? to : T_ERR;
            break;
        }
        case E_PRINT:
            if (f->stage++ == 0) {
                child = e->lhs;
                break;
            }
            if (r == LSL_TYPE_VOID) {
                c3_fail(c, e->lhs->line, e->lhs->col, "Type mismatch: print needs a value");
                break;
            }
            if (r != LSL_TYPE_STRING && c3_op(c, F3_CAST, LSL_TYPE_STRING, 0, 0) < 0)
                break;
            res = c3_op(c, F3_PRINT, 0, 0, 0) >= 0 ? LSL_TYPE_VOID : T_ERR;
            break;
        default:
            res = cleaf(c, e);
            break;
        }
        if (child) {
            if (push_expr(c, child))
                continue;
            res = T_ERR;
        }
    done:
        c->line = f->line;
        c->col = f->col;
        c->nef--;
        if (res == T_ERR) { /* every operand's error is its whole expression's */
            c->nef = base;
            c->line = line0;
            c->col = col0;
            return T_ERR;
        }
        r = res;
    }
    return r;
}

bool c3_cexpr_stmt(c3 *c, const lsl_expr *e)
{
    lsl_type t;
    if (e->kind == E_ASSIGN)
        t = cassign(c, e, false);
    else if (e->kind >= E_PREINC && e->kind <= E_POSTDEC)
        t = cincdec(c, e, false);
    else
        t = c3_cexpr(c, e);
    if (t == T_ERR)
        return false;
    return t == LSL_TYPE_VOID || c3_op(c, F3_POP, 0, 0, 0) >= 0;
}
