/* The ABI-2 code generator's expressions (compiler.c has the rest): typed
 * operators, assignments, casts and the two host calls, walked with a heap
 * work stack (no recursion over the tree). */
#include <stdlib.h>
#include <string.h>

#include "lsl/compiler_int.h"

/* The host functions of ABI 2: name, result type and parameter types. */
static const struct host_sig {
    const char *name;
    lsl_type ret;
    int nparams;
    lsl_type params[2];
} host_sigs[] = {
    {"llOwnerSay", LSL_TYPE_VOID, 1, {LSL_TYPE_STRING}},
    {"llSay", LSL_TYPE_VOID, 2, {LSL_TYPE_INTEGER, LSL_TYPE_STRING}},
};

/* ---- expressions ------------------------------------------------------------------ */

static bool has_side_effect(const lsl_expr *e);

static const char *op_text(lsl_tok op)
{
    return lsl_tok_name(op);
}

static bool load_var(compiler *c, const var_ref *v)
{
    return c2_emit(c, v->global ? FOP_LOAD_GLOBAL : FOP_LOAD_LOCAL, v->slot, 0) >= 0;
}

static bool store_var(compiler *c, const var_ref *v)
{
    return c2_emit(c, v->global ? FOP_STORE_GLOBAL : FOP_STORE_LOCAL, v->slot, 0) >= 0;
}

/* The variable an assignment or ++/-- targets. */
static bool target_var(compiler *c, const lsl_expr *lv, var_ref *v)
{
    if (lv->kind == E_MEMBER)
        return c2_fail(c, lv->line, lv->col,
                       "vector and rotation components are not supported by ABI 2");
    if (!c2_find_var(c, lv->name, v)) {
        int32_t k;
        if (c2_find_int_constant(lv->name, &k))
            return c2_fail(c, lv->line, lv->col, "Syntax error: cannot assign to the constant %s", lv->name);
        return c2_fail(c, lv->line, lv->col, "Name not defined within scope: undeclared variable '%s'", lv->name);
    }
    return true;
}

/* Emits `var = var OP value-on-stack` for the assignment forms. */
static bool combine(compiler *c, lsl_tok op, lsl_type vt, lsl_type rt, long line, long col)
{
    if (op == T_SLASH_ASSIGN || op == T_PERCENT_ASSIGN)
        return c2_fail(c, line, col, "operator %s is not supported by ABI 2", op_text(op));
    if (vt != rt)
        return c2_fail(c, line, col, "Type mismatch: cannot apply %s to %s and %s", op_text(op), lsl_type_name(vt),
                       lsl_type_name(rt));
    if (vt == LSL_TYPE_STRING) {
        if (op != T_PLUS_ASSIGN)
            return c2_fail(c, line, col, "Type mismatch: operator %s needs integers, not strings", op_text(op));
        return c2_emit(c, FOP_CONCAT_STR, 0, 0) >= 0;
    }
    fal_op fop = op == T_PLUS_ASSIGN ? FOP_ADD_INT : op == T_MINUS_ASSIGN ? FOP_SUB_INT : FOP_MUL_INT;
    return c2_emit(c, fop, 0, 0) >= 0;
}

/* An assignment (E_ASSIGN) up to its right side: the variable, and for a
 * compound one its value on the stack. */
static bool cassign_target(compiler *c, const lsl_expr *e, var_ref *v)
{
    if (!target_var(c, e->lhs, v))
        return false;
    if (e->op != T_ASSIGN && has_side_effect(e->rhs))
        return c2_fail(c, e->line, e->col,
                       "a compound assignment whose value has side effects is not supported by ABI 2");
    return e->op == T_ASSIGN || load_var(c, v);
}

/* The rest of an assignment, its right side (of type rt) compiled. */
static lsl_type cassign_store(compiler *c, const lsl_expr *e, bool want, const var_ref *vp, lsl_type rt)
{
    var_ref v = *vp;
    if (c->failed)
        return LSL_TYPE_VOID;
    {
        if (e->op == T_ASSIGN) {
            if (rt != v.type) {
                c2_fail(c, e->line, e->col, "Type mismatch: cannot assign %s to '%s', which is %s",
                        lsl_type_name(rt), e->lhs->name, lsl_type_name(v.type));
                return LSL_TYPE_VOID;
            }
        } else if (!combine(c, e->op, v.type, rt, e->line, e->col)) {
            return LSL_TYPE_VOID;
        }
        if (!store_var(c, &v) || (want && !load_var(c, &v)))
            return LSL_TYPE_VOID;
        return v.type;
    }
}

