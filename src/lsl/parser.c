#include "lsl/parser.h"

#include "lsl/builtins.h"
#include "lsl/names.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Nesting: Second Life's parser stack holds 10,000 entries, so it accepts
 * thousands of levels; so does this one (LSL_MAX_NESTING).  Operator chains
 * are read in loops; real nesting (parentheses, calls, lists, vectors,
 * prefix operators, assignments as operands, blocks and bodies, and each
 * `else if`, which nests in Second Life's grammar too) counts one level in
 * `depth`.  An expression's tree may also be at most LSL_MAX_NESTING high
 * (a chain of 10,000 terms), so every later pass is bounded too.  All of it
 * runs on the front end's own stack (lsl_front_end); MAX_STACK is a last
 * guard of that stack, never reached within the limits. */
#define MAX_DEPTH LSL_MAX_NESTING
#define MAX_STACK ((size_t)48 << 20)

typedef struct parser {
    lsl_lexer lx;
    lsl_token tok;  /* current */
    lsl_token next; /* one token of lookahead */
    bool failed;
    int depth;
    bool stmt_top; /* the next operand begins a statement's expression */
    uintptr_t stack_base; /* the C stack where parsing began */
    lsl_arena *arena;
    const char *file;
    gsvm_error *err;
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
    gsvm_error_at_line(ps->err, GSVM_ERR_INPUT, ps->file, line, col, "%s", msg);
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
        const char *kind = lsl_event_by_name(t->start, t->len) ? "an event name"
                           : lsl_constant_by_name(t->start, t->len) ? "a constant"
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
    }
    return e;
}

/* Sets e's height from its children (after they are attached); a tree
 * higher than MAX_DEPTH is refused at e, so no later pass walks deeper. */
