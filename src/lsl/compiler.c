/* The ABI-2 code generator: walks the syntax tree the parser built for the
 * whole language and emits Falcon p-code for the slice ABI 2 defines — one
 * `default` state, integer and string globals and locals, integer + - *,
 * string concatenation, < > ==, the (string) cast, while, if/else,
 * state_entry, touch_start(integer), llOwnerSay and llSay.  Assignment
 * forms (=, +=, -=, *=, ++, --) and unary minus are lowered onto those same
 * opcodes.  Everything else is rejected with a diagnostic at its line:col.
 *
 * Static typing picks the integer or string opcode, checks casts and checks
 * host-call arguments, so a program this compiler emits never hits a type
 * fault at run time. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsl/compiler_int.h"
#include "lsl/parser.h"

/* Integer constants a script may name; folded into PushConst. */
static const struct {
    const char *name;
    int32_t value;
} int_constants[] = {
    {"TRUE", 1}, {"FALSE", 0}, {"PUBLIC_CHANNEL", 0}, {"DEBUG_CHANNEL", 2147483647},
};

bool c2_fail(compiler *c, long line, long col, const char *fmt, ...)
{
    if (c->failed)
        return false;
    c->failed = true;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gsvm_error_at_line(c->err, GSVM_ERR_INPUT, c->file, line, col, "%s", msg);
    return false;
}

/* Room for element n of a work stack. */
bool c2_reserve(compiler *c, void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return true;
    size_t nc = *cap ? *cap * 2 : 64;
    void *na = realloc(*arr, nc * elem);
    if (!na)
        return c2_fail(c, 0, 0, "out of memory");
    *arr = na;
    *cap = nc;
    return true;
}

bool c2_supported_type(compiler *c, lsl_type t, long line, long col)
{
    if (t == LSL_TYPE_INTEGER || t == LSL_TYPE_STRING)
        return true;
    return c2_fail(c, line, col, "type '%s' is not supported by ABI 2 (it has integer and string)",
                   lsl_type_name(t));
}

long c2_emit(compiler *c, fal_op op, int32_t a, int32_t b)
{
    long at = fal_program_emit(c->p, op, a, b);
    if (at < 0)
        c2_fail(c, 0, 0, "out of memory");
    return at;
}

static void patch(compiler *c, long at, size_t target)
{
    if (at >= 0)
        c->p->code[at].a = (int32_t)target;
}

bool c2_push_int(compiler *c, int32_t v)
{
    long k = fal_program_const_int(c->p, v);
    return k >= 0 ? c2_emit(c, FOP_PUSH_CONST, (int32_t)k, 0) >= 0 : c2_fail(c, 0, 0, "out of memory");
}

bool c2_push_str(compiler *c, const char *s, size_t len)
{
    long k = fal_program_const_str(c->p, s, len);
    return k >= 0 ? c2_emit(c, FOP_PUSH_CONST, (int32_t)k, 0) >= 0 : c2_fail(c, 0, 0, "out of memory");
}

/* ---- names --------------------------------------------------------------------- */

bool c2_find_var(compiler *c, const char *name, var_ref *out)
{
    long i;
    if (lsl_names_get(&c->local_names, name, &i) && i >= 0) {
        *out = (var_ref){false, c->locals[i].slot, c->locals[i].type};
        return true;
    }
    if (lsl_names_get(&c->global_names, name, &i)) {
        *out = (var_ref){true, (int)i, c->globals[i].type};
        return true;
    }
    return false;
}

bool c2_find_int_constant(const char *name, int32_t *out)
{
    for (size_t i = 0; i < sizeof int_constants / sizeof int_constants[0]; i++)
        if (strcmp(int_constants[i].name, name) == 0) {
            *out = int_constants[i].value;
            return true;
        }
    return false;
}

static bool declare_local(compiler *c, const char *name, lsl_type type, long line, long col,
                          int *slot)
{
    long prev = -1;
    if (!lsl_names_get(&c->local_names, name, &prev))
        prev = -1;
    if (prev >= 0 && c->locals[prev].depth == c->depth)
        return c2_fail(c, line, col, "Name previously declared within scope: '%s' is already declared in this scope", name);
    if (c->nlocals == c->caplocals) {
        size_t nc = c->caplocals ? c->caplocals * 2 : 16;
        local_var *nl = realloc(c->locals, nc * sizeof *nl);
        if (!nl)
            return c2_fail(c, line, col, "out of memory");
        c->locals = nl;
        c->caplocals = nc;
    }
    if (c->nlocals >= FAL_MAX_LOCALS)
        return c2_fail(c, line, col, "more than %u local variables", FAL_MAX_LOCALS);
    /* Slots are reused once a block's variables go out of scope. */
    *slot = (int)c->nlocals;
    if (!lsl_names_set(&c->local_names, name, (long)c->nlocals))
        return c2_fail(c, line, col, "out of memory");
    c->locals[c->nlocals++] = (local_var){name, type, *slot, c->depth, prev};
    if ((int)c->nlocals > c->max_slots)
        c->max_slots = (int)c->nlocals;
    return true;
}

