#include "lsl/parser.h"

#include "lsl/names.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Deeper nesting than this is rejected, so hostile input cannot exhaust the
 * C stack of a recursive-descent parser. */
#define MAX_DEPTH 200

typedef struct parser {
    lsl_lexer lx;
    lsl_token tok;  /* current */
    lsl_token next; /* one token of lookahead */
    bool failed;
    int depth;
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

/* ---- expressions ---------------------------------------------------------- */

static lsl_expr *parse_expr(parser *ps);
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

static bool enter(parser *ps)
{
    if (++ps->depth > MAX_DEPTH)
        return fail_at(ps, ps->tok.line, ps->tok.col, "nested more than %d levels deep", MAX_DEPTH);
    return true;
}

/* Comma-separated expressions up to `close`; `no_gt` for vector components,
 * where '>' closes the literal instead of comparing. */
static bool parse_items(parser *ps, lsl_tok close, bool no_gt, lsl_expr ***items, size_t *n,
                        const char *what)
{
    size_t cap = 0;
    *items = NULL;
    *n = 0;
    if (ps->tok.kind == close)
        return advance(ps);
    for (;;) {
        lsl_expr *e = no_gt ? parse_binary(ps, 1, true) : parse_expr(ps);
        if (!e || !append(ps, (void **)items, n, &cap, &e, sizeof e))
            return false;
        if (ps->tok.kind == T_COMMA) {
            advance(ps);
            continue;
        }
        return expect(ps, close, what);
    }
}

static bool is_lvalue(const lsl_expr *e)
{
    return e->kind == E_IDENT || (e->kind == E_MEMBER && e->lhs->kind == E_IDENT);
}

static lsl_expr *parse_primary(parser *ps)
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
            if (!parse_items(ps, T_RPAREN, false, &e->items, &e->nitems, "after the call's arguments"))
                return NULL;
            return e;
        }
        if ((e = new_expr(ps, E_IDENT, t.line, t.col)))
            e->name = name;
        return e;
    }
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
        if (!parse_items(ps, T_RBRACKET, false, &e->items, &e->nitems, "to close the list"))
            return NULL;
        return e;
    case T_LT:
        advance(ps);
        if (!(e = new_expr(ps, E_VECTOR, t.line, t.col)))
            return NULL;
        if (!parse_items(ps, T_GT, true, &e->items, &e->nitems, "to close the vector or rotation"))
            return NULL;
        if (e->nitems == 4)
            e->kind = E_ROTATION;
        else if (e->nitems != 3) {
            fail_at(ps, t.line, t.col, "a vector has 3 components and a rotation 4, not %zu",
                    e->nitems);
            return NULL;
        }
        return e;
    default: {
        char found[80];
        describe(&t, found, sizeof found);
        fail_at(ps, t.line, t.col, "expected an expression, found %s", found);
        return NULL;
    }
    }
}

static lsl_expr *parse_postfix(parser *ps)
{
    lsl_expr *e = parse_primary(ps);
    while (e && !ps->failed) {
        lsl_token t = ps->tok;
        if (t.kind == T_DOT) {
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
            e = m;
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
            e = m;
        } else {
            break;
        }
    }
    return ps->failed ? NULL : e;
}

static lsl_expr *parse_unary(parser *ps, bool no_gt)
{
    lsl_token t = ps->tok;
    if (!enter(ps))
        return NULL;
    lsl_expr *e = NULL;
    if (t.kind == T_MINUS || t.kind == T_NOT || t.kind == T_TILDE) {
        advance(ps);
        lsl_expr *operand = parse_unary(ps, no_gt);
        if (operand && (e = new_expr(ps, E_UNARY, t.line, t.col))) {
            e->op = t.kind;
            e->lhs = operand;
        }
    } else if (t.kind == T_INC || t.kind == T_DEC) {
        advance(ps);
        lsl_expr *operand = parse_unary(ps, no_gt);
        if (operand && !is_lvalue(operand))
            fail_at(ps, t.line, t.col, "%s needs a variable", lsl_tok_name(t.kind));
        else if (operand && (e = new_expr(ps, t.kind == T_INC ? E_PREINC : E_PREDEC, t.line, t.col)))
            e->lhs = operand;
    } else if (t.kind == T_LPAREN && is_type_token(ps->next.kind)) {
        advance(ps);
        lsl_type type = type_of(ps->tok.kind);
        advance(ps);
        if (expect(ps, T_RPAREN, "after the cast's type")) {
            lsl_expr *operand = parse_unary(ps, no_gt);
            if (operand && (e = new_expr(ps, E_CAST, t.line, t.col))) {
                e->cast_type = type;
                e->lhs = operand;
            }
        }
    } else {
        e = parse_postfix(ps);
    }
    ps->depth--;
    return ps->failed ? NULL : e;
}

