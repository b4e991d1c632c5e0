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

#include "lsl/arena.h"
#include "lsl/ast.h"
#include "lsl/names.h"
#include "lsl/parser.h"
#include "lsl/program.h"

typedef struct local_var {
    const char *name;
    lsl_type type;
    int slot;
    int depth;
    long prev; /* the outer local this one shadows, or -1 */
} local_var;

typedef struct global_var {
    const char *name;
    lsl_type type;
} global_var;

typedef struct compiler {
    gsvm_lsl_program *p;
    const char *file;
    gsvm_error *err;
    bool failed;
    global_var *globals;
    size_t nglobals;
    local_var *locals;
    size_t nlocals, caplocals;
    int depth;
    int max_slots;
    lsl_names global_names; /* name -> global index */
    lsl_names local_names;  /* name -> innermost local index, -1 when none */
    /* the passes' work stacks (heap): no pass recurses over the tree */
    struct eframe *ef; /* cexpr */
    size_t nef, capef;
    struct sframe *sf; /* cstmt */
    size_t nsf, capsf;
} compiler;

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

/* Integer constants a script may name; folded into PushConst. */
static const struct {
    const char *name;
    int32_t value;
} int_constants[] = {
    {"TRUE", 1}, {"FALSE", 0}, {"PUBLIC_CHANNEL", 0}, {"DEBUG_CHANNEL", 2147483647},
};

