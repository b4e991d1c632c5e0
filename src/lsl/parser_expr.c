/* LSL expressions, read with an explicit stack of open constructs (no C
 * recursion: see parser_int.h's nesting note). */
#include "lsl/parser_int.h"

#include "lsl/builtins.h"
#include "lsl/names.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- expressions ---------------------------------------------------------- */

/* Binary precedence, higher binds tighter.  LSL gives && and || the same
 * precedence (left to right). */
static int binary_prec(lsl_tok k)
{
    switch (k) {
    case T_AND_AND: case T_OR_OR: return 1;
    case T_PIPE: return 2;
    case T_CARET: return 3;
    case T_AMP: return 4;
    case T_EQ: case T_NE: return 5;
    case T_LT: case T_LE: case T_GT: case T_GE: return 6;
    case T_SHL: case T_SHR: return 7;
    case T_PLUS: case T_MINUS: return 8;
    case T_STAR: case T_SLASH: case T_PERCENT: return 9;
    default: return 0;
    }
}

bool lp_enter(parser *ps)
{
    if (++ps->depth > MAX_DEPTH)
        return lp_fail_at(ps, ps->tok.line, ps->tok.col,
                       "Syntax error: nested too deeply (more than %d levels)", MAX_DEPTH);
    return true;
}

/* Room for element n of a heap work stack (freed by lsl_parse). */
bool lp_reserve(parser *ps, void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return true;
    size_t nc = *cap ? *cap * 2 : 64;
    void *na = realloc(*arr, nc * elem);
    if (!na)
        return lp_fail_at(ps, ps->tok.line, ps->tok.col, "out of memory");
    *arr = na;
    *cap = nc;
    return true;
}

static bool is_lvalue(const lsl_expr *e)
{
    return e->kind == E_IDENT || (e->kind == E_MEMBER && e->lhs->kind == E_IDENT);
}

static bool is_assign_op(lsl_tok k)
{
    return k == T_ASSIGN || k == T_PLUS_ASSIGN || k == T_MINUS_ASSIGN || k == T_STAR_ASSIGN ||
           k == T_SLASH_ASSIGN || k == T_PERCENT_ASSIGN;
}

/* Inside the last components of a vector literal: does this `>` (or `>>`)
 * close it?  It does unless an operand follows, which only a comparison
 * can take. */
static bool closes_vector(const parser *ps)
{
    if (ps->tok.kind == T_SHR)
        return true;
    if (ps->tok.kind != T_GT)
        return false;
    switch (ps->next.kind) {
    case T_INT_LIT: case T_FLOAT_LIT: case T_STRING_LIT: case T_IDENT: case T_LPAREN:
        return false;
    default:
        return true;
    }
}

static bool push_x(parser *ps, xframe f)
{
    if (!lp_reserve(ps, (void **)&ps->xs, &ps->capxs, ps->nxs, sizeof f))
        return false;
    ps->xs[ps->nxs++] = f;
    return true;
}

/* Opens an expression: its operands and operators go above the stacks' tops. */
static bool open_expr(parser *ps, bool no_gt)
{
    return push_x(ps, (xframe){.kind = X_EXPR, .no_gt = no_gt, .vbase = ps->nvals, .obase = ps->nops});
}

/* The operator on top of the operator stack takes the two operands on top. */
static bool reduce(parser *ps)
{
    lsl_token t = ps->ops[--ps->nops];
    lsl_expr *rhs = ps->vals[--ps->nvals];
    lsl_expr *e = lp_new_expr(ps, E_BINARY, t.line, t.col);
    if (!e)
        return false;
    e->op = t.kind;
    e->lhs = ps->vals[ps->nvals - 1];
    e->rhs = rhs;
    if (!(e = lp_grown(ps, e)))
        return false;
    ps->vals[ps->nvals - 1] = e;
    return true;
}

/* An expression; `no_gt` inside a vector literal, where `>` may close it.
 *
 * Read without recursion: binary operators by precedence on an operator
 * stack (left to right, as precedence climbing would), every open
 * construct (a prefix operator, a cast, an assignment's right side,
 * parentheses, a call's or list's items, a vector's components, print's
 * argument) a frame on ps->xs.  Each parenthesis, call, list, vector,
 * print, prefix operator, cast and assignment used as an operand (the
 * assignment a statement is, is not) is one level of nesting (`depth`).
 * Steps: OPERAND reads the start of an operand (prefix operators, casts, a
 * primary); POSTFIX has a primary `e` and reads `.x`, `++`, `--` and an
 * assignment after it; OPERAND_DONE gives a whole operand `e` to the frame
 * on top; EXPR_DONE gives a whole expression `e` to the frame on top. */
