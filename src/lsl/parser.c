#include "lsl/parser.h"

#include "lsl/builtins.h"
#include "lsl/names.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Nesting: Second Life's parser stack holds 10,000 entries, so it accepts
 * thousands of levels; so does this one (LSL_MAX_NESTING).  Operator chains
 * are read in loops; real nesting (parentheses, calls, lists, vectors,
 * prefix operators, assignments as operands, blocks and bodies, and each
 * `else if`, which nests in Second Life's grammar too) counts one level in
 * `depth`.  An expression's tree may also be at most LSL_MAX_NESTING high
 * (a chain of 10,000 terms).  Nothing here recurses: expressions and
 * statements are read with explicit stacks on the heap (below), so the C
 * stack a compilation needs does not grow with the script's nesting, and
 * the later passes walk the tree with explicit stacks too. */
#define MAX_DEPTH LSL_MAX_NESTING

/* A construct of an expression still open (see parse_expr_ng). */
typedef enum xkind {
    X_EXPR,   /* one expression: its operands and operators above vbase / obase */
    X_PREFIX, /* - ! ~ ++ -- (t) before its operand */
    X_CAST,   /* (type) before its operand */
    X_ASSIGN, /* the variable e, an assignment t, before its right side */
    X_PAREN,  /* ( before its expression */
    X_ITEMS,  /* a call's arguments or a list's items (e), up to `close` */
    X_VEC,    /* the components of <...> (e) */
    X_PRINT   /* print( (e) before its argument */
} xkind;

typedef struct xframe {
    xkind kind;
    bool no_gt; /* X_EXPR: `>` may close a vector; else that of the operand the construct is part of */
    bool top;   /* the operand the construct begins is a statement's first */
    lsl_token t;   /* the operator or opening token */
    lsl_type type; /* X_CAST */
    lsl_tok close; /* X_ITEMS */
    lsl_expr *e;
    size_t cap; /* of e->items */
    size_t vbase, obase;
} xframe;

/* A statement still open (see parse_block). */
typedef enum skind {
    K_BLOCK,  /* s, opened at t: its statements */
    K_NESTED, /* a block in a block (one level) */
    K_BODY,   /* the body of if / else / while / do / for, begun at t (one level) */
    K_IF,     /* an if chain (first ... last), s the if whose body is read */
    K_ELSE,   /* an if chain, its final else's body is read */
    K_WHILE, K_DO, K_FOR /* s, its body is read */
} skind;

typedef struct sframe {
    skind kind;
    lsl_token t;
    lsl_stmt *s, *first, *last;
    int links; /* K_IF / K_ELSE: the else-ifs, a level each */
    size_t cap; /* K_BLOCK: of s->stmts */
} sframe;

typedef struct parser {
    lsl_lexer lx;
    lsl_token tok;  /* current */
    lsl_token next; /* one token of lookahead */
    bool failed;
    int depth;
    bool stmt_top; /* the next operand begins a statement's expression */
    lsl_arena *arena;
    const char *file;
    gsvm_error *err;
    /* the work stacks (heap, freed by lsl_parse) */
    xframe *xs;
    size_t nxs, capxs;
    lsl_expr **vals;
    size_t nvals, capvals;
    lsl_token *ops;
    size_t nops, capops;
    sframe *ss;
    size_t nss, capss;
} parser;

static bool fail_at(parser *ps, long line, long col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool fail_at(parser *ps, long line, long col, const char *fmt, ...)
{
    if (ps->failed)
        return false;
    ps->failed = true;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gsvm_error_at_line(ps->err, GSVM_ERR_INPUT, ps->file, line, col, "%s%s", lsl_sl_error_prefix(msg), msg);
    return false;
}

static void describe(const lsl_token *t, char *out, size_t size)
{
    if (t->kind == T_IDENT)
        snprintf(out, size, "identifier '%.*s'", (int)(t->len > 40 ? 40 : t->len), t->start);
    else
        snprintf(out, size, "%s", lsl_tok_name(t->kind));
}

static bool advance(parser *ps)
{
    if (ps->failed)
        return false;
    ps->tok = ps->next;
    if (ps->tok.kind == T_EOF) {
        ps->next = ps->tok;
        return true;
    }
    if (!lsl_lexer_next(&ps->lx, &ps->next)) {
        ps->failed = true;
        return false;
    }
    return true;
}

static bool expect(parser *ps, lsl_tok kind, const char *context)
{
    if (ps->failed)
        return false;
    if (ps->tok.kind != kind) {
        char found[80];
        describe(&ps->tok, found, sizeof found);
        return fail_at(ps, ps->tok.line, ps->tok.col, "expected %s %s, found %s",
                       lsl_tok_name(kind), context, found);
    }
    return advance(ps);
}

static void *alloc(parser *ps, size_t size)
{
    void *p = lsl_arena_alloc(ps->arena, size);
    if (!p)
        fail_at(ps, ps->tok.line, ps->tok.col, "out of memory");
    return p;
}

/* Appends to an arena array, doubling its capacity as needed. */
static bool append(parser *ps, void **arr, size_t *n, size_t *cap, const void *item, size_t elem)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 4;
        void *na = alloc(ps, nc * elem);
        if (!na)
            return false;
        if (*n)
            memcpy(na, *arr, *n * elem);
        *arr = na;
        *cap = nc;
    }
    memcpy((char *)*arr + *n * elem, item, elem);
    (*n)++;
    return true;
}