static void leave_scope(compiler *c)
{
    while (c->nlocals && c->locals[c->nlocals - 1].depth == c->depth) {
        c->nlocals--;
        /* cannot fail: the name is already in the map */
        lsl_names_set(&c->local_names, c->locals[c->nlocals].name, c->locals[c->nlocals].prev);
    }
    c->depth--;
}

/* ---- statements ---------------------------------------------------------------- */


/* A statement without a body (no S_BLOCK, S_IF or S_WHILE). */
static bool cstmt_leaf(compiler *c, const lsl_stmt *s)
{
    switch (s->kind) {
    case S_EMPTY:
        return true;
    case S_EXPR:
        return c2_cexpr_stmt(c, s->expr);
    case S_DECL: {
        if (!c2_supported_type(c, s->decl_type, s->line, s->col))
            return false;
        if (s->expr) {
            lsl_type t = c2_cexpr(c, s->expr);
            if (c->failed)
                return false;
            if (t != s->decl_type)
                return c2_fail(c, s->expr->line, s->expr->col, "Type mismatch: cannot initialize %s '%s' with %s",
                               lsl_type_name(s->decl_type), s->name, lsl_type_name(t));
        } else if (!(s->decl_type == LSL_TYPE_INTEGER ? c2_push_int(c, 0) : c2_push_str(c, "", 0))) {
            return false; /* LSL gives declared locals 0 or "" */
        }
        int slot;
        if (!declare_local(c, s->name, s->decl_type, s->name_line, s->name_col, &slot))
            return false;
        return c2_emit(c, FOP_STORE_LOCAL, slot, 0) >= 0;
    }
    case S_DO:
        return c2_fail(c, s->line, s->col, "'do ... while' loops are not supported by ABI 2");
    case S_FOR:
        return c2_fail(c, s->line, s->col, "'for' loops are not supported by ABI 2");
    case S_JUMP:
    case S_LABEL:
        return c2_fail(c, s->line, s->col, "jumps and labels are not supported by ABI 2");
    case S_STATE:
        return c2_fail(c, s->line, s->col, "state changes are not supported by ABI 2");
    case S_RETURN:
        if (s->expr)
            return c2_fail(c, s->expr->line, s->expr->col, "Return statement type doesn't match function return type: an event handler cannot return a value");
        return c2_emit(c, FOP_HALT, 0, 0) >= 0;
    case S_BLOCK: case S_IF: case S_WHILE:
        break; /* cstmt's */
    }
    return c2_fail(c, s->line, s->col, "unknown statement");
}

/* A statement being compiled by cstmt: `stage` counts its steps; `i` the
 * block's statements started, `jz` a pending jump, `chain` an if chain's
 * jumps to its end, `start` a loop's first instruction. */
typedef struct sframe {
    const lsl_stmt *s; /* S_IF: the if of the chain being compiled */
    int stage;
    size_t i;
    uint32_t line, col; /* the code position to restore when it is done */
    long jz, chain;
    size_t start;
} sframe;

static bool push_stmt(compiler *c, const lsl_stmt *s)
{
    if (!c2_reserve(c, (void **)&c->sf, &c->capsf, c->nsf, sizeof *c->sf))
        return false;
    c->sf[c->nsf++] = (sframe){.s = s, .line = c->p->at_line, .col = c->p->at_col};
    if (s->line > 0) {
        c->p->at_line = (uint32_t)s->line;
        c->p->at_col = (uint32_t)s->col;
    }
    return true;
}

/* Compiles a statement and every statement in it, without recursion: each
 * block, if chain and while loop whose body is being compiled is a frame
 * on c->sf.  Each statement's instructions carry its line:col. */