static bool fail(compiler *c, long line, long col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool fail(compiler *c, long line, long col, const char *fmt, ...)
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
static bool reserve(compiler *c, void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return true;
    size_t nc = *cap ? *cap * 2 : 64;
    void *na = realloc(*arr, nc * elem);
    if (!na)
        return fail(c, 0, 0, "out of memory");
    *arr = na;
    *cap = nc;
    return true;
}

static bool supported_type(compiler *c, lsl_type t, long line, long col)
{
    if (t == LSL_TYPE_INTEGER || t == LSL_TYPE_STRING)
        return true;
    return fail(c, line, col, "type '%s' is not supported by ABI 2 (it has integer and string)",
                lsl_type_name(t));
}

static long emit(compiler *c, fal_op op, int32_t a, int32_t b)
{
    long at = fal_program_emit(c->p, op, a, b);
    if (at < 0)
        fail(c, 0, 0, "out of memory");
    return at;
}

static void patch(compiler *c, long at, size_t target)
{
    if (at >= 0)
        c->p->code[at].a = (int32_t)target;
}

static bool push_int(compiler *c, int32_t v)
{
    long k = fal_program_const_int(c->p, v);
    return k >= 0 ? emit(c, FOP_PUSH_CONST, (int32_t)k, 0) >= 0 : fail(c, 0, 0, "out of memory");
}

static bool push_str(compiler *c, const char *s, size_t len)
{
    long k = fal_program_const_str(c->p, s, len);
    return k >= 0 ? emit(c, FOP_PUSH_CONST, (int32_t)k, 0) >= 0 : fail(c, 0, 0, "out of memory");
}

/* ---- names --------------------------------------------------------------------- */

typedef struct var_ref {
    bool global;
    int slot;
    lsl_type type;
} var_ref;

static bool find_var(compiler *c, const char *name, var_ref *out)
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

static bool find_int_constant(const char *name, int32_t *out)
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
        return fail(c, line, col, "Name previously declared within scope: '%s' is already declared in this scope", name);
    if (c->nlocals == c->caplocals) {
        size_t nc = c->caplocals ? c->caplocals * 2 : 16;
        local_var *nl = realloc(c->locals, nc * sizeof *nl);
        if (!nl)
            return fail(c, line, col, "out of memory");
        c->locals = nl;
        c->caplocals = nc;
    }
    if (c->nlocals >= FAL_MAX_LOCALS)
        return fail(c, line, col, "more than %u local variables", FAL_MAX_LOCALS);
    /* Slots are reused once a block's variables go out of scope. */
    *slot = (int)c->nlocals;
    if (!lsl_names_set(&c->local_names, name, (long)c->nlocals))
        return fail(c, line, col, "out of memory");
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

/* ---- expressions ------------------------------------------------------------------ */

static lsl_type cexpr(compiler *c, const lsl_expr *e);
static bool has_side_effect(const lsl_expr *e);

static const char *op_text(lsl_tok op)
{
    return lsl_tok_name(op);
}

static bool load_var(compiler *c, const var_ref *v)
{
    return emit(c, v->global ? FOP_LOAD_GLOBAL : FOP_LOAD_LOCAL, v->slot, 0) >= 0;
}

static bool store_var(compiler *c, const var_ref *v)
{
    return emit(c, v->global ? FOP_STORE_GLOBAL : FOP_STORE_LOCAL, v->slot, 0) >= 0;
}

/* The variable an assignment or ++/-- targets. */
static bool target_var(compiler *c, const lsl_expr *lv, var_ref *v)
{
    if (lv->kind == E_MEMBER)
        return fail(c, lv->line, lv->col,
                    "vector and rotation components are not supported by ABI 2");
    if (!find_var(c, lv->name, v)) {
        int32_t k;
        if (find_int_constant(lv->name, &k))
            return fail(c, lv->line, lv->col, "Syntax error: cannot assign to the constant %s", lv->name);
        return fail(c, lv->line, lv->col, "Name not defined within scope: undeclared variable '%s'", lv->name);
    }
    return true;
}

/* Emits `var = var OP value-on-stack` for the assignment forms. */
static bool combine(compiler *c, lsl_tok op, lsl_type vt, lsl_type rt, long line, long col)
{
    if (op == T_SLASH_ASSIGN || op == T_PERCENT_ASSIGN)
        return fail(c, line, col, "operator %s is not supported by ABI 2", op_text(op));
    if (vt != rt)
        return fail(c, line, col, "Type mismatch: cannot apply %s to %s and %s", op_text(op), lsl_type_name(vt),
                    lsl_type_name(rt));
    if (vt == LSL_TYPE_STRING) {
        if (op != T_PLUS_ASSIGN)
            return fail(c, line, col, "Type mismatch: operator %s needs integers, not strings", op_text(op));
        return emit(c, FOP_CONCAT_STR, 0, 0) >= 0;
    }
    fal_op fop = op == T_PLUS_ASSIGN ? FOP_ADD_INT : op == T_MINUS_ASSIGN ? FOP_SUB_INT : FOP_MUL_INT;
    return emit(c, fop, 0, 0) >= 0;
}

/* An assignment (E_ASSIGN) up to its right side: the variable, and for a
 * compound one its value on the stack. */
static bool cassign_target(compiler *c, const lsl_expr *e, var_ref *v)
{
    if (!target_var(c, e->lhs, v))
        return false;
    if (e->op != T_ASSIGN && has_side_effect(e->rhs))
        return fail(c, e->line, e->col,
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
                fail(c, e->line, e->col, "Type mismatch: cannot assign %s to '%s', which is %s",
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
        return cassign_store(c, e, want, &v, cexpr(c, e->rhs));
    }
    if (!target_var(c, e->lhs, &v))
        return LSL_TYPE_VOID;
    /* ++ and -- */
    bool inc = e->kind == E_PREINC || e->kind == E_POSTINC;
    bool post = e->kind == E_POSTINC || e->kind == E_POSTDEC;
    if (v.type != LSL_TYPE_INTEGER) {
        fail(c, e->line, e->col, "Type mismatch: %s needs an integer variable, '%s' is %s", inc ? "'++'" : "'--'",
             e->lhs->name, lsl_type_name(v.type));
        return LSL_TYPE_VOID;
    }
    if (want && post && !load_var(c, &v)) /* the old value stays below */
        return LSL_TYPE_VOID;
    if (!load_var(c, &v) || !push_int(c, 1) || emit(c, inc ? FOP_ADD_INT : FOP_SUB_INT, 0, 0) < 0 ||
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
        return push_int(c, e->ival) ? LSL_TYPE_INTEGER : LSL_TYPE_VOID;
    case E_STRING:
        return push_str(c, e->sval, e->slen) ? LSL_TYPE_STRING : LSL_TYPE_VOID;
    case E_FLOAT:
        supported_type(c, LSL_TYPE_FLOAT, e->line, e->col);
        return LSL_TYPE_VOID;
    case E_VECTOR:
    case E_ROTATION:
    case E_LIST:
        supported_type(c, e->kind == E_VECTOR ? LSL_TYPE_VECTOR : e->kind == E_ROTATION ? LSL_TYPE_ROTATION
                                                                                 : LSL_TYPE_LIST,
                       e->line, e->col);
        return LSL_TYPE_VOID;
    case E_IDENT: {
        var_ref v = {false, 0, LSL_TYPE_VOID};
        int32_t k;
        if (find_var(c, e->name, &v))
            return load_var(c, &v) ? v.type : LSL_TYPE_VOID;
        if (find_int_constant(e->name, &k))
            return push_int(c, k) ? LSL_TYPE_INTEGER : LSL_TYPE_VOID;
        fail(c, e->line, e->col, "Name not defined within scope: undeclared variable '%s'", e->name);
        return LSL_TYPE_VOID;
    }
    case E_PREINC:
    case E_PREDEC:
    case E_POSTINC:
    case E_POSTDEC:
        return cassign(c, e, true);
    case E_MEMBER:
        fail(c, e->line, e->col, "vector and rotation components are not supported by ABI 2");
        return LSL_TYPE_VOID;
    case E_PRINT:
        fail(c, e->line, e->col, "print is not supported by ABI 2");
        return LSL_TYPE_VOID;
    default:
        fail(c, e->line, e->col, "unknown expression");
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
    if (!reserve(c, (void **)&c->ef, &c->capef, c->nef, sizeof *c->ef))
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
static lsl_type cexpr(compiler *c, const lsl_expr *root)
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
                    fail(c, e->line, e->col,
                         "function '%s' is not supported by ABI 2 (it has llOwnerSay and llSay)", e->name);
                    break;
                }
                if ((int)e->nitems != f->sig->nparams) {
                    fail(c, e->line, e->col, "Function call mismatches type or number of arguments: %s takes %d argument%s, got %zu", f->sig->name, f->sig->nparams,
                         f->sig->nparams == 1 ? "" : "s", e->nitems);
                    break;
                }
            } else if (r != f->sig->params[f->i - 1]) {
                const lsl_expr *a = e->items[f->i - 1];
                fail(c, a->line, a->col, "Function call mismatches type or number of arguments: argument %zu of %s must be %s, got %s", f->i, f->sig->name,
                     lsl_type_name(f->sig->params[f->i - 1]), lsl_type_name(r));
                break;
            }
            if (f->i < e->nitems) {
                child = e->items[f->i++];
                break;
            }
            {
                long h = fal_program_host(c->p, f->sig->name);
                if (h < 0 || emit(c, FOP_CALL_HOST, (int32_t)h, (int32_t)e->nitems) < 0)
                    fail(c, e->line, e->col, "out of memory");
                else
                    res = f->sig->ret;
            }
            break;
        case E_UNARY:
            if (f->stage++ == 0) {
                if (e->op != T_MINUS) {
                    fail(c, e->line, e->col, "operator %s is not supported by ABI 2", op_text(e->op));
                    break;
                }
                if (e->lhs->kind == E_INT) { /* a negative literal */
                    if (push_int(c, (int32_t)(0u - (uint32_t)e->lhs->ival)))
                        res = LSL_TYPE_INTEGER;
                    break;
                }
                if (push_int(c, 0))
                    child = e->lhs;
                break;
            }
            if (r != LSL_TYPE_INTEGER) {
                fail(c, e->line, e->col, "Type mismatch: unary '-' needs an integer, got %s", lsl_type_name(r));
                break;
            }
            res = emit(c, FOP_SUB_INT, 0, 0) >= 0 ? LSL_TYPE_INTEGER : LSL_TYPE_VOID;
            break;
        case E_BINARY: {
            if (f->stage == 0) {
                /* Second Life evaluates an operator's operands right to left;
                 * ABI 2's opcodes take them left to right (see order_shows) */
                if (order_shows(e->lhs, e->rhs)) {
                    fail(c, e->line, e->col,
                         "operands with side effects (evaluated right to left) are not supported by ABI 2");
                    break;
                }
                switch (e->op) {
                case T_PLUS: case T_MINUS: case T_STAR: case T_LT: case T_GT: case T_EQ:
                    break;
                default:
                    fail(c, e->line, e->col, "operator %s is not supported by ABI 2", op_text(e->op));
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
                fail(c, e->line, e->col, "Type mismatch: operator %s needs values, not a call that returns nothing",
                     op_text(e->op));
                break;
            }
            if (e->op == T_PLUS && lt == LSL_TYPE_STRING && rt == LSL_TYPE_STRING) {
                res = emit(c, FOP_CONCAT_STR, 0, 0) >= 0 ? LSL_TYPE_STRING : LSL_TYPE_VOID;
                break;
            }
            if (lt != LSL_TYPE_INTEGER || rt != LSL_TYPE_INTEGER) {
                if (e->op == T_EQ && lt == rt)
                    fail(c, e->line, e->col, "comparing strings with '==' is not supported by ABI 2");
                else
                    fail(c, e->line, e->col, "Type mismatch: cannot apply %s to %s and %s", op_text(e->op),
                         lsl_type_name(lt), lsl_type_name(rt));
                break;
            }
            fal_op fop = e->op == T_PLUS ? FOP_ADD_INT : e->op == T_MINUS ? FOP_SUB_INT
                       : e->op == T_STAR ? FOP_MUL_INT : e->op == T_LT ? FOP_LESS_INT
                       : e->op == T_GT ? FOP_GREATER_INT : FOP_EQUAL_INT;
            res = emit(c, fop, 0, 0) >= 0 ? LSL_TYPE_INTEGER : LSL_TYPE_VOID;
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
                if (supported_type(c, e->cast_type, e->line, e->col))
                    child = e->lhs;
                break;
            }
            if (r == e->cast_type) {
                res = r;
                break;
            }
            if (r == LSL_TYPE_INTEGER && e->cast_type == LSL_TYPE_STRING) {
                res = emit(c, FOP_CAST_INT_TO_STR, 0, 0) >= 0 ? LSL_TYPE_STRING : LSL_TYPE_VOID;
                break;
            }
            fail(c, e->line, e->col, "casting %s to %s is not supported by ABI 2", lsl_type_name(r),
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
static bool cexpr_stmt(compiler *c, const lsl_expr *e)
{
    if (e->kind == E_ASSIGN || e->kind == E_PREINC || e->kind == E_PREDEC ||
        e->kind == E_POSTINC || e->kind == E_POSTDEC) {
        cassign(c, e, false);
        return !c->failed;
    }
    lsl_type t = cexpr(c, e);
    if (c->failed)
        return false;
    return t == LSL_TYPE_VOID || emit(c, FOP_POP, 0, 0) >= 0;
}

static bool ccondition(compiler *c, const lsl_expr *e, const char *what)
{
    lsl_type t = cexpr(c, e);
    if (c->failed)
        return false;
    if (t != LSL_TYPE_INTEGER)
        return fail(c, e->line, e->col, "the condition of '%s' must be an integer in ABI 2, got %s",
                    what, lsl_type_name(t));
    return true;
}

/* ---- statements ---------------------------------------------------------------- */


/* A statement without a body (no S_BLOCK, S_IF or S_WHILE). */
static bool cstmt_leaf(compiler *c, const lsl_stmt *s)
{
    switch (s->kind) {
    case S_EMPTY:
        return true;
    case S_EXPR:
        return cexpr_stmt(c, s->expr);
    case S_DECL: {
        if (!supported_type(c, s->decl_type, s->line, s->col))
            return false;
        if (s->expr) {
            lsl_type t = cexpr(c, s->expr);
            if (c->failed)
                return false;
            if (t != s->decl_type)
                return fail(c, s->expr->line, s->expr->col, "Type mismatch: cannot initialize %s '%s' with %s",
                            lsl_type_name(s->decl_type), s->name, lsl_type_name(t));
        } else if (!(s->decl_type == LSL_TYPE_INTEGER ? push_int(c, 0) : push_str(c, "", 0))) {
            return false; /* LSL gives declared locals 0 or "" */
        }
        int slot;
        if (!declare_local(c, s->name, s->decl_type, s->name_line, s->name_col, &slot))
            return false;
        return emit(c, FOP_STORE_LOCAL, slot, 0) >= 0;
    }
    case S_DO:
        return fail(c, s->line, s->col, "'do ... while' loops are not supported by ABI 2");
    case S_FOR:
        return fail(c, s->line, s->col, "'for' loops are not supported by ABI 2");
    case S_JUMP:
    case S_LABEL:
        return fail(c, s->line, s->col, "jumps and labels are not supported by ABI 2");
    case S_STATE:
        return fail(c, s->line, s->col, "state changes are not supported by ABI 2");
    case S_RETURN:
        if (s->expr)
            return fail(c, s->expr->line, s->expr->col, "Return statement type doesn't match function return type: an event handler cannot return a value");
        return emit(c, FOP_HALT, 0, 0) >= 0;
    case S_BLOCK: case S_IF: case S_WHILE:
        break; /* cstmt's */
    }
    return fail(c, s->line, s->col, "unknown statement");
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
    if (!reserve(c, (void **)&c->sf, &c->capsf, c->nsf, sizeof *c->sf))
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
                    long jend = emit(c, FOP_JUMP, (int32_t)f->chain, 0);
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
                if (!ccondition(c, s->expr, "if"))
                    break;
                f->jz = emit(c, FOP_JUMP_IF_ZERO, 0, 0);
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
                if (!ccondition(c, s->expr, "while"))
                    break;
                f->jz = emit(c, FOP_JUMP_IF_ZERO, 0, 0);
                child = s->body;
                break;
            }
            emit(c, FOP_JUMP, (int32_t)f->start, 0);
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
        if (find_var(c, e->name, &v)) {
            t = v.type;
            *out = c->p->globals[v.slot];
        } else if (find_int_constant(e->name, &k)) {
            t = LSL_TYPE_INTEGER;
            out->i = k;
        } else {
            return fail(c, e->line, e->col, "Name not defined within scope: undeclared variable '%s'", e->name);
        }
    } else if (e->kind == E_FLOAT || e->kind == E_VECTOR || e->kind == E_ROTATION ||
               e->kind == E_LIST) {
        cexpr(c, e); /* reports the unsupported type */
        return false;
    } else {
        return fail(c, e->line, e->col, "Syntax error: a global's initializer must be a constant");
    }
    if (t != g->type)
        return fail(c, e->line, e->col, "Type mismatch: cannot initialize %s '%s' with %s", lsl_type_name(g->type),
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
        return fail(c, ev->line, ev->col,
                    "event '%s' is not supported by ABI 2 (it has state_entry and touch_start)",
                    ev->name);
    for (const lsl_func *o = st->events; o < ev; o++)
        if (strcmp(o->name, ev->name) == 0)
            return fail(c, ev->line, ev->col, "Name previously declared within scope: event '%s' is handled twice in this state", ev->name);
    if ((int)ev->nparams != want || (want == 1 && ev->params[0].type != LSL_TYPE_INTEGER))
        return fail(c, ev->line, ev->col, "%s", want ? "Syntax error: touch_start takes (integer num_detected)"
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
    if (!cstmt(c, ev->body) || emit(c, FOP_HALT, 0, 0) < 0)
        return false;
    if (fal_program_event(c->p, ev->name, (uint32_t)entry, types, (uint32_t)ev->nparams,
                          (uint32_t)c->max_slots) < 0)
        return fail(c, ev->line, ev->col, "out of memory");
    return true;
}

static bool compile_script(compiler *c, const lsl_script *sc)
{
    if (sc->nfuncs)
        return fail(c, sc->funcs[0].line, sc->funcs[0].col,
                    "user-defined functions are not supported by ABI 2");
    if (sc->nstates > 1)
        return fail(c, sc->states[1].line, sc->states[1].col,
                    "states other than 'default' are not supported by ABI 2");
    c->globals = calloc(sc->nglobals ? sc->nglobals : 1, sizeof *c->globals);
    if (!c->globals)
        return fail(c, 1, 1, "out of memory");
    for (size_t i = 0; i < sc->nglobals; i++) {
        const lsl_global *g = &sc->globals[i];
        if (!supported_type(c, g->type, g->line, g->col))
            return false;
        long seen;
        if (lsl_names_get(&c->global_names, g->name, &seen))
            return fail(c, g->line, g->col, "Name previously declared within scope: global '%s' is declared twice", g->name);
        fal_pvalue def;
        if (!global_init(c, g, &def))
            return false;
        if (fal_program_global(c->p, g->name, def) < 0)
            return fail(c, g->line, g->col, "out of memory");
        /* registered after its initializer, so `integer a = a;` is an error */
        if (!lsl_names_set(&c->global_names, g->name, (long)c->nglobals))
            return fail(c, g->line, g->col, "out of memory");
        c->globals[c->nglobals++] = (global_var){g->name, g->type};
    }
    const lsl_state *st = &sc->states[0];
    for (size_t i = 0; i < st->nevents; i++)
        if (!cevent(c, st, &st->events[i]))
            return false;
    if (c->p->oom)
        return fail(c, 1, 1, "out of memory");
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