static lsl_expr *parse_binary(parser *ps, int min_prec, bool no_gt)
{
    if (!enter(ps))
        return NULL;
    lsl_expr *lhs = parse_unary(ps, no_gt);
    while (lhs && !ps->failed) {
        lsl_token t = ps->tok;
        int prec = binary_prec(t.kind);
        if (prec == 0 || prec < min_prec || (no_gt && (t.kind == T_GT || t.kind == T_SHR)))
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
        lhs = e;
    }
    ps->depth--;
    return ps->failed ? NULL : lhs;
}

static bool is_assign_op(lsl_tok k)
{
    return k == T_ASSIGN || k == T_PLUS_ASSIGN || k == T_MINUS_ASSIGN || k == T_STAR_ASSIGN ||
           k == T_SLASH_ASSIGN || k == T_PERCENT_ASSIGN;
}

static lsl_expr *parse_expr(parser *ps)
{
    if (!enter(ps))
        return NULL;
    lsl_expr *lhs = parse_binary(ps, 1, false);
    if (lhs && is_assign_op(ps->tok.kind)) {
        lsl_token t = ps->tok;
        if (!is_lvalue(lhs)) {
            fail_at(ps, t.line, t.col, "the left side of %s must be a variable",
                    lsl_tok_name(t.kind));
            lhs = NULL;
        } else {
            advance(ps);
            lsl_expr *rhs = parse_expr(ps); /* right-associative */
            lsl_expr *e = rhs ? new_expr(ps, E_ASSIGN, t.line, t.col) : NULL;
            if (e) {
                e->op = t.kind;
                e->lhs = lhs;
                e->rhs = rhs;
            }
            lhs = e;
        }
    }
    ps->depth--;
    return ps->failed ? NULL : lhs;
}

/* ---- statements ------------------------------------------------------------ */

static lsl_stmt *parse_stmt(parser *ps);

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
    case T_IF:
        advance(ps);
        if (!(s = new_stmt(ps, S_IF, &t)) || !expect(ps, T_LPAREN, "after 'if'") ||
            !(s->expr = parse_expr(ps)) || !expect(ps, T_RPAREN, "after the condition") ||
            !(s->body = parse_stmt(ps)))
            return NULL;
        if (ps->tok.kind == T_ELSE) {
            advance(ps);
            if (!(s->else_body = parse_stmt(ps)))
                return NULL;
        }
        return s;
    case T_WHILE:
        advance(ps);
        if (!(s = new_stmt(ps, S_WHILE, &t)) || !expect(ps, T_LPAREN, "after 'while'") ||
            !(s->expr = parse_expr(ps)) || !expect(ps, T_RPAREN, "after the condition") ||
            !(s->body = parse_stmt(ps)))
            return NULL;
        return s;
    case T_DO:
        advance(ps);
        if (!(s = new_stmt(ps, S_DO, &t)) || !(s->body = parse_stmt(ps)) ||
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
            !expect(ps, T_RPAREN, "after the for loop's steps") || !(s->body = parse_stmt(ps)))
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
        if (ps->tok.kind != T_IDENT) {
            char found[80];
            describe(&ps->tok, found, sizeof found);
            fail_at(ps, ps->tok.line, ps->tok.col, "expected a variable name after %s, found %s",
                    lsl_tok_name(t.kind), found);
            return NULL;
        }
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
    if (!(s = new_stmt(ps, S_EXPR, &t)) || !(s->expr = parse_expr(ps)) ||
        !expect(ps, T_SEMI, "after the expression"))
        return NULL;
    return s;
}

static lsl_stmt *parse_stmt(parser *ps)
{
    if (!enter(ps))
        return NULL;
    lsl_stmt *s = parse_stmt_inner(ps);
    ps->depth--;
    return ps->failed ? NULL : s;
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
        if (ps->tok.kind != T_IDENT)
            return fail_at(ps, ps->tok.line, ps->tok.col, "expected a parameter name");
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
        if (ps.tok.kind != T_IDENT) {
            char found[80];
            describe(&ps.tok, found, sizeof found);
            fail_at(&ps, ps.tok.line, ps.tok.col,
                    type ? "expected a name after %s, found %s"
                         : "expected a global, a function or a state%s, found %s",
                    type ? lsl_tok_name(t.kind) : "", found);
            break;
        }
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
    lsl_names_free(&seen);
    *out = sc;
    return GSVM_OK;
}