static lsl_expr *parse_expr_ng(parser *ps, bool no_gt)
{
    size_t xbase = ps->nxs, vbase = ps->nvals, obase = ps->nops;
    enum { OPERAND, POSTFIX, OPERAND_DONE, EXPR_DONE } step = OPERAND;
    lsl_expr *e = NULL;
    bool top = false, ngt = false; /* of the operand being read */
    open_expr(ps, no_gt);
    while (!ps->failed) {
        switch (step) {
        case OPERAND: {
            lsl_token t = ps->tok;
            top = ps->stmt_top; /* only the statement's first operand */
            ps->stmt_top = false;
            ngt = ps->xs[ps->nxs - 1].no_gt; /* X_EXPR, X_PREFIX or X_CAST */
            if (t.kind == T_MINUS || t.kind == T_NOT || t.kind == T_TILDE || t.kind == T_INC ||
                t.kind == T_DEC) {
                if (lp_enter(ps) && lp_advance(ps))
                    push_x(ps, (xframe){.kind = X_PREFIX, .no_gt = ngt, .t = t});
                continue;
            }
            if (t.kind == T_LPAREN && is_type_token(ps->next.kind)) {
                if (!lp_enter(ps) || !lp_advance(ps))
                    continue;
                lsl_type type = lp_type_of(ps->tok.kind);
                if (!lp_advance(ps) || !lp_expect(ps, T_RPAREN, "after the cast's type"))
                    continue;
                /* LSL's grammar casts a variable, a constant, a call, a literal
                 * or a parenthesized expression: never another cast */
                if (ps->tok.kind == T_LPAREN && is_type_token(ps->next.kind)) {
                    lp_fail_at(ps, ps->tok.line, ps->tok.col,
                            "Syntax error: a cast cannot be cast again; put it in parentheses");
                    continue;
                }
                push_x(ps, (xframe){.kind = X_CAST, .no_gt = ngt, .t = t, .type = type});
                continue;
            }
            /* a primary; the bracketed ones are one level of nesting */
            bool nests = t.kind == T_LPAREN || t.kind == T_LBRACKET || t.kind == T_LT ||
                         t.kind == T_PRINT || (t.kind == T_IDENT && ps->next.kind == T_LPAREN);
            if (nests && !lp_enter(ps))
                continue;
            switch (t.kind) {
            case T_INT_LIT:
                if ((e = lp_new_expr(ps, E_INT, t.line, t.col)))
                    e->ival = t.ival;
                lp_advance(ps);
                step = POSTFIX;
                continue;
            case T_FLOAT_LIT:
                if ((e = lp_new_expr(ps, E_FLOAT, t.line, t.col)))
                    e->fval = t.fval;
                lp_advance(ps);
                step = POSTFIX;
                continue;
            case T_STRING_LIT:
                if ((e = lp_new_expr(ps, E_STRING, t.line, t.col))) {
                    e->sval = t.sval;
                    e->slen = t.slen;
                }
                lp_advance(ps);
                step = POSTFIX;
                continue;
            case T_IDENT: {
                const char *name = lp_ident_name(ps);
                lp_advance(ps);
                if (ps->tok.kind != T_LPAREN) {
                    if ((e = lp_new_expr(ps, E_IDENT, t.line, t.col)))
                        e->name = name;
                    step = POSTFIX;
                    continue;
                }
                lp_advance(ps);
                if (!(e = lp_new_expr(ps, E_CALL, t.line, t.col)))
                    continue;
                e->name = name;
                if (ps->tok.kind == T_RPAREN) { /* no arguments */
                    lp_advance(ps);
                    e = lp_grown(ps, e);
                    ps->depth--;
                    step = POSTFIX;
                    continue;
                }
                if (push_x(ps, (xframe){.kind = X_ITEMS, .no_gt = ngt, .top = top, .t = t, .e = e,
                                        .close = T_RPAREN}))
                    open_expr(ps, false);
                continue;
            }
            case T_PRINT:
                /* print(expr) is part of LSL's grammar (not a library function) */
                lp_advance(ps);
                if ((e = lp_new_expr(ps, E_PRINT, t.line, t.col)) && lp_expect(ps, T_LPAREN, "after 'print'") &&
                    push_x(ps, (xframe){.kind = X_PRINT, .no_gt = ngt, .top = top, .t = t, .e = e}))
                    open_expr(ps, false);
                continue;
            case T_LPAREN:
                lp_advance(ps);
                if (push_x(ps, (xframe){.kind = X_PAREN, .no_gt = ngt, .top = top, .t = t}))
                    open_expr(ps, false);
                continue;
            case T_LBRACKET:
                lp_advance(ps);
                if (!(e = lp_new_expr(ps, E_LIST, t.line, t.col)))
                    continue;
                if (ps->tok.kind == T_RBRACKET) { /* [] */
                    lp_advance(ps);
                    e = lp_grown(ps, e);
                    ps->depth--;
                    step = POSTFIX;
                    continue;
                }
                if (push_x(ps, (xframe){.kind = X_ITEMS, .no_gt = ngt, .top = top, .t = t, .e = e,
                                        .close = T_RBRACKET}))
                    open_expr(ps, false);
                continue;
            case T_LT:
                lp_advance(ps);
                if ((e = lp_new_expr(ps, E_VECTOR, t.line, t.col)) &&
                    push_x(ps, (xframe){.kind = X_VEC, .no_gt = ngt, .top = top, .t = t, .e = e}))
                    open_expr(ps, false);
                continue;
            default: {
                char found[80];
                lp_describe(&t, found, sizeof found);
                lp_fail_at(ps, t.line, t.col, "expected an expression, found %s", found);
                continue;
            }
            }
        }
        case POSTFIX: {
            /* components (of a variable only) and postfix ++ / -- */
            for (;;) {
                lsl_token t = ps->tok;
                if (t.kind == T_DOT) {
                    if (e->kind != E_IDENT) {
                        lp_fail_at(ps, t.line, t.col, "Syntax error: only a variable has components (.x .y .z .s)");
                        break;
                    }
                    lp_advance(ps);
                    if (ps->tok.kind != T_IDENT || ps->tok.len != 1 || !strchr("xyzs", ps->tok.start[0])) {
                        lp_fail_at(ps, ps->tok.line, ps->tok.col, "expected a component x, y, z or s after '.'");
                        break;
                    }
                    lsl_expr *m = lp_new_expr(ps, E_MEMBER, t.line, t.col);
                    if (!m)
                        break;
                    m->lhs = e;
                    m->name = lp_ident_name(ps);
                    lp_advance(ps);
                    if (!(e = lp_grown(ps, m)))
                        break;
                } else if (t.kind == T_INC || t.kind == T_DEC) {
                    if (!is_lvalue(e)) {
                        lp_fail_at(ps, t.line, t.col, "%s needs a variable", lsl_tok_name(t.kind));
                        break;
                    }
                    lp_advance(ps);
                    lsl_expr *m = lp_new_expr(ps, t.kind == T_INC ? E_POSTINC : E_POSTDEC, t.line, t.col);
                    if (!m)
                        break;
                    m->lhs = e;
                    if (!(e = lp_grown(ps, m)))
                        break;
                } else {
                    break;
                }
            }
            if (ps->failed)
                continue;
            if (is_lvalue(e) && is_assign_op(ps->tok.kind)) {
                /* an assignment as an operand: it has the lowest precedence and
                 * binds to the right, so `c + e *= 4 + 1` is c + (e *= (4 + 1));
                 * it is one level of nesting (the assignment a statement is,
                 * is not) */
                lsl_token op = ps->tok;
                if (lp_advance(ps) && (top || lp_enter(ps)) &&
                    push_x(ps, (xframe){.kind = X_ASSIGN, .no_gt = ngt, .top = top, .t = op, .e = e}))
                    open_expr(ps, ngt);
                step = OPERAND;
                continue;
            }
            step = OPERAND_DONE;
            continue;
        }
        case OPERAND_DONE: {
            xframe *f = &ps->xs[ps->nxs - 1];
            if (f->kind == X_PREFIX || f->kind == X_CAST) {
                lsl_token t = f->t;
                lsl_expr *n;
                if (f->kind == X_CAST) {
                    if ((n = lp_new_expr(ps, E_CAST, t.line, t.col)))
                        n->cast_type = f->type;
                } else if (t.kind == T_INC || t.kind == T_DEC) {
                    if (!is_lvalue(e)) {
                        lp_fail_at(ps, t.line, t.col, "%s needs a variable", lsl_tok_name(t.kind));
                        continue;
                    }
                    n = lp_new_expr(ps, t.kind == T_INC ? E_PREINC : E_PREDEC, t.line, t.col);
                } else if ((n = lp_new_expr(ps, E_UNARY, t.line, t.col))) {
                    n->op = t.kind;
                }
                if (!n)
                    continue;
                n->lhs = e;
                e = lp_grown(ps, n);
                ps->depth--;
                ps->nxs--;
                continue;
            }
            /* X_EXPR: the operand, then an operator or the expression's end */
            if (!lp_reserve(ps, (void **)&ps->vals, &ps->capvals, ps->nvals, sizeof e))
                continue;
            ps->vals[ps->nvals++] = e;
            int prec = binary_prec(ps->tok.kind);
            if (prec == 0 || (f->no_gt && closes_vector(ps))) {
                while (ps->nops > f->obase && reduce(ps))
                    ;
                if (ps->failed)
                    continue;
                e = ps->vals[--ps->nvals];
                ps->nxs--;
                if (is_assign_op(ps->tok.kind)) /* a variable's assignment was taken above */
                    lp_fail_at(ps, ps->tok.line, ps->tok.col, "the left side of %s must be a variable",
                            lsl_tok_name(ps->tok.kind));
                step = EXPR_DONE;
                continue;
            }
            while (ps->nops > f->obase && binary_prec(ps->ops[ps->nops - 1].kind) >= prec && reduce(ps))
                ;
            if (ps->failed ||
                !lp_reserve(ps, (void **)&ps->ops, &ps->capops, ps->nops, sizeof ps->tok))
                continue;
            ps->ops[ps->nops++] = ps->tok;
            lp_advance(ps);
            step = OPERAND;
            continue;
        }
        case EXPR_DONE: {
            if (ps->nxs == xbase)
                return e;
            xframe *f = &ps->xs[ps->nxs - 1];
            switch (f->kind) {
            case X_PAREN:
                lp_expect(ps, T_RPAREN, "to close the parenthesis");
                break;
            case X_ITEMS:
                if (!lp_append(ps, (void **)&f->e->items, &f->e->nitems, &f->cap, &e, sizeof e))
                    continue;
                if (ps->tok.kind == T_COMMA) {
                    lp_advance(ps);
                    open_expr(ps, false);
                    step = OPERAND;
                    continue;
                }
                if (lp_expect(ps, f->close, f->close == T_RPAREN ? "after the call's arguments" : "to close the list"))
                    e = lp_grown(ps, f->e);
                break;
            case X_VEC:
                /* a vector or rotation needs at least three components, so in
                 * the first two `>` is a comparison (`<1, 1>0, 1>` is
                 * <1, (1>0), 1>); from the third on, `>` closes the literal
                 * unless an operand follows it (`<a, b, c > d, e>` is a
                 * rotation) */
                if (!lp_append(ps, (void **)&f->e->items, &f->e->nitems, &f->cap, &e, sizeof e))
                    continue;
                if (ps->tok.kind == T_COMMA && f->e->nitems < 4) {
                    lp_advance(ps);
                    open_expr(ps, f->e->nitems >= 2);
                    step = OPERAND;
                    continue;
                }
                if (!lp_expect(ps, T_GT, "to close the vector or rotation"))
                    continue;
                if (f->e->nitems == 4)
                    f->e->kind = E_ROTATION;
                else if (f->e->nitems != 3) {
                    lp_fail_at(ps, f->t.line, f->t.col, "a vector has 3 components and a rotation 4, not %zu",
                            f->e->nitems);
                    continue;
                }
                e = lp_grown(ps, f->e);
                break;
            case X_PRINT:
                f->e->lhs = e;
                if (lp_expect(ps, T_RPAREN, "after print's argument"))
                    e = lp_grown(ps, f->e);
                break;
            case X_ASSIGN: {
                if (!f->top)
                    ps->depth--;
                lsl_expr *a = lp_new_expr(ps, E_ASSIGN, f->t.line, f->t.col);
                if (!a)
                    continue;
                a->op = f->t.kind;
                a->lhs = f->e;
                a->rhs = e;
                if (f->top) { /* a statement's assignment: no level */
                    a->height = e->height + 1;
                    a->effects = true;
                } else {
                    a = lp_grown(ps, a);
                }
                e = a;
                ps->nxs--;
                step = OPERAND_DONE;
                continue;
            }
            default: /* X_EXPR, X_PREFIX, X_CAST never wait for an expression */
                lp_fail_at(ps, f->t.line, f->t.col, "internal: unexpected expression");
                continue;
            }
            if (ps->failed)
                continue;
            /* a bracketed primary is whole: back to the operand it begins */
            ps->depth--;
            top = f->top;
            ngt = f->no_gt;
            ps->nxs--;
            step = POSTFIX;
            continue;
        }
        }
    }
    ps->nxs = xbase;
    ps->nvals = vbase;
    ps->nops = obase;
    return NULL;
}

lsl_expr *lp_parse_expr(parser *ps)
{
    return parse_expr_ng(ps, false);
}
