/* The LSL parser: tokens to the tree of ast.h (helpers, statements, states
 * and the script; expressions are parser_expr.c's). */
#include "lsl/parser_int.h"

#include "lsl/builtins.h"
#include "lsl/names.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool lp_fail_at(parser *ps, long line, long col, const char *fmt, ...)
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

void lp_describe(const lsl_token *t, char *out, size_t size)
{
    if (t->kind == T_IDENT)
        snprintf(out, size, "identifier '%.*s'", (int)(t->len > 40 ? 40 : t->len), t->start);
    else
        snprintf(out, size, "%s", lsl_tok_name(t->kind));
}

bool lp_advance(parser *ps)
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

bool lp_expect(parser *ps, lsl_tok kind, const char *context)
{
    if (ps->failed)
        return false;
    if (ps->tok.kind != kind) {
        char found[80];
        lp_describe(&ps->tok, found, sizeof found);
        return lp_fail_at(ps, ps->tok.line, ps->tok.col, "expected %s %s, found %s",
                       lsl_tok_name(kind), context, found);
    }
    return lp_advance(ps);
}

static void *alloc(parser *ps, size_t size)
{
    void *p = lsl_arena_alloc(ps->arena, size);
    if (!p)
        lp_fail_at(ps, ps->tok.line, ps->tok.col, "out of memory");
    return p;
}

/* Appends to an arena array, doubling its capacity as needed. */
bool lp_append(parser *ps, void **arr, size_t *n, size_t *cap, const void *item, size_t elem)
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

const char *lp_ident_name(parser *ps)
{
    return lsl_arena_strndup(ps->arena, ps->tok.start, ps->tok.len);
}


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
        return lp_fail_at(ps, t->line, t->col, "Syntax error: '%.*s' is %s and cannot be declared",
                       (int)(t->len > 40 ? 40 : t->len), t->start, kind);
    }
    if (t->kind >= T_INTEGER && t->kind <= T_PRINT)
        return lp_fail_at(ps, t->line, t->col, "Syntax error: %s is a keyword and cannot be declared",
                       lsl_tok_name(t->kind));
    char found[80];
    lp_describe(t, found, sizeof found);
    return lp_fail_at(ps, t->line, t->col, "expected a name after %s, found %s", what_before, found);
}

lsl_type lp_type_of(lsl_tok k)
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

lsl_expr *lp_new_expr(parser *ps, lsl_expr_kind kind, long line, long col)
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
lsl_expr *lp_grown(parser *ps, lsl_expr *e)
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
        lp_fail_at(ps, e->line, e->col, "Syntax error: expression nested too deeply (more than %d levels)",
                MAX_DEPTH);
        return NULL;
    }
    return e;
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
    if (!lp_reserve(ps, (void **)&ps->ss, &ps->capss, ps->nss, sizeof f))
        return false;
    ps->ss[ps->nss++] = f;
    return true;
}

/* `{`: opens a block (its statements follow). */
static bool open_block(parser *ps)
{
    lsl_token t = ps->tok;
    if (!lp_expect(ps, T_LBRACE, "to open a block"))
        return false;
    lsl_stmt *b = new_stmt(ps, S_BLOCK, &t);
    return b && push_s(ps, (sframe){.kind = K_BLOCK, .t = t, .s = b});
}