/* Assignment and ++/--; `want` leaves the expression's value on the stack. */
static lsl_type cassign(compiler *c, const lsl_expr *e, bool want)
{
    var_ref v = {false, 0, LSL_TYPE_VOID};
    if (e->kind == E_ASSIGN) {
        if (!cassign_target(c, e, &v))
            return LSL_TYPE_VOID;
        return cassign_store(c, e, want, &v, c2_cexpr(c, e->rhs));
    }
    if (!target_var(c, e->lhs, &v))
        return LSL_TYPE_VOID;
    /* ++ and -- */
    bool inc = e->kind == E_PREINC || e->kind == E_POSTINC;
    bool post = e->kind == E_POSTINC || e->kind == E_POSTDEC;
    if (v.type != LSL_TYPE_INTEGER) {
        c2_fail(c, e->line, e->col, "Type mismatch: %s needs an integer variable, '%s' is %s", inc ? "'++'" : "'--'",
                e->lhs->name, lsl_type_name(v.type));
        return LSL_TYPE_VOID;
    }
    if (want && post && !load_var(c, &v)) /* the old value stays below */
        return LSL_TYPE_VOID;
    if (!load_var(c, &v) || !c2_push_int(c, 1) || c2_emit(c, inc ? FOP_ADD_INT : FOP_SUB_INT, 0, 0) < 0 ||
        !store_var(c, &v))
        return LSL_TYPE_VOID;
    if (want && !post && !load_var(c, &v))
        return LSL_TYPE_VOID;
    return LSL_TYPE_INTEGER;
}

/* Does evaluating e change a variable?  (The parser's flag, ast.h.) */
static bool has_side_effect(const lsl_expr *e) { return e->effects; }

/* Second Life evaluates an operator's operands right to left; ABI 2's
 * opcodes take them left to right.  The two orders agree unless an operand
 * changes a variable while the other operand is not a literal: such
 * expressions are left to ABI 3, so no script changes meaning with the ABI. */
static bool order_shows(const lsl_expr *l, const lsl_expr *r)
{
    bool lit_l = l->kind == E_INT || l->kind == E_STRING;
    bool lit_r = r->kind == E_INT || r->kind == E_STRING;
    return (has_side_effect(l) && !lit_r) || (has_side_effect(r) && !lit_l);
}

/* The leaves of an expression: literals, names, ++ / --, and what ABI 2
 * refuses (its operands are never compiled). */
static lsl_type cleaf(compiler *c, const lsl_expr *e)
{
    switch (e->kind) {
    case E_INT:
        return c2_push_int(c, e->ival) ? LSL_TYPE_INTEGER : LSL_TYPE_VOID;
    case E_STRING:
        return c2_push_str(c, e->sval, e->slen) ? LSL_TYPE_STRING : LSL_TYPE_VOID;
    case E_FLOAT:
        c2_supported_type(c, LSL_TYPE_FLOAT, e->line, e->col);
        return LSL_TYPE_VOID;
    case E_VECTOR:
    case E_ROTATION:
    case E_LIST:
        c2_supported_type(c, e->kind == E_VECTOR ? LSL_TYPE_VECTOR : e->kind == E_ROTATION ? LSL_TYPE_ROTATION
                                                                                 : LSL_TYPE_LIST,
                       e->line, e->col);
        return LSL_TYPE_VOID;
    case E_IDENT: {
        var_ref v = {false, 0, LSL_TYPE_VOID};
        int32_t k;
        if (c2_find_var(c, e->name, &v))
            return load_var(c, &v) ? v.type : LSL_TYPE_VOID;
        if (c2_find_int_constant(e->name, &k))
            return c2_push_int(c, k) ? LSL_TYPE_INTEGER : LSL_TYPE_VOID;
        c2_fail(c, e->line, e->col, "Name not defined within scope: undeclared variable '%s'", e->name);
        return LSL_TYPE_VOID;
    }
    case E_PREINC:
    case E_PREDEC:
    case E_POSTINC:
    case E_POSTDEC:
        return cassign(c, e, true);
    case E_MEMBER:
        c2_fail(c, e->line, e->col, "vector and rotation components are not supported by ABI 2");
        return LSL_TYPE_VOID;
    case E_PRINT:
        c2_fail(c, e->line, e->col, "print is not supported by ABI 2");
        return LSL_TYPE_VOID;
    default:
        c2_fail(c, e->line, e->col, "unknown expression");
        return LSL_TYPE_VOID;
    }
}

/* An expression being compiled by cexpr: `stage` counts its visits, `i`
 * the arguments started. */