static const char *ident_name(parser *ps)
{
    return lsl_arena_strndup(ps->arena, ps->tok.start, ps->tok.len);
}

static bool is_type_token(lsl_tok k) { return k >= T_INTEGER && k <= T_LIST; }

/* The name being declared (the current token): Second Life's lexer makes
 * every keyword, event name and library constant a token of its own, so
 * none of them can name a variable, parameter or function ("Syntax error"). */
static bool decl_name_ok(parser *ps, const char *what_before)
{
    const lsl_token *t = &ps->tok;
    if (t->kind == T_IDENT) {
        /* `event` is a keyword of SL's lexer that no rule of its grammar uses */
        const char *kind = lsl_event_by_name(t->start, t->len)             ? "an event name"
                           : lsl_constant_by_name(t->start, t->len)        ? "a constant"
                           : (t->len == 5 && memcmp(t->start, "event", 5) == 0) ? "a keyword"
                                                                           : NULL;
        if (!kind)
            return true;
        return fail_at(ps, t->line, t->col, "Syntax error: '%.*s' is %s and cannot be declared",
                       (int)(t->len > 40 ? 40 : t->len), t->start, kind);
    }
    if (t->kind >= T_INTEGER && t->kind <= T_PRINT)
        return fail_at(ps, t->line, t->col, "Syntax error: %s is a keyword and cannot be declared",
                       lsl_tok_name(t->kind));
    char found[80];
    describe(t, found, sizeof found);
    return fail_at(ps, t->line, t->col, "expected a name after %s, found %s", what_before, found);
}

static lsl_type type_of(lsl_tok k)
{
    switch (k) {
    case T_INTEGER: return LSL_TYPE_INTEGER;
    case T_FLOAT: return LSL_TYPE_FLOAT;
    case T_STRING: return LSL_TYPE_STRING;
    case T_KEY: return LSL_TYPE_KEY;
    case T_VECTOR: return LSL_TYPE_VECTOR;
    case T_ROTATION: return LSL_TYPE_ROTATION;
    case T_LIST: return LSL_TYPE_LIST;
    default: return LSL_TYPE_VOID;
    }
}

static lsl_expr *new_expr(parser *ps, lsl_expr_kind kind, long line, long col)
{
    lsl_expr *e = alloc(ps, sizeof *e);
    if (e) {
        e->kind = kind;
        e->line = line;
        e->col = col;
        e->pure = kind == E_INT || kind == E_FLOAT || kind == E_IDENT; /* as a leaf */
    }
    return e;
}

/* Sets e's height and its flags (ast.h) from its children (after they are
 * attached); a tree higher than MAX_DEPTH is refused at e. */
static lsl_expr *grown(parser *ps, lsl_expr *e)
{
    if (!e)
        return NULL;
    switch (e->kind) {
    case E_ASSIGN: case E_PREINC: case E_PREDEC: case E_POSTINC: case E_POSTDEC: case E_CALL: case E_PRINT:
        e->effects = true;
        e->pure = false;
        break;
    case E_BINARY:
        e->effects = e->lhs->effects || e->rhs->effects;
        e->pure = e->lhs->pure && e->rhs->pure;
        break;
    case E_UNARY: case E_CAST:
        e->effects = e->lhs->effects;
        e->pure = e->lhs->pure;
        break;
    case E_MEMBER: /* a component of a variable */
        e->effects = e->lhs->effects;
        e->pure = e->lhs->pure;
        break;
    default:
        e->effects = e->pure = false;
        break;
    }
    int h = -1; /* a leaf is 0 high */
    if (e->lhs && e->lhs->height > h)
        h = e->lhs->height;
    if (e->rhs && e->rhs->height > h)
        h = e->rhs->height;
    for (size_t i = 0; i < e->nitems; i++)
        if (e->items[i]->height > h)
            h = e->items[i]->height;
    e->height = h + 1;
    if (e->height > MAX_DEPTH) {
        fail_at(ps, e->line, e->col, "Syntax error: expression nested too deeply (more than %d levels)",
                MAX_DEPTH);
        return NULL;
    }
    return e;
}

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

static bool enter(parser *ps)
{
    if (++ps->depth > MAX_DEPTH)
        return fail_at(ps, ps->tok.line, ps->tok.col,
                       "Syntax error: nested too deeply (more than %d levels)", MAX_DEPTH);
    return true;
}