static lsl_expr *grown(parser *ps, lsl_expr *e)
{
    if (!e)
        return NULL;
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

static lsl_expr *parse_expr(parser *ps);
static lsl_expr *parse_expr_ng(parser *ps, bool no_gt);
static lsl_expr *parse_binary(parser *ps, int min_prec, bool no_gt);
static lsl_expr *parse_unary(parser *ps, bool no_gt);

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

static uintptr_t stack_here(void)
{
#if defined(__GNUC__) || defined(__clang__)
    return (uintptr_t)__builtin_frame_address(0);
#else
    char c;
    return (uintptr_t)&c;
#endif
}

static bool enter(parser *ps)
{
    uintptr_t here = stack_here();
    uintptr_t used = here < ps->stack_base ? ps->stack_base - here : here - ps->stack_base;
    if (++ps->depth > MAX_DEPTH || used > MAX_STACK)
        return fail_at(ps, ps->tok.line, ps->tok.col,
                       "Syntax error: nested too deeply (more than %d levels)", MAX_DEPTH);
    return true;
}

/* Comma-separated expressions up to `close`. */
static bool parse_items(parser *ps, lsl_tok close, lsl_expr ***items, size_t *n, const char *what)
{
    size_t cap = 0;
    *items = NULL;
    *n = 0;
    if (ps->tok.kind == close)
        return advance(ps);
    for (;;) {
        lsl_expr *e = parse_expr(ps);
        if (!e || !append(ps, (void **)items, n, &cap, &e, sizeof e))
            return false;
        if (ps->tok.kind == T_COMMA) {
            advance(ps);
            continue;
        }
        return expect(ps, close, what);
    }
}

/* The components of `<...>`, as Second Life's grammar reads them: a vector
 * or rotation needs at least three, so in the first two `>` is a comparison
 * (`<1, 1>0, 1>` is <1, (1>0), 1>); from the third on, `>` closes the literal
 * unless an operand follows it (`<a, b, c > d, e>` is a rotation). */
static bool parse_components(parser *ps, lsl_expr ***items, size_t *n)
{
    size_t cap = 0;
    *items = NULL;
    *n = 0;
    for (;;) {
        lsl_expr *e = *n < 2 ? parse_expr(ps) : parse_expr_ng(ps, true);
        if (!e || !append(ps, (void **)items, n, &cap, &e, sizeof e))
            return false;
        if (ps->tok.kind == T_COMMA && *n < 4) {
            advance(ps);
            continue;
        }
        return expect(ps, T_GT, "to close the vector or rotation");
    }
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

static lsl_expr *parse_primary_inner(parser *ps)
{
    lsl_token t = ps->tok;
    lsl_expr *e = NULL;
    switch (t.kind) {
    case T_INT_LIT:
        if ((e = new_expr(ps, E_INT, t.line, t.col)))
            e->ival = t.ival;
        advance(ps);
        return e;
    case T_FLOAT_LIT:
        if ((e = new_expr(ps, E_FLOAT, t.line, t.col)))
            e->fval = t.fval;
        advance(ps);
        return e;
    case T_STRING_LIT:
        if ((e = new_expr(ps, E_STRING, t.line, t.col))) {
            e->sval = t.sval;
            e->slen = t.slen;
        }
        advance(ps);
        return e;
    case T_IDENT: {
        const char *name = ident_name(ps);
        advance(ps);
        if (ps->tok.kind == T_LPAREN) {
            advance(ps);
            if (!(e = new_expr(ps, E_CALL, t.line, t.col)))
                return NULL;
            e->name = name;
            if (!parse_items(ps, T_RPAREN, &e->items, &e->nitems, "after the call's arguments"))
                return NULL;
            return grown(ps, e);
        }
        if ((e = new_expr(ps, E_IDENT, t.line, t.col)))
            e->name = name;
        return e;
    }
    case T_PRINT:
        /* print(expr) is part of LSL's grammar (not a library function) */
        advance(ps);
        if (!(e = new_expr(ps, E_PRINT, t.line, t.col)) || !expect(ps, T_LPAREN, "after 'print'") ||
            !(e->lhs = parse_expr(ps)) || !expect(ps, T_RPAREN, "after print's argument"))
            return NULL;
        return grown(ps, e);
    case T_LPAREN: {
        advance(ps);
        e = parse_expr(ps);
        if (!e || !expect(ps, T_RPAREN, "to close the parenthesis"))
            return NULL;
        return e;
    }
    case T_LBRACKET:
        advance(ps);
        if (!(e = new_expr(ps, E_LIST, t.line, t.col)))
            return NULL;
        if (!parse_items(ps, T_RBRACKET, &e->items, &e->nitems, "to close the list"))
            return NULL;
        return grown(ps, e);
    case T_LT:
        advance(ps);
        if (!(e = new_expr(ps, E_VECTOR, t.line, t.col)))
            return NULL;
        if (!parse_components(ps, &e->items, &e->nitems))
            return NULL;
        if (e->nitems == 4)
            e->kind = E_ROTATION;
        else if (e->nitems != 3) {
            fail_at(ps, t.line, t.col, "a vector has 3 components and a rotation 4, not %zu",
                    e->nitems);
            return NULL;
        }
        return grown(ps, e);
    default: {
        char found[80];
        describe(&t, found, sizeof found);
        fail_at(ps, t.line, t.col, "expected an expression, found %s", found);
        return NULL;
    }
    }
}

/* A primary; the bracketed ones (parentheses, calls, lists, vectors,
 * print) are one level of nesting. */
static lsl_expr *parse_primary(parser *ps)
{
    lsl_tok k = ps->tok.kind;
    bool nests = k == T_LPAREN || k == T_LBRACKET || k == T_LT || k == T_PRINT ||
                 (k == T_IDENT && ps->next.kind == T_LPAREN);
    if (nests && !enter(ps))
        return NULL;
    lsl_expr *e = parse_primary_inner(ps);
    if (nests)
        ps->depth--;
    return ps->failed ? NULL : e;
}

static lsl_expr *parse_postfix(parser *ps)
{
    lsl_expr *e = parse_primary(ps);
    while (e && !ps->failed) {
        lsl_token t = ps->tok;
        if (t.kind == T_DOT) {
            if (e->kind != E_IDENT) {
                fail_at(ps, t.line, t.col, "Syntax error: only a variable has components (.x .y .z .s)");
                return NULL;
            }
            advance(ps);
            if (ps->tok.kind != T_IDENT || ps->tok.len != 1 || !strchr("xyzs", ps->tok.start[0])) {
                fail_at(ps, ps->tok.line, ps->tok.col, "expected a component x, y, z or s after '.'");
                return NULL;
            }
            lsl_expr *m = new_expr(ps, E_MEMBER, t.line, t.col);
            if (!m)
                return NULL;
            m->lhs = e;
            m->name = ident_name(ps);
            advance(ps);
            e = grown(ps, m);
        } else if (t.kind == T_INC || t.kind == T_DEC) {
            if (!is_lvalue(e)) {
                fail_at(ps, t.line, t.col, "%s needs a variable", lsl_tok_name(t.kind));
                return NULL;
            }
            advance(ps);
            lsl_expr *m = new_expr(ps, t.kind == T_INC ? E_POSTINC : E_POSTDEC, t.line, t.col);
            if (!m)
                return NULL;
            m->lhs = e;
            e = grown(ps, m);
        } else {
            break;
        }
    }
    return ps->failed ? NULL : e;
}

static lsl_expr *parse_unary(parser *ps, bool no_gt)
{
    lsl_token t = ps->tok;
    lsl_expr *e = NULL;
    bool top = ps->stmt_top;
    ps->stmt_top = false;
    /* a prefix operator or a cast is one level of nesting */
    bool nests = t.kind == T_MINUS || t.kind == T_NOT || t.kind == T_TILDE || t.kind == T_INC ||
                 t.kind == T_DEC || (t.kind == T_LPAREN && is_type_token(ps->next.kind));
    if (nests && !enter(ps))
        return NULL;
    if (t.kind == T_MINUS || t.kind == T_NOT || t.kind == T_TILDE) {
        advance(ps);
        lsl_expr *operand = parse_unary(ps, no_gt);
        if (operand && (e = new_expr(ps, E_UNARY, t.line, t.col))) {
            e->op = t.kind;
            e->lhs = operand;
            e = grown(ps, e);
        }
    } else if (t.kind == T_INC || t.kind == T_DEC) {
        advance(ps);
        lsl_expr *operand = parse_unary(ps, no_gt);
        if (operand && !is_lvalue(operand))
            fail_at(ps, t.line, t.col, "%s needs a variable", lsl_tok_name(t.kind));
        else if (operand && (e = new_expr(ps, t.kind == T_INC ? E_PREINC : E_PREDEC, t.line, t.col))) {
            e->lhs = operand;
            e = grown(ps, e);
        }
    } else if (t.kind == T_LPAREN && is_type_token(ps->next.kind)) {
        advance(ps);
        lsl_type type = type_of(ps->tok.kind);
        advance(ps);
        if (expect(ps, T_RPAREN, "after the cast's type")) {
            /* LSL's grammar casts a variable, a constant, a call, a literal or
             * a parenthesized expression: never another cast */
            if (ps->tok.kind == T_LPAREN && is_type_token(ps->next.kind)) {
                fail_at(ps, ps->tok.line, ps->tok.col,
                        "Syntax error: a cast cannot be cast again; put it in parentheses");
                ps->depth--;
                return NULL;
            }
            lsl_expr *operand = parse_unary(ps, no_gt);
            if (operand && (e = new_expr(ps, E_CAST, t.line, t.col))) {
                e->cast_type = type;
                e->lhs = operand;
                e = grown(ps, e);
            }
        }
    } else {
        e = parse_postfix(ps);
        if (e && is_lvalue(e) && is_assign_op(ps->tok.kind)) {
            /* an assignment as an operand: it has the lowest precedence and
             * binds to the right, so `c + e *= 4 + 1` is c + (e *= (4 + 1)) */
            lsl_token op = ps->tok;
            advance(ps);
            /* an assignment as an operand is one level of nesting (the
             * assignment a statement is, is not) */
            lsl_expr *rhs = top || enter(ps) ? parse_expr_ng(ps, no_gt) : NULL;
            if (!top)
                ps->depth--;
            lsl_expr *a = rhs ? new_expr(ps, E_ASSIGN, op.line, op.col) : NULL;
            if (a) {
                a->op = op.kind;
                a->lhs = e;
                a->rhs = rhs;
            }
            e = top ? a : grown(ps, a); /* a statement's assignment: no level */
            if (top && a)
                a->height = rhs->height + 1;
        }
    }
    if (nests)
        ps->depth--;
    return ps->failed ? NULL : e;
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

static lsl_expr *parse_binary(parser *ps, int min_prec, bool no_gt)
{
    /* recursion here is bounded by the 9 precedence levels: no depth */
    lsl_expr *lhs = parse_unary(ps, no_gt);
    while (lhs && !ps->failed) {
        lsl_token t = ps->tok;
        int prec = binary_prec(t.kind);
        if (prec == 0 || prec < min_prec || (no_gt && closes_vector(ps)))
            break;
        advance(ps);
        lsl_expr *rhs = parse_binary(ps, prec + 1, no_gt);
        lsl_expr *e = rhs ? new_expr(ps, E_BINARY, t.line, t.col) : NULL;
        if (!e) {
            lhs = NULL;
            break;
        }
        e->op = t.kind;
        e->lhs = lhs;
        e->rhs = rhs;
        lhs = grown(ps, e);
    }
    return ps->failed ? NULL : lhs;
}

/* An expression; `no_gt` inside a vector literal, where `>` closes it. */
static lsl_expr *parse_expr_ng(parser *ps, bool no_gt)
{
    /* the depth is counted by parse_unary, once per level of nesting */
    lsl_expr *lhs = parse_binary(ps, 1, no_gt);
    if (lhs && is_assign_op(ps->tok.kind)) /* a variable's assignment was taken by parse_unary */
        fail_at(ps, ps->tok.line, ps->tok.col, "the left side of %s must be a variable",
                lsl_tok_name(ps->tok.kind));
    return ps->failed ? NULL : lhs;
}

static lsl_expr *parse_expr(parser *ps)
{
    return parse_expr_ng(ps, false);
}

/* ---- statements ------------------------------------------------------------ */

static lsl_stmt *parse_stmt(parser *ps);
static lsl_stmt *parse_body(parser *ps);

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

static lsl_stmt *parse_block(parser *ps)
{
    lsl_token t = ps->tok;
    if (!expect(ps, T_LBRACE, "to open a block"))
        return NULL;
    lsl_stmt *b = new_stmt(ps, S_BLOCK, &t);
    size_t cap = 0;
    while (b && !ps->failed && ps->tok.kind != T_RBRACE) {
        if (ps->tok.kind == T_EOF) {
            fail_at(ps, t.line, t.col, "this '{' is never closed");
            return NULL;
        }
        lsl_stmt *s = parse_stmt(ps);
        if (!s || !append(ps, (void **)&b->stmts, &b->nstmts, &cap, &s, sizeof s))
            return NULL;
    }
    if (!expect(ps, T_RBRACE, "to close the block"))
        return NULL;
    return b;
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

static lsl_stmt *parse_stmt_inner(parser *ps)
{
    lsl_token t = ps->tok;
    lsl_stmt *s;
    switch (t.kind) {
    case T_LBRACE:
        return parse_block(ps);
    case T_SEMI:
        advance(ps);
        return new_stmt(ps, S_EMPTY, &t);
    case T_IF: {
        /* an if / else if / ... chain is read in a loop; each `else if`
         * nests one level deeper (as in Second Life's grammar and in the
         * tree the later passes walk), given back at the chain's end */
        lsl_stmt *first = NULL, *last = NULL;
        int links = 0;
        for (;;) {
            lsl_token it = ps->tok;
            advance(ps);
            if (!(s = new_stmt(ps, S_IF, &it)) || !expect(ps, T_LPAREN, "after 'if'") ||
                !(s->expr = parse_expr(ps)) || !expect(ps, T_RPAREN, "after the condition") ||
                !(s->body = parse_body(ps)))
                break;
            if (last)
                last->else_body = s;
            else
                first = s;
            last = s;
            if (ps->tok.kind != T_ELSE)
                break;
            advance(ps);
            if (ps->tok.kind != T_IF) {
                last->else_body = parse_body(ps);
                break;
            }
            if (!enter(ps))
                break;
            links++;
        }
        ps->depth -= links;
        return ps->failed ? NULL : first;
    }
    case T_WHILE:
        advance(ps);
        if (!(s = new_stmt(ps, S_WHILE, &t)) || !expect(ps, T_LPAREN, "after 'while'") ||
            !(s->expr = parse_expr(ps)) || !expect(ps, T_RPAREN, "after the condition") ||
            !(s->body = parse_body(ps)))
            return NULL;
        return s;
    case T_DO:
        advance(ps);
        if (!(s = new_stmt(ps, S_DO, &t)) || !(s->body = parse_body(ps)) ||
            !expect(ps, T_WHILE, "after the body of 'do'") ||
            !expect(ps, T_LPAREN, "after 'while'") || !(s->expr = parse_expr(ps)) ||
            !expect(ps, T_RPAREN, "after the condition") ||
            !expect(ps, T_SEMI, "after 'do ... while (...)'"))
            return NULL;
        return s;
    case T_FOR:
        advance(ps);
        if (!(s = new_stmt(ps, S_FOR, &t)) || !expect(ps, T_LPAREN, "after 'for'") ||
            !parse_expr_list(ps, T_SEMI, &s->init, &s->ninit) ||
            !expect(ps, T_SEMI, "after the for loop's initializers"))
            return NULL;
        if (ps->tok.kind != T_SEMI && !(s->expr = parse_expr(ps)))
            return NULL;
        if (!expect(ps, T_SEMI, "after the for loop's condition") ||
            !parse_expr_list(ps, T_RPAREN, &s->step, &s->nstep) ||
            !expect(ps, T_RPAREN, "after the for loop's steps") || !(s->body = parse_body(ps)))
            return NULL;
        return s;
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

/* A statement; a block in a block is one level of nesting (a function's
 * or handler's own block is not, nor is a block that is a body: the body
 * counted). */
static lsl_stmt *parse_stmt_nested(parser *ps, bool nests)
{
    if (nests && !enter(ps))
        return NULL;
    lsl_stmt *s = parse_stmt_inner(ps);
    if (nests)
        ps->depth--;
    return ps->failed ? NULL : s;
}

static lsl_stmt *parse_stmt(parser *ps) { return parse_stmt_nested(ps, ps->tok.kind == T_LBRACE); }

/* The body of if, else, while, do and for: Second Life refuses a
 * declaration there unless it is in braces. */
static lsl_stmt *parse_body(parser *ps)
{
    lsl_token t = ps->tok;
    lsl_stmt *s = parse_stmt_nested(ps, true);
    if (s && s->kind == S_DECL) {
        fail_at(ps, t.line, t.col, "Declaration requires a new scope -- use { and }");
        return NULL;
    }
    return s;
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
    ps.stack_base = stack_here();
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
    if (ps.failed)
        return err && err->status ? err->status : GSVM_ERR_INPUT;
    if (sc->nstates == 0 || !sc->states[0].is_default) {
        if (sc->nstates == 0)
            gsvm_error_at_line(err, GSVM_ERR_INPUT, file, ps.tok.line, ps.tok.col,
                               "the script has no default state");
        else
            gsvm_error_at_line(err, GSVM_ERR_INPUT, file, sc->states[0].line, sc->states[0].col,
                               "the first state must be 'default'");
        return GSVM_ERR_INPUT;
    }
    lsl_names seen = {0};
    for (size_t i = 0; i < sc->nstates; i++) {
        long before;
        if (lsl_names_get(&seen, sc->states[i].name, &before)) {
            lsl_names_free(&seen);
            gsvm_error_at_line(err, GSVM_ERR_INPUT, file, sc->states[i].line, sc->states[i].col,
                               "state '%s' is defined twice", sc->states[i].name);
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

/* ---- the front end's own stack ------------------------------------------------ */

/* Room for LSL_MAX_NESTING levels of the deepest pass (the parser's five
 * frames per parenthesis, the ABI 3 compiler's condition and expression
 * walks) with sanitizer-sized frames, twice over; only the pages a script
 * touches are ever committed. */
#define FRONT_STACK ((size_t)256 << 20)

typedef struct front_job {
    const char *src;
    size_t len;
    const char *file;
    lsl_compile_fn compile;
    void *ctx;
    gsvm_error *err;
    gsvm_status status;
} front_job;

static void *front_run(void *arg)
{
    front_job *j = arg;
    lsl_arena *arena = lsl_arena_new();
    if (!arena) {
        j->status = gsvm_error_set(j->err, GSVM_ERR_NOMEM, j->file, "out of memory");
        return NULL;
    }
    lsl_script *sc;
    j->status = lsl_parse(j->src, j->len, j->file, arena, &sc, j->err);
    if (j->status == GSVM_OK && !j->compile(sc, j->ctx))
        j->status = j->err && j->err->status ? j->err->status : GSVM_ERR_INPUT;
    lsl_arena_free(arena);
    return NULL;
}

gsvm_status lsl_front_end(const char *src, size_t len, const char *file, lsl_compile_fn compile,
                          void *ctx, gsvm_error *err)
{
    front_job j = {src, len, file, compile, ctx, err, GSVM_OK};
    pthread_attr_t attr;
    pthread_t th;
    if (pthread_attr_init(&attr) != 0)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
    bool started = pthread_attr_setstacksize(&attr, FRONT_STACK) == 0 &&
                   pthread_create(&th, &attr, front_run, &j) == 0;
    pthread_attr_destroy(&attr);
    if (!started)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, file,
                              "out of memory: no stack for the compiler (%zu MB)", FRONT_STACK >> 20);
    pthread_join(th, NULL);
    return j.status;
}