static bool cstmt(compiler *c, const lsl_stmt *root)
{
    size_t base = c->nsf;
    uint32_t line0 = c->p->at_line, col0 = c->p->at_col;
    if (!push_stmt(c, root))
        return false;
    while (c->nsf > base) {
        sframe *f = &c->sf[c->nsf - 1];
        const lsl_stmt *s = f->s;
        const lsl_stmt *child = NULL;
        if (c->failed)
            goto done;
        switch (s->kind) {
        case S_BLOCK:
            if (f->stage++ == 0)
                c->depth++;
            if (f->i < s->nstmts) {
                child = s->stmts[f->i++];
                break;
            }
            leave_scope(c);
            break;
        case S_IF:
            /* an else-if chain in one frame; the jumps to its end are chained
             * through their operands until patched */
            if (f->stage == 0) {
                f->chain = -1;
                f->stage = 1; /* the test of f->s */
            } else if (f->stage == 2) { /* the body of f->s is compiled */
                if (!s->else_body) {
                    patch(c, f->jz, c->p->ncode);
                    f->stage = 4;
                } else {
                    long jend = c2_emit(c, FOP_JUMP, (int32_t)f->chain, 0);
                    if (jend < 0)
                        break;
                    f->chain = jend;
                    patch(c, f->jz, c->p->ncode);
                    if (s->else_body->kind != S_IF) {
                        f->stage = 3;
                        child = s->else_body;
                        break;
                    }
                    f->s = s = s->else_body;
                    f->stage = 1;
                }
            } else if (f->stage == 3) { /* the final else is compiled */
                f->stage = 4;
            }
            if (f->stage == 1) {
                if (!c2_ccondition(c, s->expr, "if"))
                    break;
                f->jz = c2_emit(c, FOP_JUMP_IF_ZERO, 0, 0);
                f->stage = 2;
                child = s->body;
                break;
            }
            while (f->chain >= 0 && !c->failed) {
                long next = c->p->code[f->chain].a;
                patch(c, f->chain, c->p->ncode);
                f->chain = next;
            }
            break;
        case S_WHILE:
            /* <cond>, JumpIfZero end, <body>, Jump start, end: */
            if (f->stage++ == 0) {
                f->start = c->p->ncode;
                if (!c2_ccondition(c, s->expr, "while"))
                    break;
                f->jz = c2_emit(c, FOP_JUMP_IF_ZERO, 0, 0);
                child = s->body;
                break;
            }
            c2_emit(c, FOP_JUMP, (int32_t)f->start, 0);
            patch(c, f->jz, c->p->ncode);
            break;
        default:
            cstmt_leaf(c, s);
            break;
        }
        if (child && push_stmt(c, child))
            continue;
    done:
        c->p->at_line = f->line;
        c->p->at_col = f->col;
        c->nsf--;
        if (c->failed) { /* a statement's error ends the compilation */
            while (c->nsf > base) {
                f = &c->sf[--c->nsf];
                if (f->s->kind == S_BLOCK && f->stage > 0)
                    leave_scope(c);
            }
            c->p->at_line = line0;
            c->p->at_col = col0;
            return false;
        }
    }
    return true;
}

/* ---- top level -------------------------------------------------------------------- */

/* A global's initializer must be a constant: a literal, a negated integer
 * literal, a named constant or an earlier global. */
static bool global_init(compiler *c, const lsl_global *g, fal_pvalue *out)
{
    const lsl_expr *e = g->init;
    memset(out, 0, sizeof *out);
    out->type = g->type == LSL_TYPE_INTEGER ? GSVM_LSL_INTEGER : GSVM_LSL_STRING;
    out->s = "";
    if (!e)
        return true;
    lsl_type t = LSL_TYPE_VOID;
    if (e->kind == E_INT) {
        t = LSL_TYPE_INTEGER;
        out->i = e->ival;
    } else if (e->kind == E_UNARY && e->op == T_MINUS && e->lhs->kind == E_INT) {
        t = LSL_TYPE_INTEGER;
        out->i = (int32_t)(0u - (uint32_t)e->lhs->ival);
    } else if (e->kind == E_STRING) {
        t = LSL_TYPE_STRING;
        out->s = (char *)e->sval;
        out->len = (uint32_t)e->slen;
    } else if (e->kind == E_IDENT) {
        var_ref v = {false, 0, LSL_TYPE_VOID};
        int32_t k;
        if (c2_find_var(c, e->name, &v)) {
            t = v.type;
            *out = c->p->globals[v.slot];
        } else if (c2_find_int_constant(e->name, &k)) {
            t = LSL_TYPE_INTEGER;
            out->i = k;
        } else {
            return c2_fail(c, e->line, e->col, "Name not defined within scope: undeclared variable '%s'", e->name);
        }
    } else if (e->kind == E_FLOAT || e->kind == E_VECTOR || e->kind == E_ROTATION ||
               e->kind == E_LIST) {
        c2_cexpr(c, e); /* reports the unsupported type */
        return false;
    } else {
        return c2_fail(c, e->line, e->col, "Syntax error: a global's initializer must be a constant");
    }
    if (t != g->type)
        return c2_fail(c, e->line, e->col, "Type mismatch: cannot initialize %s '%s' with %s", lsl_type_name(g->type),
                       g->name, lsl_type_name(t));
    return true;
}