/* Room for element n of a heap work stack (freed by lsl_parse). */
static bool reserve(parser *ps, void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return true;
    size_t nc = *cap ? *cap * 2 : 64;
    void *na = realloc(*arr, nc * elem);
    if (!na)
        return fail_at(ps, ps->tok.line, ps->tok.col, "out of memory");
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
    if (!reserve(ps, (void **)&ps->xs, &ps->capxs, ps->nxs, sizeof f))
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
    lsl_expr *e = new_expr(ps, E_BINARY, t.line, t.col);
    if (!e)
        return false;
    e->op = t.kind;
    e->lhs = ps->vals[ps->nvals - 1];
    e->rhs = rhs;
    if (!(e = grown(ps, e)))
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
                if (enter(ps) && advance(ps))
                    push_x(ps, (xframe){.kind = X_PREFIX, .no_gt = ngt, .t = t});
                continue;
            }
            if (t.kind == T_LPAREN && is_type_token(ps->next.kind)) {
                if (!enter(ps) || !advance(ps))
                    continue;
                lsl_type type = type_of(ps->tok.kind);
                if (!advance(ps) || !expect(ps, T_RPAREN, "after the cast's type"))
                    continue;
                /* LSL's grammar casts a variable, a constant, a call, a literal
                 * or a parenthesized expression: never another cast */
                if (ps->tok.kind == T_LPAREN && is_type_token(ps->next.kind)) {
                    fail_at(ps, ps->tok.line, ps->tok.col,
                            "Syntax error: a cast cannot be cast again; put it in parentheses");
                    continue;
                }
                push_x(ps, (xframe){.kind = X_CAST, .no_gt = ngt, .t = t, .type = type});
                continue;
            }
            /* a primary; the bracketed ones are one level of nesting */
            bool nests = t.kind == T_LPAREN || t.kind == T_LBRACKET || t.kind == T_LT ||
                         t.kind == T_PRINT || (t.kind == T_IDENT && ps->next.kind == T_LPAREN);
            if (nests && !enter(ps))
                continue;
            switch (t.kind) {
            case T_INT_LIT:
                if ((e = new_expr(ps, E_INT, t.line, t.col)))
                    e->ival = t.ival;
                advance(ps);
                step = POSTFIX;
                continue;
            case T_FLOAT_LIT:
                if ((e = new_expr(ps, E_FLOAT, t.line, t.col)))
                    e->fval = t.fval;
                advance(ps);
                step = POSTFIX;
                continue;
            case T_STRING_LIT:
                if ((e = new_expr(ps, E_STRING, t.line, t.col))) {
                    e->sval = t.sval;
                    e->slen = t.slen;
                }
                advance(ps);
                step = POSTFIX;
                continue;
            case T_IDENT: {
                const char *name = ident_name(ps);
                advance(ps);
                if (ps->tok.kind != T_LPAREN) {
                    if ((e = new_expr(ps, E_IDENT, t.line, t.col)))
                        e->name = name;
                    step = POSTFIX;
                    continue;
                }
                advance(ps);
                if (!(e = new_expr(ps, E_CALL, t.line, t.col)))
                    continue;
                e->name = name;
                if (ps->tok.kind == T_RPAREN) { /* no arguments */
                    advance(ps);
                    e = grown(ps, e);
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
                advance(ps);
                if ((e = new_expr(ps, E_PRINT, t.line, t.col)) && expect(ps, T_LPAREN, "after 'print'") &&
                    push_x(ps, (xframe){.kind = X_PRINT, .no_gt = ngt, .top = top, .t = t, .e = e}))
                    open_expr(ps, false);
                continue;
            case T_LPAREN:
                advance(ps);
                if (push_x(ps, (xframe){.kind = X_PAREN, .no_gt = ngt, .top = top, .t = t}))
                    open_expr(ps, false);
                continue;
            case T_LBRACKET:
                advance(ps);
                if (!(e = new_expr(ps, E_LIST, t.line, t.col)))
                    continue;
                if (ps->tok.kind == T_RBRACKET) { /* [] */
                    advance(ps);
                    e = grown(ps, e);
                    ps->depth--;
                    step = POSTFIX;
                    continue;
                }
                if (push_x(ps, (xframe){.kind = X_ITEMS, .no_gt = ngt, .top = top, .t = t, .e = e,
                                        .close = T_RBRACKET}))
                    open_expr(ps, false);
                continue;
            case T_LT:
                advance(ps);
                if ((e = new_expr(ps, E_VECTOR, t.line, t.col)) &&
                    push_x(ps, (xframe){.kind = X_VEC, .no_gt = ngt, .top = top, .t = t, .e = e}))
                    open_expr(ps, false);
                continue;
            default: {
                char found[80];
                describe(&t, found, sizeof found);
                fail_at(ps, t.line, t.col, "expected an expression, found %s", found);
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
                        fail_at(ps, t.line, t.col, "Syntax error: only a variable has components (.x .y .z .s)");
                        break;
                    }
                    advance(ps);
                    if (ps->tok.kind != T_IDENT || ps->tok.len != 1 || !strchr("xyzs", ps->tok.start[0])) {
                        fail_at(ps, ps->tok.line, ps->tok.col, "expected a component x, y, z or s after '.'");
                        break;
                    }
                    lsl_expr *m = new_expr(ps, E_MEMBER, t.line, t.col);
                    if (!m)
                        break;
                    m->lhs = e;
                    m->name = ident_name(ps);
                    advance(ps);
                    if (!(e = grown(ps, m)))
                        break;
                } else if (t.kind == T_INC || t.kind == T_DEC) {
                    if (!is_lvalue(e)) {
                        fail_at(ps, t.line, t.col, "%s needs a variable", lsl_tok_name(t.kind));
                        break;
                    }
                    advance(ps);
                    lsl_expr *m = new_expr(ps, t.kind == T_INC ? E_POSTINC : E_POSTDEC, t.line, t.col);
                    if (!m)
                        break;
                    m->lhs = e;
                    if (!(e = grown(ps, m)))
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
                if (advance(ps) && (top || enter(ps)) &&
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
                    if ((n = new_expr(ps, E_CAST, t.line, t.col)))
                        n->cast_type = f->type;
                } else if (t.kind == T_INC || t.kind == T_DEC) {
                    if (!is_lvalue(e)) {
                        fail_at(ps, t.line, t.col, "%s needs a variable", lsl_tok_name(t.kind));
                        continue;
                    }
                    n = new_expr(ps, t.kind == T_INC ? E_PREINC : E_PREDEC, t.line, t.col);
                } else if ((n = new_expr(ps, E_UNARY, t.line, t.col))) {
                    n->op = t.kind;
                }
                if (!n)
                    continue;
                n->lhs = e;
                e = grown(ps, n);
                ps->depth--;
                ps->nxs--;
                continue;
            }
            /* X_EXPR: the operand, then an operator or the expression's end */
            if (!reserve(ps, (void **)&ps->vals, &ps->capvals, ps->nvals, sizeof e))
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
                    fail_at(ps, ps->tok.line, ps->tok.col, "the left side of %s must be a variable",
                            lsl_tok_name(ps->tok.kind));
                step = EXPR_DONE;
                continue;
            }
            while (ps->nops > f->obase && binary_prec(ps->ops[ps->nops - 1].kind) >= prec && reduce(ps))
                ;
            if (ps->failed ||
                !reserve(ps, (void **)&ps->ops, &ps->capops, ps->nops, sizeof ps->tok))
                continue;
            ps->ops[ps->nops++] = ps->tok;
            advance(ps);
            step = OPERAND;
            continue;
        }
        case EXPR_DONE: {
            if (ps->nxs == xbase)
                return e;
            xframe *f = &ps->xs[ps->nxs - 1];
            switch (f->kind) {
            case X_PAREN:
                expect(ps, T_RPAREN, "to close the parenthesis");
                break;
            case X_ITEMS:
                if (!append(ps, (void **)&f->e->items, &f->e->nitems, &f->cap, &e, sizeof e))
                    continue;
                if (ps->tok.kind == T_COMMA) {
                    advance(ps);
                    open_expr(ps, false);
                    step = OPERAND;
                    continue;
                }
                if (expect(ps, f->close, f->close == T_RPAREN ? "after the call's arguments" : "to close the list"))
                    e = grown(ps, f->e);
                break;
            case X_VEC:
                /* a vector or rotation needs at least three components, so in
                 * the first two `>` is a comparison (`<1, 1>0, 1>` is
                 * <1, (1>0), 1>); from the third on, `>` closes the literal
                 * unless an operand follows it (`<a, b, c > d, e>` is a
                 * rotation) */
                if (!append(ps, (void **)&f->e->items, &f->e->nitems, &f->cap, &e, sizeof e))
                    continue;
                if (ps->tok.kind == T_COMMA && f->e->nitems < 4) {
                    advance(ps);
                    open_expr(ps, f->e->nitems >= 2);
                    step = OPERAND;
                    continue;
                }
                if (!expect(ps, T_GT, "to close the vector or rotation"))
                    continue;
                if (f->e->nitems == 4)
                    f->e->kind = E_ROTATION;
                else if (f->e->nitems != 3) {
                    fail_at(ps, f->t.line, f->t.col, "a vector has 3 components and a rotation 4, not %zu",
                            f->e->nitems);
                    continue;
                }
                e = grown(ps, f->e);
                break;
            case X_PRINT:
                f->e->lhs = e;
                if (expect(ps, T_RPAREN, "after print's argument"))
                    e = grown(ps, f->e);
                break;
            case X_ASSIGN: {
                if (!f->top)
                    ps->depth--;
                lsl_expr *a = new_expr(ps, E_ASSIGN, f->t.line, f->t.col);
                if (!a)
                    continue;
                a->op = f->t.kind;
                a->lhs = f->e;
                a->rhs = e;
                if (f->top) { /* a statement's assignment: no level */
                    a->height = e->height + 1;
                    a->effects = true;
                } else {
                    a = grown(ps, a);
                }
                e = a;
                ps->nxs--;
                step = OPERAND_DONE;
                continue;
            }
            default: /* X_EXPR, X_PREFIX, X_CAST never wait for an expression */
                fail_at(ps, f->t.line, f->t.col, "internal: unexpected expression");
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

static lsl_expr *parse_expr(parser *ps)
{
    return parse_expr_ng(ps, false);
}

/* ---- statements ------------------------------------------------------------ */

static lsl_stmt *new_stmt(parser *ps, lsl_stmt_kind kind, const lsl_token *at)
{
    lsl_stmt *s = alloc(ps, sizeof *s);
    if (s) {
        s->kind = kind;
        s->line = at->line;
        s->col = at->col;
    }
    return s;
}

static bool push_s(parser *ps, sframe f)
{
    if (!reserve(ps, (void **)&ps->ss, &ps->capss, ps->nss, sizeof f))
        return false;
    ps->ss[ps->nss++] = f;
    return true;
}

/* `{`: opens a block (its statements follow). */
static bool open_block(parser *ps)
{
    lsl_token t = ps->tok;
    if (!expect(ps, T_LBRACE, "to open a block"))
        return false;
    lsl_stmt *b = new_stmt(ps, S_BLOCK, &t);
    return b && push_s(ps, (sframe){.kind = K_BLOCK, .t = t, .s = b});
}

/* `if (condition)`, up to its body. */
static lsl_stmt *if_header(parser *ps)
{
    lsl_token it = ps->tok;
    lsl_stmt *s;
    advance(ps);
    if (!(s = new_stmt(ps, S_IF, &it)) || !expect(ps, T_LPAREN, "after 'if'") ||
        !(s->expr = parse_expr(ps)) || !expect(ps, T_RPAREN, "after the condition"))
        return NULL;
    return s;
}

/* Comma-separated expressions of a for header, up to `close`. */
static bool parse_expr_list(parser *ps, lsl_tok close, lsl_expr ***items, size_t *n)
{
    size_t cap = 0;
    if (ps->tok.kind == close)
        return true;
    for (;;) {
        ps->stmt_top = true;
        lsl_expr *e = parse_expr(ps);
        if (!e || !append(ps, (void **)items, n, &cap, &e, sizeof e))
            return false;
        if (ps->tok.kind != T_COMMA)
            return true;
        advance(ps);
    }
}

/* A statement without a body: jump, label, return, state change,
 * declaration or expression. */
static lsl_stmt *parse_simple_stmt(parser *ps)
{
    lsl_token t = ps->tok;
    lsl_stmt *s;
    switch (t.kind) {
    case T_JUMP:
    case T_AT:
        advance(ps);
        if (!(s = new_stmt(ps, t.kind == T_JUMP ? S_JUMP : S_LABEL, &t)))
            return NULL;
        if (ps->tok.kind != T_IDENT) {
            fail_at(ps, ps->tok.line, ps->tok.col, "expected a label name after %s",
                    lsl_tok_name(t.kind));
            return NULL;
        }
        s->name = ident_name(ps);
        s->name_line = ps->tok.line;
        s->name_col = ps->tok.col;
        advance(ps);
        if (!expect(ps, T_SEMI, t.kind == T_JUMP ? "after the jump" : "after the label"))
            return NULL;
        return s;
    case T_RETURN:
        advance(ps);
        if (!(s = new_stmt(ps, S_RETURN, &t)))
            return NULL;
        s->returns = true;
        if (ps->tok.kind != T_SEMI && !(s->expr = parse_expr(ps)))
            return NULL;
        if (!expect(ps, T_SEMI, "after 'return'"))
            return NULL;
        return s;
    case T_STATE:
        advance(ps);
        if (!(s = new_stmt(ps, S_STATE, &t)))
            return NULL;
        if (ps->tok.kind != T_IDENT && ps->tok.kind != T_DEFAULT) {
            fail_at(ps, ps->tok.line, ps->tok.col, "expected a state name after 'state'");
            return NULL;
        }
        s->name = ps->tok.kind == T_DEFAULT ? "default" : ident_name(ps);
        s->name_line = ps->tok.line;
        s->name_col = ps->tok.col;
        advance(ps);
        if (!expect(ps, T_SEMI, "after the state change"))
            return NULL;
        return s;
    default:
        break;
    }
    if (is_type_token(t.kind)) {
        advance(ps);
        if (!(s = new_stmt(ps, S_DECL, &t)))
            return NULL;
        s->decl_type = type_of(t.kind);
        if (!decl_name_ok(ps, lsl_tok_name(t.kind)))
            return NULL;
        s->name = ident_name(ps);
        s->name_line = ps->tok.line;
        s->name_col = ps->tok.col;
        advance(ps);
        if (ps->tok.kind == T_ASSIGN) {
            advance(ps);
            if (!(s->expr = parse_expr(ps)))
                return NULL;
        }
        if (!expect(ps, T_SEMI, "after the declaration"))
            return NULL;
        return s;
    }
    ps->stmt_top = true;
    if (!(s = new_stmt(ps, S_EXPR, &t)) || !(s->expr = parse_expr(ps)) ||
        !expect(ps, T_SEMI, "after the expression"))
        return NULL;
    return s;
}

/* The end of an if / else if / ... chain: the else-ifs' levels are given
 * back, and each if of it learns whether it always returns (the chain's
 * suffix from it has an else everywhere and every branch returns). */
static lsl_stmt *end_if_chain(parser *ps, sframe *k)
{
    ps->depth -= k->links;
    size_t i = 0, last_bad = 0;
    bool any_bad = false;
    for (lsl_stmt *s = k->first;; s = s->else_body, i++) {
        if (!s->else_body || !s->body->returns || (s->else_body->kind != S_IF && !s->else_body->returns)) {
            any_bad = true;
            last_bad = i;
        }
        if (!s->else_body || s->else_body->kind != S_IF)
            break;
    }
    i = 0;
    for (lsl_stmt *s = k->first;; s = s->else_body, i++) {
        s->returns = !any_bad || i > last_bad;
        if (!s->else_body || s->else_body->kind != S_IF)
            break;
    }
    return k->first;
}

/* A block and every statement in it, without recursion: each open block,
 * body and if-chain is a frame on ps->ss.  A block in a block is one level
 * of nesting, so is each body of if, else, while, do and for (a body that
 * is a block counts once), and each `else if` of a chain (it nests in
 * Second Life's grammar); a function's or handler's own block is not.
 * Steps: NEXT reads the block on top's next statement or its end; BODY
 * begins a body at the current token; STMT begins a statement (a simple
 * one is read whole, a compound one pushes its frame); DONE gives the
 * whole statement `done` to the frame on top. */
static lsl_stmt *parse_block(parser *ps)
{
    size_t base = ps->nss;
    enum { NEXT, BODY, STMT, DONE } step = NEXT;
    lsl_stmt *done = NULL;
    open_block(ps);
    while (!ps->failed) {
        switch (step) {
        case NEXT: {
            sframe *k = &ps->ss[ps->nss - 1];
            if (ps->tok.kind == T_RBRACE) {
                advance(ps);
                done = k->s;
                for (size_t i = 0; i < done->nstmts; i++)
                    done->returns = done->returns || done->stmts[i]->returns;
                ps->nss--;
                step = DONE;
                continue;
            }
            if (ps->tok.kind == T_EOF) {
                fail_at(ps, k->t.line, k->t.col, "this '{' is never closed");
                continue;
            }
            if (ps->tok.kind == T_LBRACE && (!enter(ps) || !push_s(ps, (sframe){.kind = K_NESTED})))
                continue;
            step = STMT;
            continue;
        }
        case BODY: {
            lsl_token t = ps->tok;
            if (enter(ps))
                push_s(ps, (sframe){.kind = K_BODY, .t = t});
            step = STMT;
            continue;
        }
        case STMT: {
            lsl_token t = ps->tok;
            lsl_stmt *s;
            switch (t.kind) {
            case T_LBRACE:
                open_block(ps);
                step = NEXT;
                continue;
            case T_SEMI:
                advance(ps);
                done = new_stmt(ps, S_EMPTY, &t);
                step = DONE;
                continue;
            case T_IF:
                /* an if / else if / ... chain is one frame; each `else if`
                 * nests one level deeper (as in Second Life's grammar and in
                 * the tree the later passes walk), given back at its end */
                if ((s = if_header(ps)))
                    push_s(ps, (sframe){.kind = K_IF, .s = s});
                step = BODY;
                continue;
            case T_WHILE:
                advance(ps);
                if ((s = new_stmt(ps, S_WHILE, &t)) && expect(ps, T_LPAREN, "after 'while'") &&
                    (s->expr = parse_expr(ps)) && expect(ps, T_RPAREN, "after the condition"))
                    push_s(ps, (sframe){.kind = K_WHILE, .s = s});
                step = BODY;
                continue;
            case T_DO:
                advance(ps);
                if ((s = new_stmt(ps, S_DO, &t)))
                    push_s(ps, (sframe){.kind = K_DO, .s = s});
                step = BODY;
                continue;
            case T_FOR:
                advance(ps);
                if (!(s = new_stmt(ps, S_FOR, &t)) || !expect(ps, T_LPAREN, "after 'for'") ||
                    !parse_expr_list(ps, T_SEMI, &s->init, &s->ninit) ||
                    !expect(ps, T_SEMI, "after the for loop's initializers"))
                    continue;
                if (ps->tok.kind != T_SEMI && !(s->expr = parse_expr(ps)))
                    continue;
                if (expect(ps, T_SEMI, "after the for loop's condition") &&
                    parse_expr_list(ps, T_RPAREN, &s->step, &s->nstep) &&
                    expect(ps, T_RPAREN, "after the for loop's steps"))
                    push_s(ps, (sframe){.kind = K_FOR, .s = s});
                step = BODY;
                continue;
            default:
                done = parse_simple_stmt(ps);
                step = DONE;
                continue;
            }
        }
        case DONE: {
            if (ps->nss == base)
                return done;
            sframe *k = &ps->ss[ps->nss - 1];
            switch (k->kind) {
            case K_BLOCK:
                if (append(ps, (void **)&k->s->stmts, &k->s->nstmts, &k->cap, &done, sizeof done))
                    step = NEXT;
                continue;
            case K_NESTED:
                ps->depth--;
                ps->nss--;
                continue;
            case K_BODY:
                /* Second Life refuses a declaration as a body unless it is in braces */
                ps->depth--;
                if (done->kind == S_DECL)
                    fail_at(ps, k->t.line, k->t.col, "Declaration requires a new scope -- use { and }");
                ps->nss--;
                continue;
            case K_IF:
                k->s->body = done;
                if (k->last)
                    k->last->else_body = k->s;
                else
                    k->first = k->s;
                k->last = k->s;
                if (ps->tok.kind != T_ELSE) {
                    done = end_if_chain(ps, k);
                    ps->nss--;
                    continue;
                }
                advance(ps);
                if (ps->tok.kind != T_IF) {
                    k->kind = K_ELSE;
                    step = BODY;
                    continue;
                }
                if (enter(ps)) {
                    k->links++;
                    k->s = if_header(ps);
                }
                step = BODY;
                continue;
            case K_ELSE:
                k->last->else_body = done;
                done = end_if_chain(ps, k);
                ps->nss--;
                continue;
            case K_WHILE:
            case K_FOR:
                k->s->body = done;
                done = k->s;
                ps->nss--;
                continue;
            case K_DO:
                k->s->body = done;
                if (expect(ps, T_WHILE, "after the body of 'do'") && expect(ps, T_LPAREN, "after 'while'") &&
                    (k->s->expr = parse_expr(ps)) && expect(ps, T_RPAREN, "after the condition") &&
                    expect(ps, T_SEMI, "after 'do ... while (...)'"))
                    done = k->s;
                ps->nss--;
                continue;
            }
            continue;
        }
        }
    }
    ps->nss = base;
    return NULL;
}

/* ---- top level --------------------------------------------------------------- */

static bool parse_params(parser *ps, lsl_func *f)
{
    size_t cap = 0;
    if (!expect(ps, T_LPAREN, "to open the parameter list"))
        return false;
    if (ps->tok.kind == T_RPAREN)
        return advance(ps);
    for (;;) {
        if (!is_type_token(ps->tok.kind)) {
            char found[80];
            describe(&ps->tok, found, sizeof found);
            return fail_at(ps, ps->tok.line, ps->tok.col, "expected a parameter type, found %s",
                           found);
        }
        lsl_param prm = {type_of(ps->tok.kind), NULL, 0, 0};
        advance(ps);
        if (!decl_name_ok(ps, "the parameter's type"))
            return false;
        prm.name = ident_name(ps);
        prm.line = ps->tok.line;
        prm.col = ps->tok.col;
        advance(ps);
        if (!append(ps, (void **)&f->params, &f->nparams, &cap, &prm, sizeof prm))
            return false;
        if (ps->tok.kind == T_COMMA) {
            advance(ps);
            continue;
        }
        return expect(ps, T_RPAREN, "to close the parameter list");
    }
}

static bool parse_state(parser *ps, lsl_script *sc, size_t *cap)
{
    lsl_state st = {0};
    st.line = ps->tok.line;
    st.col = ps->tok.col;
    if (ps->tok.kind == T_DEFAULT) {
        st.name = "default";
        st.is_default = true;
        advance(ps);
    } else {
        advance(ps); /* 'state' */
        if (ps->tok.kind != T_IDENT)
            return fail_at(ps, ps->tok.line, ps->tok.col, "expected a state name after 'state'");
        st.name = ident_name(ps);
        advance(ps);
    }
    lsl_token open = ps->tok;
    if (!expect(ps, T_LBRACE, "to open the state"))
        return false;
    size_t ecap = 0;
    while (!ps->failed && ps->tok.kind != T_RBRACE) {
        if (ps->tok.kind == T_EOF)
            return fail_at(ps, open.line, open.col, "this state's '{' is never closed");
        if (ps->tok.kind != T_IDENT) {
            char found[80];
            describe(&ps->tok, found, sizeof found);
            return fail_at(ps, ps->tok.line, ps->tok.col, "expected an event handler, found %s",
                           found);
        }
        lsl_func ev = {LSL_TYPE_VOID, ident_name(ps), ps->tok.line, ps->tok.col, NULL, 0, NULL};
        advance(ps);
        if (!parse_params(ps, &ev) || !(ev.body = parse_block(ps)))
            return false;
        if (!append(ps, (void **)&st.events, &st.nevents, &ecap, &ev, sizeof ev))
            return false;
    }
    if (!ps->failed && st.nevents == 0)
        return fail_at(ps, ps->tok.line, ps->tok.col,
                       "Syntax error: a state needs at least one event handler");
    if (!expect(ps, T_RBRACE, "to close the state"))
        return false;
    return append(ps, (void **)&sc->states, &sc->nstates, cap, &st, sizeof st);
}

gsvm_status lsl_parse(const char *src, size_t len, const char *file, lsl_arena *arena,
                      lsl_script **out, gsvm_error *err)
{
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.arena = arena;
    ps.file = file;
    ps.err = err;
    lsl_lexer_init(&ps.lx, src, len, file, arena, err);
    *out = NULL;
    lsl_script *sc = alloc(&ps, sizeof *sc);
    if (!sc)
        return GSVM_ERR_NOMEM;
    ps.next.kind = T_INT_LIT; /* anything but EOF, so the priming advance reads */
    if (!lsl_lexer_next(&ps.lx, &ps.next))
        return GSVM_ERR_INPUT;
    advance(&ps);
    size_t gcap = 0, fcap = 0, scap = 0;
    while (!ps.failed && ps.tok.kind != T_EOF) {
        lsl_token t = ps.tok;
        if (t.kind == T_DEFAULT || t.kind == T_STATE) {
            parse_state(&ps, sc, &scap);
            continue;
        }
        if (sc->nstates) {
            fail_at(&ps, t.line, t.col,
                    "globals and functions must come before the states (found %s)",
                    lsl_tok_name(t.kind));
            break;
        }
        lsl_type type = LSL_TYPE_VOID;
        if (is_type_token(t.kind)) {
            type = type_of(t.kind);
            advance(&ps);
        }
        if (type && !decl_name_ok(&ps, lsl_tok_name(t.kind)))
            break;
        if (ps.tok.kind != T_IDENT) {
            char found[80];
            describe(&ps.tok, found, sizeof found);
            fail_at(&ps, ps.tok.line, ps.tok.col, "expected a global, a function or a state, found %s",
                    found);
            break;
        }
        if (!type && !decl_name_ok(&ps, ""))
            break;
        const char *name = ident_name(&ps);
        long nline = ps.tok.line, ncol = ps.tok.col;
        advance(&ps);
        if (ps.tok.kind == T_LPAREN) {
            lsl_func f = {type, name, nline, ncol, NULL, 0, NULL};
            if (!parse_params(&ps, &f) || !(f.body = parse_block(&ps)))
                break;
            append(&ps, (void **)&sc->funcs, &sc->nfuncs, &fcap, &f, sizeof f);
            continue;
        }
        if (type == LSL_TYPE_VOID) {
            fail_at(&ps, t.line, t.col, "expected a type before the global '%s'", name);
            break;
        }
        lsl_global g = {type, name, nline, ncol, NULL};
        if (ps.tok.kind == T_ASSIGN) {
            advance(&ps);
            if (!(g.init = parse_expr(&ps)))
                break;
        }
        if (!expect(&ps, T_SEMI, "after the global declaration"))
            break;
        append(&ps, (void **)&sc->globals, &sc->nglobals, &gcap, &g, sizeof g);
    }
    free(ps.xs);
    free(ps.vals);
    free(ps.ops);
    free(ps.ss);
    if (ps.failed)
        return err && err->status ? err->status : GSVM_ERR_INPUT;
    if (sc->nstates == 0 || !sc->states[0].is_default) {
        if (sc->nstates == 0)
            gsvm_error_at_line(err, GSVM_ERR_INPUT, file, ps.tok.line, ps.tok.col,
                               "Syntax error: the script has no default state");
        else
            gsvm_error_at_line(err, GSVM_ERR_INPUT, file, sc->states[0].line, sc->states[0].col,
                               "Syntax error: the first state must be 'default'");
        return GSVM_ERR_INPUT;
    }
    lsl_names seen = {0};
    for (size_t i = 0; i < sc->nstates; i++) {
        long before;
        if (lsl_names_get(&seen, sc->states[i].name, &before)) {
            lsl_names_free(&seen);
            gsvm_error_at_line(err, GSVM_ERR_INPUT, file, sc->states[i].line, sc->states[i].col,
                               "%s: state '%s' is defined twice",
                               sc->states[i].is_default ? "Syntax error" : "Name previously declared within scope",
                               sc->states[i].name);
            return GSVM_ERR_INPUT;
        }
        if (!lsl_names_set(&seen, sc->states[i].name, (long)i)) {
            lsl_names_free(&seen);
            return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
        }
    }
    /* Globals, functions and states share Second Life's global scope, which
     * also holds the library's functions. */
    static const char *const kinds[] = {"a state", "a global", "a function"};
    for (int kind = 1; kind <= 2; kind++) {
        size_t n = kind == 1 ? sc->nglobals : sc->nfuncs;
        for (size_t i = 0; i < n; i++) {
            const char *name = kind == 1 ? sc->globals[i].name : sc->funcs[i].name;
            long line = kind == 1 ? sc->globals[i].line : sc->funcs[i].line;
            long col = kind == 1 ? sc->globals[i].col : sc->funcs[i].col;
            long before;
            const char *what = NULL;
            if (lsl_builtin_by_name(name, strlen(name)))
                what = "a library function";
            else if (lsl_names_get(&seen, name, &before))
                what = before < 0 ? kinds[-before] : kinds[0];
            if (what) {
                lsl_names_free(&seen);
                gsvm_error_at_line(err, GSVM_ERR_INPUT, file, line, col,
                                   "Name previously declared within scope: '%s' is %s", name, what);
                return GSVM_ERR_INPUT;
            }
            if (!lsl_names_set(&seen, name, -kind)) {
                lsl_names_free(&seen);
                return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
            }
        }
    }
    lsl_names_free(&seen);
    *out = sc;
    return GSVM_OK;
}


/* ---- the whole front end -------------------------------------------------------- */

gsvm_status lsl_front_end(const char *src, size_t len, const char *file, lsl_compile_fn compile,
                          void *ctx, gsvm_error *err)
{
    lsl_arena *arena = lsl_arena_new();
    if (!arena)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
    lsl_script *sc;
    gsvm_status st = lsl_parse(src, len, file, arena, &sc, err);
    if (st == GSVM_OK && !compile(sc, ctx))
        st = err && err->status ? err->status : GSVM_ERR_INPUT;
    lsl_arena_free(arena);
    return st;
}