typedef struct eframe {
    const lsl_expr *e;
    int stage;
    size_t i;
    uint32_t line, col; /* the code position to restore when it is done */
    lsl_type t;         /* E_BINARY: the left operand's type */
    var_ref v;          /* E_ASSIGN: the variable */
    const struct host_sig *sig; /* E_CALL */
} eframe;

/* Starts compiling e; its instructions carry its line:col (the program's
 * line table), so an operator emitted after its operands is its own
 * position. */
static bool push_expr(compiler *c, const lsl_expr *e)
{
    if (!c2_reserve(c, (void **)&c->ef, &c->capef, c->nef, sizeof *c->ef))
        return false;
    c->ef[c->nef++] = (eframe){.e = e, .line = c->p->at_line, .col = c->p->at_col};
    c->p->at_line = (uint32_t)e->line;
    c->p->at_col = (uint32_t)e->col;
    return true;
}

/* Compiles e, leaving its value (if any) on the stack; returns its type
 * (VOID for a call that returns nothing, or after a failure).  Without
 * recursion: each operator, call or cast whose operands are being compiled
 * is a frame on c->ef; `r` is the type of the operand finished last. */
lsl_type c2_cexpr(compiler *c, const lsl_expr *root)
{
    size_t base = c->nef;
    uint32_t line0 = c->p->at_line, col0 = c->p->at_col;
    lsl_type r = LSL_TYPE_VOID;
    if (!push_expr(c, root))
        return LSL_TYPE_VOID;
    while (c->nef > base) {
        eframe *f = &c->ef[c->nef - 1];
        const lsl_expr *e = f->e;
        const lsl_expr *child = NULL;
        lsl_type res = LSL_TYPE_VOID;
        if (c->failed)
            goto done;
        switch (e->kind) {
        case E_CALL:
            if (f->stage++ == 0) {
                for (size_t i = 0; i < sizeof host_sigs / sizeof host_sigs[0]; i++)
                    if (strcmp(host_sigs[i].name, e->name) == 0)
                        f->sig = &host_sigs[i];
                if (!f->sig) {
                    c2_fail(c, e->line, e->col,
                            "function '%s' is not supported by ABI 2 (it has llOwnerSay and llSay)", e->name);
                    break;
                }
                if ((int)e->nitems != f->sig->nparams) {
                    c2_fail(c, e->line, e->col, "Function call mismatches type or number of arguments: %s takes %d argument%s, got %zu", f->sig->name, f->sig->nparams,
                            f->sig->nparams == 1 ? "" : "s", e->nitems);
                    break;
                }
            } else if (r != f->sig->params[f->i - 1]) {
                const lsl_expr *a = e->items[f->i - 1];
                c2_fail(c, a->line, a->col, "Function call mismatches type or number of arguments: argument %zu of %s must be %s, got %s", f->i, f->sig->name,
                        lsl_type_name(f->sig->params[f->i - 1]), lsl_type_name(r));
                break;
            }
            if (f->i < e->nitems) {
                child = e->items[f->i++];
                break;
            }
            {
                long h = fal_program_host(c->p, f->sig->name);
                if (h < 0 || c2_emit(c, FOP_CALL_HOST, (int32_t)h, (int32_t)e->nitems) < 0)
                    c2_fail(c, e->line, e->col, "out of memory");
                else
                    res = f->sig->ret;
            }
            break;
        case E_UNARY:
            if (f->stage++ == 0) {
                if (e->op != T_MINUS) {
                    c2_fail(c, e->line, e->col, "operator %s is not supported by ABI 2", op_text(e->op));
                    break;
                }
                if (e->lhs->kind == E_INT) { /* a negative literal */
                    if (c2_push_int(c, (int32_t)(0u - (uint32_t)e->lhs->ival)))
                        res = LSL_TYPE_INTEGER;
                    break;
                }
                if (c2_push_int(c, 0))
                    child = e->lhs;
                break;
            }
            if (r != LSL_TYPE_INTEGER) {
                c2_fail(c, e->line, e->col, "Type mismatch: unary '-' needs an integer, got %s", lsl_type_name(r));
                break;
            }
            res = c2_emit(c, FOP_SUB_INT, 0, 0) >= 0 ? LSL_TYPE_INTEGER : LSL_TYPE_VOID;
            break;
        case E_BINARY: {
            if (f->stage == 0) {
                /* Second Life evaluates an operator's operands right to left;
                 * ABI 2's opcodes take them left to right (see order_shows) */
                if (order_shows(e->lhs, e->rhs)) {
                    c2_fail(c, e->line, e->col,
                            "operands with side effects (evaluated right to left) are not supported by ABI 2");
                    break;
                }
                switch (e->op) {
                case T_PLUS: case T_MINUS: case T_STAR: case T_LT: case T_GT: case T_EQ:
                    break;
                default:
                    c2_fail(c, e->line, e->col, "operator %s is not supported by ABI 2", op_text(e->op));
                    break;
                }
                if (c->failed)
                    break;
                f->stage = 1;
                child = e->lhs;
                break;
            }
            if (f->stage == 1) {
                f->t = r;
                f->stage = 2;
                child = e->rhs;
                break;
            }
            lsl_type lt = f->t, rt = r;
            if (lt == LSL_TYPE_VOID || rt == LSL_TYPE_VOID) {
                c2_fail(c, e->line, e->col, "Type mismatch: operator %s needs values, not a call that returns nothing",
                        op_text(e->op));
                break;
            }
            if (e->op == T_PLUS && lt == LSL_TYPE_STRING && rt == LSL_TYPE_STRING) {
                res = c2_emit(c, FOP_CONCAT_STR, 0, 0) >= 0 ? LSL_TYPE_STRING : LSL_TYPE_VOID;
                break;
            }
            if (lt != LSL_TYPE_INTEGER || rt != LSL_TYPE_INTEGER) {
                if (e->op == T_EQ && lt == rt)
                    c2_fail(c, e->line, e->col, "comparing strings with '==' is not supported by ABI 2");
                else
                    c2_fail(c, e->line, e->col, "Type mismatch: cannot apply %s to %s and %s", op_text(e->op),
                            lsl_type_name(lt), lsl_type_name(rt));
                break;
            }
            fal_op fop = e->op == T_PLUS ? FOP_ADD_INT : e->op == T_MINUS ? FOP_SUB_INT
                       : e->op == T_STAR ? FOP_MUL_INT : e->op == T_LT ? FOP_LESS_INT
                       : e->op == T_GT ? FOP_GREATER_INT : FOP_EQUAL_INT;
            res = c2_emit(c, fop, 0, 0) >= 0 ? LSL_TYPE_INTEGER : LSL_TYPE_VOID;
            break;
        }
        case E_ASSIGN:
            if (f->stage++ == 0) {
                if (cassign_target(c, e, &f->v))
                    child = e->rhs;
                break;
            }
            res = cassign_store(c, e, true, &f->v, r);
            break;
        case E_CAST:
            if (f->stage++ == 0) {
                if (c2_supported_type(c, e->cast_type, e->line, e->col))
                    child = e->lhs;
                break;
            }
            if (r == e->cast_type) {
                res = r;
                break;
            }
            if (r == LSL_TYPE_INTEGER && e->cast_type == LSL_TYPE_STRING) {
                res = c2_emit(c, FOP_CAST_INT_TO_STR, 0, 0) >= 0 ? LSL_TYPE_STRING : LSL_TYPE_VOID;
                break;
            }
            c2_fail(c, e->line, e->col, "casting %s to %s is not supported by ABI 2", lsl_type_name(r),
                    lsl_type_name(e->cast_type));
            break;
        default:
            res = cleaf(c, e);
            break;
        }
        if (child && push_expr(c, child))
            continue;
    done:
        c->p->at_line = f->line;
        c->p->at_col = f->col;
        c->nef--;
        if (c->failed) { /* an operand's error is its whole expression's */
            c->nef = base;
            c->p->at_line = line0;
            c->p->at_col = col0;
            return LSL_TYPE_VOID;
        }
        r = res;
    }
    return r;
}

/* An expression used as a statement: its value, if any, is discarded. */
bool c2_cexpr_stmt(compiler *c, const lsl_expr *e)
{
    if (e->kind == E_ASSIGN || e->kind == E_PREINC || e->kind == E_PREDEC ||
        e->kind == E_POSTINC || e->kind == E_POSTDEC) {
        cassign(c, e, false);
        return !c->failed;
    }
    lsl_type t = c2_cexpr(c, e);
    if (c->failed)
        return false;
    return t == LSL_TYPE_VOID || c2_emit(c, FOP_POP, 0, 0) >= 0;
}

bool c2_ccondition(compiler *c, const lsl_expr *e, const char *what)
{
    lsl_type t = c2_cexpr(c, e);
    if (c->failed)
        return false;
    if (t != LSL_TYPE_INTEGER)
        return c2_fail(c, e->line, e->col, "the condition of '%s' must be an integer in ABI 2, got %s",
                       what, lsl_type_name(t));
    return true;
}