static bool cevent(compiler *c, const lsl_state *st, const lsl_func *ev)
{
    static const struct {
        const char *name;
        int nparams;
    } events[] = {{"state_entry", 0}, {"touch_start", 1}};
    int want = -1;
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++)
        if (strcmp(events[i].name, ev->name) == 0)
            want = events[i].nparams;
    if (want < 0)
        return c2_fail(c, ev->line, ev->col,
                       "event '%s' is not supported by ABI 2 (it has state_entry and touch_start)",
                       ev->name);
    for (const lsl_func *o = st->events; o < ev; o++)
        if (strcmp(o->name, ev->name) == 0)
            return c2_fail(c, ev->line, ev->col, "Name previously declared within scope: event '%s' is handled twice in this state", ev->name);
    if ((int)ev->nparams != want || (want == 1 && ev->params[0].type != LSL_TYPE_INTEGER))
        return c2_fail(c, ev->line, ev->col, "%s", want ? "Syntax error: touch_start takes (integer num_detected)"
                                                     : "Syntax error: state_entry takes no parameters");
    c->nlocals = 0;
    lsl_names_clear(&c->local_names);
    c->max_slots = 0;
    c->depth = 1;
    uint8_t types[1];
    for (size_t i = 0; i < ev->nparams; i++) {
        int slot;
        if (!declare_local(c, ev->params[i].name, ev->params[i].type, ev->params[i].line,
                           ev->params[i].col, &slot))
            return false;
        types[i] = GSVM_LSL_INTEGER;
    }
    size_t entry = c->p->ncode;
    c->p->at_line = (uint32_t)ev->line; /* the final Halt: the handler's own position */
    c->p->at_col = (uint32_t)ev->col;
    if (!cstmt(c, ev->body) || c2_emit(c, FOP_HALT, 0, 0) < 0)
        return false;
    if (fal_program_event(c->p, ev->name, (uint32_t)entry, types, (uint32_t)ev->nparams,
                          (uint32_t)c->max_slots) < 0)
        return c2_fail(c, ev->line, ev->col, "out of memory");
    return true;
}

static bool compile_script(compiler *c, const lsl_script *sc)
{
    if (sc->nfuncs)
        return c2_fail(c, sc->funcs[0].line, sc->funcs[0].col,
                       "user-defined functions are not supported by ABI 2");
    if (sc->nstates > 1)
        return c2_fail(c, sc->states[1].line, sc->states[1].col,
                       "states other than 'default' are not supported by ABI 2");
    c->globals = calloc(sc->nglobals ? sc->nglobals : 1, sizeof *c->globals);
    if (!c->globals)
        return c2_fail(c, 1, 1, "out of memory");
    for (size_t i = 0; i < sc->nglobals; i++) {
        const lsl_global *g = &sc->globals[i];
        if (!c2_supported_type(c, g->type, g->line, g->col))
            return false;
        long seen;
        if (lsl_names_get(&c->global_names, g->name, &seen))
            return c2_fail(c, g->line, g->col, "Name previously declared within scope: global '%s' is declared twice", g->name);
        fal_pvalue def;
        if (!global_init(c, g, &def))
            return false;
        if (fal_program_global(c->p, g->name, def) < 0)
            return c2_fail(c, g->line, g->col, "out of memory");
        /* registered after its initializer, so `integer a = a;` is an error */
        if (!lsl_names_set(&c->global_names, g->name, (long)c->nglobals))
            return c2_fail(c, g->line, g->col, "out of memory");
        c->globals[c->nglobals++] = (global_var){g->name, g->type};
    }
    const lsl_state *st = &sc->states[0];
    for (size_t i = 0; i < st->nevents; i++)
        if (!cevent(c, st, &st->events[i]))
            return false;
    if (c->p->oom)
        return c2_fail(c, 1, 1, "out of memory");
    return true;
}

static bool compile_tree(const lsl_script *sc, void *ctx) { return compile_script(ctx, sc); }

gsvm_status gsvm_lsl_compile(const char *source, size_t len, const char *file,
                             gsvm_lsl_program **out, gsvm_error *err)
{
    *out = NULL;
    compiler c;
    memset(&c, 0, sizeof c);
    c.file = file;
    c.err = err;
    c.p = fal_program_new();
    if (!c.p)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
    gsvm_status st = lsl_front_end(source, len, file, compile_tree, &c, err);
    free(c.globals);
    free(c.locals);
    free(c.ef);
    free(c.sf);
    lsl_names_free(&c.global_names);
    lsl_names_free(&c.local_names);
    if (st != GSVM_OK) {
        gsvm_lsl_program_free(c.p);
        return st;
    }
    *out = c.p;
    return GSVM_OK;
}