/* `if (condition)`, up to its body. */
static lsl_stmt *if_header(parser *ps)
{
    lsl_token it = ps->tok;
    lsl_stmt *s;
    lp_advance(ps);
    if (!(s = new_stmt(ps, S_IF, &it)) || !lp_expect(ps, T_LPAREN, "after 'if'") ||
        !(s->expr = lp_parse_expr(ps)) || !lp_expect(ps, T_RPAREN, "after the condition"))
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
        lsl_expr *e = lp_parse_expr(ps);
        if (!e || !lp_append(ps, (void **)items, n, &cap, &e, sizeof e))
            return false;
        if (ps->tok.kind != T_COMMA)
            return true;
        lp_advance(ps);
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
        lp_advance(ps);
        if (!(s = new_stmt(ps, t.kind == T_JUMP ? S_JUMP : S_LABEL, &t)))
            return NULL;
        if (ps->tok.kind != T_IDENT) {
            lp_fail_at(ps, ps->tok.line, ps->tok.col, "expected a label name after %s",
                    lsl_tok_name(t.kind));
            return NULL;
        }
        s->name = lp_ident_name(ps);
        s->name_line = ps->tok.line;
        s->name_col = ps->tok.col;
        lp_advance(ps);
        if (!lp_expect(ps, T_SEMI, t.kind == T_JUMP ? "after the jump" : "after the label"))
            return NULL;
        return s;
    case T_RETURN:
        lp_advance(ps);
        if (!(s = new_stmt(ps, S_RETURN, &t)))
            return NULL;
        s->returns = true;
        if (ps->tok.kind != T_SEMI && !(s->expr = lp_parse_expr(ps)))
            return NULL;
        if (!lp_expect(ps, T_SEMI, "after 'return'"))
            return NULL;
        return s;
    case T_STATE:
        lp_advance(ps);
        if (!(s = new_stmt(ps, S_STATE, &t)))
            return NULL;
        if (ps->tok.kind != T_IDENT && ps->tok.kind != T_DEFAULT) {
            lp_fail_at(ps, ps->tok.line, ps->tok.col, "expected a state name after 'state'");
            return NULL;
        }
        s->name = ps->tok.kind == T_DEFAULT ? "default" : lp_ident_name(ps);
        s->name_line = ps->tok.line;
        s->name_col = ps->tok.col;
        lp_advance(ps);
        if (!lp_expect(ps, T_SEMI, "after the state change"))
            return NULL;
        return s;
    default:
        break;
    }
    if (is_type_token(t.kind)) {
        lp_advance(ps);
        if (!(s = new_stmt(ps, S_DECL, &t)))
            return NULL;
        s->decl_type = lp_type_of(t.kind);
        if (!decl_name_ok(ps, lsl_tok_name(t.kind)))
            return NULL;
        s->name = lp_ident_name(ps);
        s->name_line = ps->tok.line;
        s->name_col = ps->tok.col;
        lp_advance(ps);
        if (ps->tok.kind == T_ASSIGN) {
            lp_advance(ps);
            if (!(s->expr = lp_parse_expr(ps)))
                return NULL;
        }
        if (!lp_expect(ps, T_SEMI, "after the declaration"))
            return NULL;
        return s;
    }
    ps->stmt_top = true;
    if (!(s = new_stmt(ps, S_EXPR, &t)) || !(s->expr = lp_parse_expr(ps)) ||
        !lp_expect(ps, T_SEMI, "after the expression"))
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
                lp_advance(ps);
                done = k->s;
                for (size_t i = 0; i < done->nstmts; i++)
                    done->returns = done->returns || done->stmts[i]->returns;
                ps->nss--;
                step = DONE;
                continue;
            }
            if (ps->tok.kind == T_EOF) {
                lp_fail_at(ps, k->t.line, k->t.col, "this '{' is never closed");
                continue;
            }
            if (ps->tok.kind == T_LBRACE && (!lp_enter(ps) || !push_s(ps, (sframe){.kind = K_NESTED})))
                continue;
            step = STMT;
            continue;
        }
        case BODY: {
            lsl_token t = ps->tok;
            if (lp_enter(ps))
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
                lp_advance(ps);
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
                lp_advance(ps);
                if ((s = new_stmt(ps, S_WHILE, &t)) && lp_expect(ps, T_LPAREN, "after 'while'") &&
                    (s->expr = lp_parse_expr(ps)) && lp_expect(ps, T_RPAREN, "after the condition"))
                    push_s(ps, (sframe){.kind = K_WHILE, .s = s});
                step = BODY;
                continue;
            case T_DO:
                lp_advance(ps);
                if ((s = new_stmt(ps, S_DO, &t)))
                    push_s(ps, (sframe){.kind = K_DO, .s = s});
                step = BODY;
                continue;
            case T_FOR:
                lp_advance(ps);
                if (!(s = new_stmt(ps, S_FOR, &t)) || !lp_expect(ps, T_LPAREN, "after 'for'") ||
                    !parse_expr_list(ps, T_SEMI, &s->init, &s->ninit) ||
                    !lp_expect(ps, T_SEMI, "after the for loop's initializers"))
                    continue;
                if (ps->tok.kind != T_SEMI && !(s->expr = lp_parse_expr(ps)))
                    continue;
                if (lp_expect(ps, T_SEMI, "after the for loop's condition") &&
                    parse_expr_list(ps, T_RPAREN, &s->step, &s->nstep) &&
                    lp_expect(ps, T_RPAREN, "after the for loop's steps"))
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
                if (lp_append(ps, (void **)&k->s->stmts, &k->s->nstmts, &k->cap, &done, sizeof done))
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
                    lp_fail_at(ps, k->t.line, k->t.col, "Declaration requires a new scope -- use { and }");
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
                lp_advance(ps);
                if (ps->tok.kind != T_IF) {
                    k->kind = K_ELSE;
                    step = BODY;
                    continue;
                }
                if (lp_enter(ps)) {
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
                if (lp_expect(ps, T_WHILE, "after the body of 'do'") && lp_expect(ps, T_LPAREN, "after 'while'") &&
                    (k->s->expr = lp_parse_expr(ps)) && lp_expect(ps, T_RPAREN, "after the condition") &&
                    lp_expect(ps, T_SEMI, "after 'do ... while (...)'"))
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
    if (!lp_expect(ps, T_LPAREN, "to open the parameter list"))
        return false;
    if (ps->tok.kind == T_RPAREN)
        return lp_advance(ps);
    for (;;) {
        if (!is_type_token(ps->tok.kind)) {
            char found[80];
            lp_describe(&ps->tok, found, sizeof found);
            return lp_fail_at(ps, ps->tok.line, ps->tok.col, "expected a parameter type, found %s",
                           found);
        }
        lsl_param prm = {lp_type_of(ps->tok.kind), NULL, 0, 0};
        lp_advance(ps);
        if (!decl_name_ok(ps, "the parameter's type"))
            return false;
        prm.name = lp_ident_name(ps);
        prm.line = ps->tok.line;
        prm.col = ps->tok.col;
        lp_advance(ps);
        if (!lp_append(ps, (void **)&f->params, &f->nparams, &cap, &prm, sizeof prm))
            return false;
        if (ps->tok.kind == T_COMMA) {
            lp_advance(ps);
            continue;
        }
        return lp_expect(ps, T_RPAREN, "to close the parameter list");
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
        lp_advance(ps);
    } else {
        lp_advance(ps); /* 'state' */
        if (ps->tok.kind != T_IDENT)
            return lp_fail_at(ps, ps->tok.line, ps->tok.col, "expected a state name after 'state'");
        st.name = lp_ident_name(ps);
        lp_advance(ps);
    }
    lsl_token open = ps->tok;
    if (!lp_expect(ps, T_LBRACE, "to open the state"))
        return false;
    size_t ecap = 0;
    while (!ps->failed && ps->tok.kind != T_RBRACE) {
        if (ps->tok.kind == T_EOF)
            return lp_fail_at(ps, open.line, open.col, "this state's '{' is never closed");
        if (ps->tok.kind != T_IDENT) {
            char found[80];
            lp_describe(&ps->tok, found, sizeof found);
            return lp_fail_at(ps, ps->tok.line, ps->tok.col, "expected an event handler, found %s",
                           found);
        }
        lsl_func ev = {LSL_TYPE_VOID, lp_ident_name(ps), ps->tok.line, ps->tok.col, NULL, 0, NULL};
        lp_advance(ps);
        if (!parse_params(ps, &ev) || !(ev.body = parse_block(ps)))
            return false;
        if (!lp_append(ps, (void **)&st.events, &st.nevents, &ecap, &ev, sizeof ev))
            return false;
    }
    if (!ps->failed && st.nevents == 0)
        return lp_fail_at(ps, ps->tok.line, ps->tok.col,
                       "Syntax error: a state needs at least one event handler");
    if (!lp_expect(ps, T_RBRACE, "to close the state"))
        return false;
    return lp_append(ps, (void **)&sc->states, &sc->nstates, cap, &st, sizeof st);
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
    lp_advance(&ps);
    size_t gcap = 0, fcap = 0, scap = 0;
    while (!ps.failed && ps.tok.kind != T_EOF) {
        lsl_token t = ps.tok;
        if (t.kind == T_DEFAULT || t.kind == T_STATE) {
            parse_state(&ps, sc, &scap);
            continue;
        }
        if (sc->nstates) {
            lp_fail_at(&ps, t.line, t.col,
                    "globals and functions must come before the states (found %s)",
                    lsl_tok_name(t.kind));
            break;
        }
        lsl_type type = LSL_TYPE_VOID;
        if (is_type_token(t.kind)) {
            type = lp_type_of(t.kind);
            lp_advance(&ps);
        }
        if (type && !decl_name_ok(&ps, lsl_tok_name(t.kind)))
            break;
        if (ps.tok.kind != T_IDENT) {
            char found[80];
            lp_describe(&ps.tok, found, sizeof found);
            lp_fail_at(&ps, ps.tok.line, ps.tok.col, "expected a global, a function or a state, found %s",
                    found);
            break;
        }
        if (!type && !decl_name_ok(&ps, ""))
            break;
        const char *name = lp_ident_name(&ps);
        long nline = ps.tok.line, ncol = ps.tok.col;
        lp_advance(&ps);
        if (ps.tok.kind == T_LPAREN) {
            lsl_func f = {type, name, nline, ncol, NULL, 0, NULL};
            if (!parse_params(&ps, &f) || !(f.body = parse_block(&ps)))
                break;
            lp_append(&ps, (void **)&sc->funcs, &sc->nfuncs, &fcap, &f, sizeof f);
            continue;
        }
        if (type == LSL_TYPE_VOID) {
            lp_fail_at(&ps, t.line, t.col, "expected a type before the global '%s'", name);
            break;
        }
        lsl_global g = {type, name, nline, ncol, NULL};
        if (ps.tok.kind == T_ASSIGN) {
            lp_advance(&ps);
            if (!(g.init = lp_parse_expr(&ps)))
                break;
        }
        if (!lp_expect(&ps, T_SEMI, "after the global declaration"))
            break;
        lp_append(&ps, (void **)&sc->globals, &sc->nglobals, &gcap, &g, sizeof g);
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
