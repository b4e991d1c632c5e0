/* The ABI-3 code generator: the whole language from the parser's tree.
 *
 * Static types pick typed opcodes (integer and float arithmetic,
 * comparisons, jumps) and the fused forms of counters and loop tests;
 * everything else goes through the value library's generic operators.
 * Operands are evaluated right to left as Second Life does (the right
 * operand is pushed first), && and || evaluate both sides.  Every local
 * gets its own slot (no reuse across scopes), so each slot has one type,
 * which lets a snapshot restore check every local's type.  Global
 * initializers are folded at compile time (LSL only allows constants,
 * earlier globals and literals built from them). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsl/arena.h"
#include "lsl/ast.h"
#include "lsl/builtins.h"
#include "lsl/names.h"
#include "lsl/parser.h"
#include "lsl/prog3.h"

#define T_ERR ((lsl_type)99)

typedef struct local3 {
    const char *name;
    lsl_type type;
    int slot;
    int depth;
    long prev;
} local3;

typedef struct label3 {
    const char *name;
    long ip; /* -1 until defined */
    long line, col;
} label3;

typedef struct fixup3 {
    size_t label;
    long at;
} fixup3;

typedef struct c3 {
    gsvm_lsl3_program *p;
    const char *file;
    gsvm_error *err;
    bool failed;
    const lsl_script *sc;
    lsl_names gnames, fnames, snames, lnames;
    lsl_type *gtypes;
    size_t ng;
    local3 *locals;
    size_t nlocals, caplocals;
    int depth;
    /* the function being compiled */
    fal3_func *fn;
    uint8_t *slot_types;
    size_t nslots, capslots;
    long sd, max_sd; /* operand stack depth */
    long line, col;  /* the source position of the code being emitted (the line table) */
    size_t barrier;  /* no peephole fusion reaches below this ip (a jump may target it) */
    lsl_type ret;
    bool in_event;
    bool state_if_body; /* compiling the body of `if (c) state x;` (no else) */
    bool invalid_il; /* the function uses the value of integer OP= float (Mono refuses it at run time) */
    label3 *labels;
    size_t nlabels, caplabels;
    fixup3 *fixups;
    size_t nfixups, capfixups;
    /* the passes' work stacks (heap): no pass recurses over the tree */
    struct eframe3 *ef; /* cexpr */
    size_t nef, capef;
    struct sframe3 *sf; /* cstmt */
    size_t nsf, capsf;
    const lsl_expr **scan; /* int_expr, quiet_expr, ccond_false */
    size_t nscan, capscan;
} c3;

static bool fail(c3 *c, long line, long col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static bool fail(c3 *c, long line, long col, const char *fmt, ...)
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

/* Second Life's message for a list element of type `t` (a list or void). */
static const char *list_item_error(lsl_type t)
{
    return t == LSL_TYPE_LIST ? "Lists can't be included in lists" : "Type mismatch: a list element cannot be void";
}

/* Room for element n of a work stack. */
static bool reserve(c3 *c, void **arr, size_t *cap, size_t n, size_t elem)
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

static long emit(c3 *c, fal3_op op, int32_t a, int32_t b, int32_t cc, int pops, int pushes)
{
    if (c->failed)
        return -1;
    fal3_mark_line(c->p, c->line > 0 ? (uint32_t)c->line : 0, c->line > 0 && c->col > 0 ? (uint32_t)c->col : 0);
    long at = fal3_emit(c->p, op, a, b, cc);
    if (at < 0) {
        fail(c, 0, 0, "out of memory or program too large");
        return -1;
    }
    c->sd += pushes - pops;
    if (c->sd > c->max_sd)
        c->max_sd = c->sd;
    return at;
}

/* Emits with the stack effect of isa3.def; two loads of locals in a row
 * become one LoadLL (never across `barrier`). */
static long op(c3 *c, fal3_op o, int32_t a, int32_t b, int32_t cc)
{
    size_t n = c->p->ncode;
    if (o == F3_LOAD_LOCAL && !c->failed && n > c->barrier && c->p->code[n - 1].op == F3_LOAD_LOCAL) {
        c->p->code[n - 1].op = F3_LOAD_LL;
        c->p->code[n - 1].b = a;
        c->sd += 1;
        if (c->sd > c->max_sd)
            c->max_sd = c->sd;
        return (long)n - 1;
    }
    if (o == F3_RETV && !c->failed && n > c->barrier && c->p->code[n - 1].op == F3_LOAD_LOCAL) {
        /* `return local;` returns the slot itself */
        c->p->code[n - 1].op = F3_RETV_L;
        c->sd -= 1;
        return (long)n - 1;
    }
    if ((o == F3_LIST_GET_L || o == F3_LIST_SET_LOCAL) && !c->failed && n > c->barrier &&
        c->p->code[n - 1].op == F3_LOAD_LOCAL) {
        /* the index is a local: read in its slot */
        fal3_insn *last = &c->p->code[n - 1];
        if (o == F3_LIST_GET_L) {
            *last = (fal3_insn){F3_LIST_GET_LL, a, last->a, b};
        } else {
            *last = (fal3_insn){F3_LIST_SET_LL, a, last->a, 0};
            c->sd -= 2;
        }
        return (long)n - 1;
    }
    if (o == F3_RETV && !c->failed && n > c->barrier && c->p->code[n - 1].op == F3_ADD_I) {
        /* `return a + b;` on integers */
        c->p->code[n - 1].op = F3_RETV_ADD_I;
        c->sd -= 1;
        return (long)n - 1;
    }
    if (o == F3_STORE_LOCAL && !c->failed && n > c->barrier && c->p->code[n - 1].op == F3_LOAD_LOCAL) {
        /* `x = y;` between locals (the verifier checks they are of one type) */
        fal3_insn *last = &c->p->code[n - 1];
        *last = (fal3_insn){F3_MOVE_LL, last->a, a, 0};
        c->sd -= 1;
        return (long)n - 1;
    }
    if (o == F3_STORE_LOCAL && !c->failed && n > c->barrier && c->p->code[n - 1].op == F3_IOP_LK && a >= 0 &&
        a < (1 << 22)) {
        /* `x = y OP k` on integer locals (a store to an integer slot) */
        fal3_insn *last = &c->p->code[n - 1];
        last->op = F3_IOP_LK_S;
        last->c = last->c | (a << 8);
        c->sd -= 1;
        return (long)n - 1;
    }
    if (o == F3_STORE_LOCAL && !c->failed && n > c->barrier && c->p->code[n - 1].a == a &&
        (c->p->code[n - 1].op == F3_ADDI_L || c->p->code[n - 1].op == F3_ADDF_L)) {
        /* `x += expr`, `x = x + expr`: accumulate into the slot */
        fal3_insn *last = &c->p->code[n - 1];
        last->op = last->op == F3_ADDI_L ? F3_ADD_TO_I : F3_ADD_TO_F;
        c->sd -= 1;
        return (long)n - 1;
    }
    if (o == F3_STORE_LOCAL && !c->failed && n > c->barrier && a >= 0 && a < (1 << 22) &&
        (c->p->code[n - 1].op == F3_IOP_LL || c->p->code[n - 1].op == F3_FOP_LK)) {
        /* `x = y OP z` on integer locals, `x = y OP k` on float locals */
        fal3_insn *last = &c->p->code[n - 1];
        last->op = last->op == F3_IOP_LL ? F3_IOP_LL_S : F3_FOP_LK_S;
        last->c = last->c | (a << 8);
        c->sd -= 1;
        return (long)n - 1;
    }
    if (o == F3_STORE_LOCAL && !c->failed && n > c->barrier) {
        /* an operation whose result is stored at once stores it itself */
        fal3_insn *last = &c->p->code[n - 1];
        fal3_op s = F3_COUNT;
        switch (last->op) {
        case F3_ADD_F: s = F3_ADD_F_S; break;
        case F3_SUB_F: s = F3_SUB_F_S; break;
        case F3_MUL_F: s = F3_MUL_F_S; break;
        case F3_ADD_I: s = F3_ADD_I_S; break;
        case F3_ADDF_LL: s = F3_ADDF_LL_S; break;
        case F3_SUBF_LL: s = F3_SUBF_LL_S; break;
        case F3_MULF_LL: s = F3_MULF_LL_S; break;
        case F3_ADDI_LL: s = F3_ADDI_LL_S; break;
        default: break;
        }
        if (s != F3_COUNT) {
            if (fal3_ops[s].operands[0] == 'l' && fal3_ops[s].operands[1] == 0)
                *last = (fal3_insn){s, a, 0, 0};
            else
                last->op = s, last->c = a;
            c->sd -= 1; /* the result never reaches the stack */
            return (long)n - 1;
        }
    }
    return emit(c, o, a, b, cc, fal3_ops[o].pops, fal3_ops[o].pushes);
}

static bool push_value(c3 *c, lsl_value v)
{
    switch (v.type) {
    case LSL_TYPE_INTEGER:
        return op(c, F3_PUSH_INT, v.u.i, 0, 0) >= 0;
    case LSL_TYPE_FLOAT: {
        int32_t bits;
        memcpy(&bits, &v.u.f, 4);
        return op(c, F3_PUSH_FLOAT, bits, 0, 0) >= 0;
    }
    default: {
        if ((v.type == LSL_TYPE_STRING || v.type == LSL_TYPE_KEY) && !v.u.s)
            return op(c, F3_PUSH_EMPTY, v.type, 0, 0) >= 0;
        if (v.type == LSL_TYPE_LIST && !v.u.l)
            return op(c, F3_PUSH_EMPTY, v.type, 0, 0) >= 0;
        long k = fal3_const(c->p, v);
        if (k < 0)
            return fail(c, 0, 0, "out of memory or too many constants");
        return op(c, F3_PUSH_CONST, (int32_t)k, 0, 0) >= 0;
    }
    }
}

/* ---- names --------------------------------------------------------------- */

typedef struct var3 {
    bool global;
    int slot;
    lsl_type type;
} var3;

static bool find_var(c3 *c, const char *name, var3 *out)
{
    long i;
    if (lsl_names_get(&c->lnames, name, &i) && i >= 0) {
        *out = (var3){false, c->locals[i].slot, c->locals[i].type};
        return true;
    }
    if (lsl_names_get(&c->gnames, name, &i)) {
        *out = (var3){true, (int)i, c->gtypes[i]};
        return true;
    }
    return false;
}

static bool new_slot(c3 *c, lsl_type t, int *slot)
{
    if (c->nslots >= FAL3_MAX_SLOTS)
        return fail(c, 0, 0, "too many local variables");
    if (c->nslots == c->capslots) {
        size_t nc = c->capslots ? c->capslots * 2 : 16;
        uint8_t *n = realloc(c->slot_types, nc);
        if (!n)
            return fail(c, 0, 0, "out of memory");
        c->slot_types = n;
        c->capslots = nc;
    }
    c->slot_types[c->nslots] = (uint8_t)t;
    *slot = (int)c->nslots++;
    return true;
}

static bool declare_local(c3 *c, const char *name, lsl_type t, long line, long col, int *slot)
{
    long prev = -1;
    if (!lsl_names_get(&c->lnames, name, &prev))
        prev = -1;
    if (prev >= 0 && c->locals[prev].depth == c->depth)
        return fail(c, line, col, "Name previously declared within scope: '%s' is already declared in this scope", name);
    if (c->nlocals == c->caplocals) {
        size_t nc = c->caplocals ? c->caplocals * 2 : 16;
        local3 *nl = realloc(c->locals, nc * sizeof *nl);
        if (!nl)
            return fail(c, line, col, "out of memory");
        c->locals = nl;
        c->caplocals = nc;
    }
    if (!new_slot(c, t, slot))
        return false;
    if (!lsl_names_set(&c->lnames, name, (long)c->nlocals))
        return fail(c, line, col, "out of memory");
    c->locals[c->nlocals++] = (local3){name, t, *slot, c->depth, prev};
    return true;
}

static void leave_scope(c3 *c)
{
    while (c->nlocals && c->locals[c->nlocals - 1].depth == c->depth) {
        c->nlocals--;
        lsl_names_set(&c->lnames, c->locals[c->nlocals].name, c->locals[c->nlocals].prev);
    }
    c->depth--;
}

/* ---- conversions --------------------------------------------------------- */

/* Implicit conversion of the top of stack from `from` to `to` (assignment,
 * argument, return): integer -> float, string <-> key. */
static bool coerce(c3 *c, lsl_type from, lsl_type to, long line, long col, const char *what)
{
    if (from == T_ERR)
        return false;
    if (from == to)
        return true;
    if (from == LSL_TYPE_INTEGER && to == LSL_TYPE_FLOAT)
        return op(c, F3_I2F, 0, 0, 0) >= 0;
    if ((from == LSL_TYPE_STRING && to == LSL_TYPE_KEY) || (from == LSL_TYPE_KEY && to == LSL_TYPE_STRING))
        return op(c, F3_CAST, to, 0, 0) >= 0;
    return fail(c, line, col, "Type mismatch: %s: cannot use %s as %s", what, lsl_type_name(from), lsl_type_name(to));
}

static bool can_coerce(lsl_type from, lsl_type to)
{
    return from == to || (from == LSL_TYPE_INTEGER && to == LSL_TYPE_FLOAT) ||
           (from == LSL_TYPE_STRING && to == LSL_TYPE_KEY) || (from == LSL_TYPE_KEY && to == LSL_TYPE_STRING);
}

/* An argument: the message names the argument and the function. */
static bool coerce_arg(c3 *c, lsl_type from, lsl_type to, const lsl_expr *arg, size_t i, const char *fname)
{
    if (from == T_ERR)
        return false;
    if (!can_coerce(from, to))
        return fail(c, arg->line, arg->col, "Function call mismatches type or number of arguments: argument %zu of %s must be %s, got %s", i + 1, fname,
                    lsl_type_name(to), lsl_type_name(from));
    return coerce(c, from, to, arg->line, arg->col, "argument");
}

static bool lookup_constant(const char *name, lsl_value *out)
{
    const lsl_constant *k = lsl_constant_by_name(name, strlen(name));
    if (!k)
        return false;
    gsvm_error e;
    return lsl_constant_value(NULL, k, out, &e) == GSVM_OK;
}

/* ---- compile-time evaluation (global initializers) ----------------------- */

/* A constant expression, evaluated without recursion: each open vector,
 * rotation, list, unary operator or cast is a frame; finished values wait
 * on a value stack (a list's items above its `vbase`). */
typedef struct cframe3 {
    const lsl_expr *e;
    size_t i;     /* items evaluated so far */
    float f[4];   /* a vector's or rotation's components */
    size_t vbase; /* a list's first item on the value stack */
} cframe3;

/* One leaf: a literal, an earlier global or a named constant. */
static bool ceval_leaf(c3 *c, const lsl_expr *e, lsl_value *out)
{
    gsvm_error ee;
    switch (e->kind) {
    case E_INT:
        *out = lsl_int(e->ival);
        return true;
    case E_FLOAT:
        *out = lsl_float((float)e->fval);
        return true;
    case E_STRING:
        if (lsl_string_new(NULL, LSL_TYPE_STRING, e->sval, e->slen, out, &ee) != GSVM_OK)
            return fail(c, e->line, e->col, "%s", ee.message);
        return true;
    case E_IDENT: {
        long gi;
        if (lsl_names_get(&c->gnames, e->name, &gi)) {
            *out = c->p->globals[gi];
            lsl_value_retain(out);
            return true;
        }
        if (lookup_constant(e->name, out))
            return true;
        return fail(c, e->line, e->col, "Name not defined within scope: '%s' is not a constant or an earlier global", e->name);
    }
    default:
        return fail(c, e->line, e->col, "Syntax error: a global initializer must be a constant expression");
    }
}

/* Second Life's grammar for a global's initializer has no cast and no
 * operator but a minus before a number (a literal or a named integer or
 * float constant other than TRUE and FALSE). */
static bool global_operand_ok(const lsl_expr *e)
{
    if (e->kind != E_UNARY || e->op != T_MINUS)
        return false;
    const lsl_expr *x = e->lhs;
    lsl_value k;
    if (x->kind == E_INT || x->kind == E_FLOAT)
        return true;
    if (x->kind != E_IDENT || strcmp(x->name, "TRUE") == 0 || strcmp(x->name, "FALSE") == 0 ||
        !lookup_constant(x->name, &k))
        return false;
    bool number = k.type == LSL_TYPE_INTEGER || k.type == LSL_TYPE_FLOAT;
    lsl_value_release(&k);
    return number;
}

static bool ceval(c3 *c, const lsl_expr *root, lsl_value *out)
{
    cframe3 *fs = NULL;
    lsl_value *vs = NULL;
    size_t nf = 0, capf = 0, nv = 0, capv = 0;
    bool ok = reserve(c, (void **)&fs, &capf, nf, sizeof *fs);
    if (ok)
        fs[nf++] = (cframe3){.e = root};
    gsvm_error ee;
    while (ok && nf) {
        cframe3 *f = &fs[nf - 1];
        const lsl_expr *e = f->e;
        const lsl_expr *child = NULL;
        lsl_value v = {0};
        if (!reserve(c, (void **)&vs, &capv, nv, sizeof *vs)) {
            ok = false;
            break;
        }
        switch (e->kind) {
        case E_VECTOR:
        case E_ROTATION:
            if (f->i > 0) {
                v = vs[--nv];
                if (v.type == LSL_TYPE_INTEGER)
                    f->f[f->i - 1] = (float)v.u.i;
                else if (v.type == LSL_TYPE_FLOAT)
                    f->f[f->i - 1] = v.u.f;
                else {
                    lsl_value_release(&v);
                    ok = fail(c, e->items[f->i - 1]->line, e->items[f->i - 1]->col,
                              "Type mismatch: a vector or rotation component must be a number");
                    break;
                }
            }
            if (f->i < e->nitems) {
                child = e->items[f->i++];
                break;
            }
            vs[nv++] = e->kind == E_VECTOR ? lsl_vector(f->f[0], f->f[1], f->f[2])
                                           : lsl_rotation(f->f[0], f->f[1], f->f[2], f->f[3]);
            nf--;
            break;
        case E_LIST:
            if (f->i == 0)
                f->vbase = nv;
            else if (vs[nv - 1].type == LSL_TYPE_LIST) {
                lsl_value_release(&vs[--nv]);
                ok = fail(c, e->items[f->i - 1]->line, e->items[f->i - 1]->col, "Lists can't be included in lists");
                break;
            }
            if (f->i < e->nitems) {
                child = e->items[f->i++];
                break;
            }
            if (lsl_list_adopt(NULL, vs + f->vbase, nv - f->vbase, &v, &ee) != GSVM_OK) {
                ok = fail(c, e->line, e->col, "%s", ee.message);
                break;
            }
            nv = f->vbase; /* the list holds the items now */
            vs[nv++] = v;
            nf--;
            break;
        case E_UNARY:
        case E_CAST:
            if (f->i == 0) {
                if (!global_operand_ok(e)) {
                    ok = fail(c, e->line, e->col, "Syntax error: a global initializer must be a constant expression");
                    break;
                }
                child = e->lhs;
                f->i = 1;
                break;
            }
            v = vs[--nv];
            gsvm_status st;
            if (e->kind == E_UNARY) {
                lsl_unop u = e->op == T_MINUS ? LSL_UOP_NEG : e->op == T_NOT ? LSL_UOP_NOT : LSL_UOP_BITNOT;
                st = lsl_value_unop(u, &v, &vs[nv], &ee);
            } else if (!lsl_cast_allowed(v.type, e->cast_type)) {
                lsl_value_release(&v);
                ok = fail(c, e->line, e->col, "Type mismatch: cannot cast %s to %s", lsl_type_name(v.type),
                          lsl_type_name(e->cast_type));
                break;
            } else {
                st = lsl_value_cast(NULL, &v, e->cast_type, &vs[nv], &ee);
            }
            lsl_value_release(&v);
            if (st != GSVM_OK) {
                ok = fail(c, e->line, e->col, "%s", ee.message);
                break;
            }
            nv++;
            nf--;
            break;
        default:
            if (!(ok = ceval_leaf(c, e, &vs[nv])))
                break;
            nv++;
            nf--;
            break;
        }
        if (ok && child) {
            if ((ok = reserve(c, (void **)&fs, &capf, nf, sizeof *fs)))
                fs[nf++] = (cframe3){.e = child};
        }
    }
    if (ok)
        *out = vs[0];
    else
        while (nv)
            lsl_value_release(&vs[--nv]);
    free(fs);
    free(vs);
    return ok;
}

/* ---- expressions --------------------------------------------------------- */

static lsl_type cexpr(c3 *c, const lsl_expr *e);

static bool load_var(c3 *c, const var3 *v)
{
    return op(c, v->global ? F3_LOAD_GLOBAL : F3_LOAD_LOCAL, v->slot, 0, 0) >= 0;
}

static bool store_var(c3 *c, const var3 *v, bool keep)
{
    fal3_op o = v->global ? (keep ? F3_PUT_GLOBAL : F3_STORE_GLOBAL) : (keep ? F3_PUT_LOCAL : F3_STORE_LOCAL);
    return op(c, o, v->slot, 0, 0) >= 0;
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
            return fail(c, lv->line, lv->col, "Use of vector or quaternion method on incorrect type: no member '%s'", m);
    }
    if (base->kind != E_IDENT)
        return fail(c, lv->line, lv->col, "Syntax error: can only assign to a variable");
    if (!find_var(c, base->name, v))
        return fail(c, base->line, base->col, "Name not defined within scope: '%s' is not declared", base->name);
    if (*member >= 0) {
        if (v->type != LSL_TYPE_VECTOR && v->type != LSL_TYPE_ROTATION)
            return fail(c, lv->line, lv->col, "Use of vector or quaternion method on incorrect type: '.%s' needs a vector or rotation", lv->name);
        if (*member == 3 && v->type != LSL_TYPE_ROTATION)
            return fail(c, lv->line, lv->col, "Use of vector or quaternion method on incorrect type: a vector has no member 's'");
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
        return op(c, o == F3_ADD_I ? F3_ADD_LI : F3_SUB_LI, slot, k, 0) >= 0;
    }
    if (o >= F3_MUL_I && o <= F3_GE_I && o != F3_LAND_I && o != F3_LOR_I && r && r->op == F3_PUSH_INT &&
        l->op == F3_LOAD_LOCAL) {
        int32_t slot = l->a, k = r->a;
        p->ncode -= 2;
        c->sd -= 2;
        return op(c, F3_IOP_LK, slot, k, o) >= 0;
    }
    if (o >= F3_ADD_I && o <= F3_GE_I && o != F3_LAND_I && o != F3_LOR_I && r && r->op == F3_LOAD_GLOBAL &&
        l->op == F3_LOAD_LOCAL) {
        int32_t slot = l->a, g = r->a;
        p->ncode -= 2;
        c->sd -= 2;
        return op(c, F3_IOP_LG, slot, g, o) >= 0;
    }
    if (o >= F3_SUB_I && o <= F3_GE_I && o != F3_LAND_I && o != F3_LOR_I && l->op == F3_LOAD_LL) {
        /* both operands locals: `d * d`, `n % d` (LoadLL pushes r, then l) */
        int32_t a = l->b, b = l->a;
        p->ncode -= 1;
        c->sd -= 2;
        return op(c, F3_IOP_LL, a, b, o) >= 0;
    }
    if (o >= F3_ADD_I && o <= F3_GE_I && o != F3_LAND_I && o != F3_LOR_I && l->op == F3_PUSH_INT) {
        /* a constant on the left: `1 << x` */
        int32_t k = l->a;
        p->ncode -= 1;
        c->sd -= 1;
        return op(c, F3_IOP_KR, k, o, 0) >= 0;
    }
    if (o >= F3_ADD_F && o <= F3_DIV_F && r && l->op == F3_LOAD_LOCAL && r->op == F3_PUSH_FLOAT &&
        c->slot_types[l->a] == LSL_TYPE_FLOAT) {
        /* `x OP constant` on a float local: one register-form instruction */
        int32_t slot = l->a, k = r->a;
        p->ncode -= 2;
        c->sd -= 2;
        return op(c, F3_FOP_LK, slot, k, o) >= 0;
    }
    if ((o == F3_ADD_F || o == F3_MUL_F) && r && l->op == F3_PUSH_FLOAT && r->op == F3_LOAD_LOCAL &&
        c->slot_types[r->a] == LSL_TYPE_FLOAT) {
        /* `constant + x`, `constant * x`: the same sum and product (IEEE
         * addition and multiplication commute) */
        int32_t slot = r->a, k = l->a;
        p->ncode -= 2;
        c->sd -= 2;
        return op(c, F3_FOP_LK, slot, k, o) >= 0;
    }
    if (o == F3_ADD_F || o == F3_SUB_F || o == F3_MUL_F || o == F3_ADD_I) {
        static const fal3_op ll[] = {[F3_ADD_F] = F3_ADDF_LL, [F3_SUB_F] = F3_SUBF_LL, [F3_MUL_F] = F3_MULF_LL,
                                     [F3_ADD_I] = F3_ADDI_LL};
        static const fal3_op l1[] = {[F3_ADD_F] = F3_ADDF_L, [F3_SUB_F] = F3_SUBF_L, [F3_MUL_F] = F3_MULF_L,
                                     [F3_ADD_I] = F3_ADDI_L};
        if (l->op == F3_LOAD_LL) {
            int32_t a = l->b, b = l->a; /* LoadLL pushes r (a) then l (b) */
            p->ncode -= 1;
            c->sd -= 2;
            return op(c, ll[o], a, b, 0) >= 0;
        }
        if (l->op == F3_LOAD_LOCAL) {
            int32_t a = l->a;
            p->ncode -= 1;
            c->sd -= 1;
            return op(c, l1[o], a, 0, 0) >= 0;
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
        return op(c, F3_CMPF_K, k, o, 0) >= 0;
    }
    if (o == F3_MUL_F && l->op == F3_PUSH_FLOAT && r && r->op == F3_LOAD_LOCAL) {
        int32_t k = l->a, slot = r->a;
        p->ncode -= 2;
        c->sd -= 2;
        return op(c, F3_MULF_LK, slot, k, 0) >= 0;
    }
    if (o == F3_MUL_F && l->op == F3_PUSH_FLOAT) {
        int32_t k = l->a;
        p->ncode -= 1;
        c->sd -= 1;
        return op(c, F3_MULF_K, k, 0, 0) >= 0;
    }
    return false;
}

/* With r pushed first and l on top: emits `l OP r` and returns its type. */
static lsl_type apply_binop(c3 *c, lsl_op o, lsl_type lt, lsl_type rt, long line, long col, const char *text)
{
    lsl_type res = lsl_op_result_type(o, lt, rt);
    if (res == LSL_TYPE_VOID) {
        fail(c, line, col, "Type mismatch: operator %s cannot take %s and %s", text, lsl_type_name(lt),
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
        return op(c, iops[o], 0, 0, 0) >= 0 ? res : T_ERR;
    }
    bool num_l = lt == LSL_TYPE_INTEGER || lt == LSL_TYPE_FLOAT;
    bool num_r = rt == LSL_TYPE_INTEGER || rt == LSL_TYPE_FLOAT;
    if (num_l && num_r && fops[o] != F3_COUNT) {
        if (lt == LSL_TYPE_INTEGER && op(c, F3_I2F, 0, 0, 0) < 0)
            return T_ERR;
        size_t n = c->p->ncode;
        if (rt == LSL_TYPE_INTEGER && lt == LSL_TYPE_FLOAT && !c->failed && n > c->barrier &&
            c->p->code[n - 1].op == F3_PUSH_FLOAT) {
            /* `8192.0 * integer`: the integer converted before the constant
             * is pushed, so that the constant can fuse with the operator */
            int32_t k = c->p->code[n - 1].a;
            c->p->code[n - 1] = (fal3_insn){F3_I2F, 0, 0, 0};
            if (op(c, F3_PUSH_FLOAT, k, 0, 0) < 0)
                return T_ERR;
        } else if (rt == LSL_TYPE_INTEGER && op(c, F3_I2F_UNDER, 0, 0, 0) < 0)
            return T_ERR;
        if (!c->failed && fuse_binop(c, fops[o]))
            return res;
        return op(c, fops[o], 0, 0, 0) >= 0 ? res : T_ERR;
    }
    if (o == LSL_OP_ADD && lt == LSL_TYPE_STRING && rt == LSL_TYPE_STRING)
        return op(c, F3_CONCAT_S, 0, 0, 0) >= 0 ? res : T_ERR;
    if (o == LSL_OP_ADD && res == LSL_TYPE_STRING) {
        /* Second Life adds only a string to a string: a key must be cast */
        fail(c, line, col, "Type mismatch: operator %s cannot take %s and %s", text, lsl_type_name(lt),
             lsl_type_name(rt));
        return T_ERR;
    }
    return op(c, F3_BINOP, o, 0, 0) >= 0 ? res : T_ERR;
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
 * an assignment used as a value is compiled by cexpr (cassign_target, the
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
        if (!lsl_names_get(&c->fnames, r->name, &fi) && find_var(c, r->items[2]->name, &iv) &&
            iv.type == LSL_TYPE_INTEGER) {
            lsl_type it = cexpr(c, r->items[1]->items[0]);
            if (it == T_ERR)
                return T_ERR;
            if (it == LSL_TYPE_LIST || it == LSL_TYPE_VOID) {
                fail(c, r->items[1]->line, r->items[1]->col, "%s", list_item_error(it));
                return T_ERR;
            }
            if (!load_var(c, &iv) || op(c, F3_LIST_SET_LOCAL, v.slot, 0, 0) < 0)
                return T_ERR;
            return LSL_TYPE_VOID;
        }
    }
    if (e->op == T_PLUS_ASSIGN && !want && member < 0 && vt == LSL_TYPE_LIST && r->kind == E_LIST &&
        r->nitems == 1) {
        lsl_type it = cexpr(c, r->items[0]); /* l += [x] appends x itself */
        if (it == T_ERR)
            return T_ERR;
        if (it == LSL_TYPE_LIST || it == LSL_TYPE_VOID) {
            fail(c, r->items[0]->line, r->items[0]->col, "%s", list_item_error(it));
            return T_ERR;
        }
        return op(c, v.global ? F3_APPEND_GLOBAL : F3_APPEND_LOCAL, v.slot, 0, 0) >= 0 ? LSL_TYPE_VOID : T_ERR;
    }
    return cassign_store(c, e, want, v, member, vt, cexpr(c, e->rhs));
}

/* The rest of an assignment, its right side (of type rt) compiled. */
static lsl_type cassign_store(c3 *c, const lsl_expr *e, bool want, var3 v, int member, lsl_type vt, lsl_type rt)
{
    if (rt == T_ERR)
        return T_ERR;
    /* s += string, l += anything: in place when the variable holds the only reference */
    if (e->op == T_PLUS_ASSIGN && !want && member < 0 &&
        ((vt == LSL_TYPE_STRING && rt == LSL_TYPE_STRING) || (vt == LSL_TYPE_LIST && rt != LSL_TYPE_VOID)))
        return op(c, v.global ? F3_APPEND_GLOBAL : F3_APPEND_LOCAL, v.slot, 0, 0) >= 0 ? LSL_TYPE_VOID : T_ERR;
    if (e->op == T_ASSIGN) {
        if (!coerce(c, rt, vt, e->line, e->col, "assignment"))
            return T_ERR;
    } else {
        if (!sl_compound_ok(e->op, vt, rt)) {
            fail(c, e->line, e->col, "Type mismatch: %s cannot take %s and %s", lsl_tok_name(e->op),
                 lsl_type_name(vt), lsl_type_name(rt));
            return T_ERR;
        }
        lsl_op o;
        tok_to_op(e->op, &o);
        if (member >= 0) {
            if (!load_var(c, &v) || op(c, F3_GET_MEMBER, member, 0, 0) < 0)
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
            if (op(c, F3_F2I, 0, 0, 0) < 0)
                return T_ERR;
        } else if (!coerce(c, res, vt, e->line, e->col, "assignment"))
            return T_ERR;
    }
    if (member >= 0) {
        if (want && op(c, F3_DUP, 0, 0, 0) < 0)
            return T_ERR;
        if (!load_var(c, &v) || op(c, F3_SET_MEMBER, member, 0, 0) < 0 || !store_var(c, &v, false))
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
        fail(c, e->line, e->col, "Type mismatch: ++/-- needs an integer or float");
        return T_ERR;
    }
    if (vt == LSL_TYPE_INTEGER) {
        if (want && post && !load_var(c, &v))
            return T_ERR;
        if (op(c, v.global ? F3_INC_GLOBAL_I : F3_INC_LOCAL_I, v.slot, inc ? 1 : -1, 0) < 0)
            return T_ERR;
        if (want && !post && !load_var(c, &v))
            return T_ERR;
        return want ? vt : LSL_TYPE_VOID;
    }
    /* float (or a member): old value, then +-1.0 */
    if (want && post) {
        if (!load_var(c, &v) || (member >= 0 && op(c, F3_GET_MEMBER, member, 0, 0) < 0))
            return T_ERR;
    }
    float one = inc ? 1.0f : -1.0f;
    int32_t bits;
    memcpy(&bits, &one, 4);
    if (op(c, F3_PUSH_FLOAT, bits, 0, 0) < 0 || !load_var(c, &v) ||
        (member >= 0 && op(c, F3_GET_MEMBER, member, 0, 0) < 0) || op(c, F3_ADD_F, 0, 0, 0) < 0)
        return T_ERR;
    bool keep = want && !post;
    if (member >= 0) {
        if (keep && op(c, F3_DUP, 0, 0, 0) < 0)
            return T_ERR;
        if (!load_var(c, &v) || op(c, F3_SET_MEMBER, member, 0, 0) < 0 || !store_var(c, &v, false))
            return T_ERR;
    } else if (!store_var(c, &v, keep))
        return T_ERR;
    return want ? vt : LSL_TYPE_VOID;
}

/* No side effects, no calls: evaluating it cannot change a variable (the
 * parser's flag, ast.h). */
static bool pure_expr(const lsl_expr *e) { return e->pure; }

/* The leaves of an expression: literals, names, components, ++ / --. */
static lsl_type cleaf(c3 *c, const lsl_expr *e)
{
    switch (e->kind) {
    case E_INT:
        return op(c, F3_PUSH_INT, e->ival, 0, 0) >= 0 ? LSL_TYPE_INTEGER : T_ERR;
    case E_FLOAT:
        return push_value(c, lsl_float((float)e->fval)) ? LSL_TYPE_FLOAT : T_ERR;
    case E_STRING: {
        lsl_value v;
        gsvm_error ee;
        if (lsl_string_new(NULL, LSL_TYPE_STRING, e->sval, e->slen, &v, &ee) != GSVM_OK) {
            fail(c, e->line, e->col, "%s", ee.message);
            return T_ERR;
        }
        return push_value(c, v) ? LSL_TYPE_STRING : T_ERR;
    }
    case E_IDENT: {
        var3 v;
        if (find_var(c, e->name, &v))
            return load_var(c, &v) ? v.type : T_ERR;
        lsl_value k;
        if (lookup_constant(e->name, &k)) {
            lsl_type t = k.type;
            return push_value(c, k) ? t : T_ERR;
        }
        fail(c, e->line, e->col, "Name not defined within scope: '%s' is not declared", e->name);
        return T_ERR;
    }
    case E_MEMBER: {
        var3 v;
        int member;
        if (!lvalue(c, e, &v, &member))
            return T_ERR;
        if (!load_var(c, &v) || op(c, F3_GET_MEMBER, member, 0, 0) < 0)
            return T_ERR;
        return LSL_TYPE_FLOAT;
    }
    case E_PREINC: case E_PREDEC: case E_POSTINC: case E_POSTDEC:
        return cincdec(c, e, true);
    default:
        fail(c, e->line, e->col, "unknown expression");
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
    if (!reserve(c, (void **)&c->ef, &c->capef, c->nef, sizeof *c->ef))
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
static lsl_type cexpr(c3 *c, const lsl_expr *root)
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
            if (f->i > 0 && !coerce(c, r, LSL_TYPE_FLOAT, e->items[f->i - 1]->line, e->items[f->i - 1]->col,
                                    "component"))
                break;
            if (f->i < e->nitems) {
                child = e->items[f->i++];
                break;
            }
            if (e->kind == E_VECTOR)
                res = op(c, F3_MKVEC, 0, 0, 0) >= 0 ? LSL_TYPE_VECTOR : T_ERR;
            else
                res = op(c, F3_MKROT, 0, 0, 0) >= 0 ? LSL_TYPE_ROTATION : T_ERR;
            break;
        case E_LIST:
            if (f->i > 0 && (r == LSL_TYPE_LIST || r == LSL_TYPE_VOID)) {
                fail(c, e->items[f->i - 1]->line, e->items[f->i - 1]->col, "%s",
                     list_item_error(r));
                break;
            }
            if (f->i < e->nitems) {
                child = e->items[f->i++];
                break;
            }
            res = emit(c, F3_MKLIST, (int32_t)e->nitems, 0, 0, (int)e->nitems, 1) >= 0 ? LSL_TYPE_LIST : T_ERR;
            break;
        case E_CALL:
            if (f->stage == 0) {
                long fi;
                if (lsl_names_get(&c->fnames, e->name, &fi)) {
                    f->fn = &c->sc->funcs[fi];
                    if (e->nitems != f->fn->nparams) {
                        fail(c, e->line, e->col, "Function call mismatches type or number of arguments: %s takes %zu arguments, not %zu", f->fn->name, f->fn->nparams,
                             e->nitems);
                        break;
                    }
                } else {
                    const lsl_builtin *b = lsl_builtin_by_name(e->name, strlen(e->name));
                    if (!b) {
                        fail(c, e->line, e->col, "Name not defined within scope: no function named '%s'", e->name);
                        break;
                    }
                    if (e->nitems != b->nargs) {
                        fail(c, e->line, e->col, "Function call mismatches type or number of arguments: %s takes %u arguments, not %zu", b->name, b->nargs, e->nitems);
                        break;
                    }
                    f->b = b;
                    var3 lv;
                    if ((b->id == LSL_ID_llList2Integer || b->id == LSL_ID_llList2Float) &&
                        e->items[0]->kind == E_IDENT && find_var(c, e->items[0]->name, &lv) && !lv.global &&
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
                if (coerce_arg(c, r, lsl_builtin_arg_type(b, 1), e->items[1], 1, b->name))
                    res = op(c, F3_LIST_GET_L, f->lslot, b->id, 0) >= 0 ? b->ret : T_ERR;
                break;
            }
            if (f->i > 0) {
                size_t k = f->i - 1;
                lsl_type want = f->fn ? f->fn->params[k].type : lsl_builtin_arg_type(f->b, (unsigned)k);
                if (!coerce_arg(c, r, want, e->items[k], k, f->fn ? f->fn->name : f->b->name))
                    break;
            }
            if (f->i < e->nitems) {
                child = e->items[f->i++];
                break;
            }
            if (f->fn) {
                if (emit(c, F3_CALL, (int32_t)(f->fn - c->sc->funcs), 0, 0, (int)f->fn->nparams,
                         f->fn->ret != LSL_TYPE_VOID) >= 0)
                    res = f->fn->ret;
            } else if (emit(c, F3_CALLB, f->b->id, f->b->nargs, 0, f->b->nargs, f->b->ret != LSL_TYPE_VOID) >= 0) {
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
                fail(c, e->line, e->col, "Type mismatch: operator %s cannot take %s", lsl_tok_name(e->op), lsl_type_name(r));
                break;
            }
            fal3_op o = F3_UNOP;
            if (r == LSL_TYPE_INTEGER)
                o = u == LSL_UOP_NEG ? F3_NEG_I : u == LSL_UOP_NOT ? F3_NOT_I : F3_BNOT_I;
            else if (r == LSL_TYPE_FLOAT && u == LSL_UOP_NEG)
                o = F3_NEG_F;
            res = op(c, o, u, 0, 0) >= 0 ? rt : T_ERR;
            break;
        }
        case E_BINARY: {
            lsl_op o;
            if (!tok_to_op(e->op, &o)) {
                fail(c, e->line, e->col, "unknown operator %s", lsl_tok_name(e->op));
                break;
            }
            if (f->stage == 0) { /* right to left */
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
                fail(c, e->line, e->col, "Type mismatch: cannot cast %s to %s", lsl_type_name(r), lsl_type_name(to));
                break;
            }
            if (r == LSL_TYPE_INTEGER && to == LSL_TYPE_FLOAT)
                res = op(c, F3_I2F, 0, 0, 0) >= 0 ? to : T_ERR;
            else if (r == LSL_TYPE_FLOAT && to == LSL_TYPE_INTEGER)
                res = op(c, F3_F2I, 0, 0, 0) >= 0 ? to : T_ERR;
            else
                res = op(c, F3_CAST, to, 0, 0) >= 0 ? to : T_ERR;
            break;
        }
        case E_PRINT:
            if (f->stage++ == 0) {
                child = e->lhs;
                break;
            }
            if (r == LSL_TYPE_VOID) {
                fail(c, e->lhs->line, e->lhs->col, "Type mismatch: print needs a value");
                break;
            }
            if (r != LSL_TYPE_STRING && op(c, F3_CAST, LSL_TYPE_STRING, 0, 0) < 0)
                break;
            res = op(c, F3_PRINT, 0, 0, 0) >= 0 ? LSL_TYPE_VOID : T_ERR;
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

static bool cexpr_stmt(c3 *c, const lsl_expr *e)
{
    lsl_type t;
    if (e->kind == E_ASSIGN)
        t = cassign(c, e, false);
    else if (e->kind >= E_PREINC && e->kind <= E_POSTDEC)
        t = cincdec(c, e, false);
    else
        t = cexpr(c, e);
    if (t == T_ERR)
        return false;
    return t == LSL_TYPE_VOID || op(c, F3_POP, 0, 0, 0) >= 0;
}

static bool local_int(c3 *c, const lsl_expr *e, int *slot)
{
    var3 v;
    if (e->kind == E_IDENT && find_var(c, e->name, &v) && !v.global && v.type == LSL_TYPE_INTEGER) {
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
    if (!reserve(c, (void **)&c->scan, &c->capscan, c->nscan, sizeof *c->scan))
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
            if (!find_var(c, e->name, &v) ||
                !(v.type == LSL_TYPE_INTEGER || (quiet && v.type == LSL_TYPE_FLOAT)))
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
static bool int_expr(c3 *c, const lsl_expr *e) { return numeric_tree(c, e, false); }

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
    return in->op == F3_JZ_IOP_LL || in->op == F3_JNZ_IOP_LL || in->op == F3_JCMPF_LK || in->op == F3_JCMPF_LKT;
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

/* The tests of such `A && B`s are its leaves, compiled left to right, each
 * one false-jump; the chain runs from the last one's back to the first's.
 * `todo` holds the operands still to compile (no recursion). */
static long ccond_false(c3 *c, const lsl_expr *e)
{
    const lsl_expr **todo = NULL;
    size_t n = 0, cap = 0;
    long chain = -1;
    if (!reserve(c, (void **)&todo, &cap, n, sizeof *todo))
        return -1;
    todo[n++] = e;
    while (n) {
        e = todo[--n];
        if (split_and(c, e)) {
            if (!reserve(c, (void **)&todo, &cap, n + 1, sizeof *todo)) {
                chain = -1;
                break;
            }
            todo[n++] = e->rhs;
            todo[n++] = e->lhs; /* the left one first */
            continue;
        }
        long j = ccond_false1(c, e);
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
        if (find_var(c, e->name, &v) && !v.global && v.type == LSL_TYPE_INTEGER)
            return op(c, F3_JZ_L, v.slot, -1, 0); /* `while (flag)` */
    }
    if (e->kind == E_BINARY && (e->op == T_LT || e->op == T_LE || e->op == T_GT || e->op == T_GE ||
                                e->op == T_EQ || e->op == T_NE)) {
        int l, r;
        if (local_int(c, e->rhs, &r) && !local_int(c, e->lhs, &l) && pure_expr(e->lhs) && int_expr(c, e->lhs)) {
            /* `d * d <= n`: the left side first (both pure), then one
             * compare-and-branch against the local */
            lsl_type lt = cexpr(c, e->lhs);
            if (lt == T_ERR)
                return -1;
            fal3_op cmp = e->op == T_LT ? F3_LT_I : e->op == T_LE ? F3_LE_I : e->op == T_GT ? F3_GT_I
                        : e->op == T_GE ? F3_GE_I : e->op == T_EQ ? F3_EQ_I : F3_NE_I;
            return emit(c, F3_JCMP_IL, r, cmp, -1, 1, 0);
        }
    }
    if (e->kind == E_BINARY && (e->op == T_LT || e->op == T_LE || e->op == T_GT)) {
        int l, r;
        if (local_int(c, e->lhs, &l)) {
            if (local_int(c, e->rhs, &r)) {
                if (e->op == T_LT)
                    return op(c, F3_JGE_LL, l, r, -1);
                if (e->op == T_LE)
                    return op(c, F3_JGT_LL, l, r, -1);
                return op(c, F3_JGE_LL, r, l, -1); /* l > r false when r >= l */
            }
            var3 g;
            if (e->rhs->kind == E_IDENT && find_var(c, e->rhs->name, &g) && g.global && g.type == LSL_TYPE_INTEGER &&
                e->op != T_GT) {
                /* a loop bound held in a global: one compare-and-branch */
                return op(c, e->op == T_LT ? F3_JGE_LG : F3_JGT_LG, l, g.slot, -1);
            }
            if (e->rhs->kind == E_INT) {
                if (e->op == T_LT)
                    return op(c, F3_JGE_LI, l, e->rhs->ival, -1);
                if (e->op == T_LE)
                    return op(c, F3_JGT_LI, l, e->rhs->ival, -1);
            }
        }
    }
    lsl_type t = cexpr(c, e);
    if (t == T_ERR)
        return -1;
    if (t == LSL_TYPE_VOID) {
        fail(c, e->line, e->col, "Type mismatch: a condition cannot be void");
        return -1;
    }
    if (t != LSL_TYPE_INTEGER && op(c, F3_TRUTH, 0, 0, 0) < 0)
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
        if (c->p->ncode == c->barrier + 1 && code[c->barrier].op == F3_IOP_LL) {
            /* `n % d == 0`: the operation and the test in one */
            fal3_insn *in = &code[c->barrier];
            in->op = e->op == T_EQ ? F3_JNZ_IOP_LL : F3_JZ_IOP_LL;
            in->c = (in->c & 255) | (int32_t)(0xFFFFFFu << 8);
            c->sd -= 1;
            return (long)c->barrier;
        }
        return emit(c, e->op == T_EQ ? F3_JNZ : F3_JZ, -1, 0, 0, 1, 0);
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
            break;
        case F3_IOP_LL:
            if (n == c->barrier + 1) {
                last->op = F3_JZ_IOP_LL;
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
            return emit(c, j, -1, 0, 0, 2, 0);
        }
    }
    return op(c, F3_JZ, -1, 0, 0);
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
        ok = jf >= 0 && reserve(c, (void **)&skips, &cap, nskips, sizeof *skips);
        if (ok)
            skips[nskips++] = jf;
        e = e->rhs;
    }
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
    fal3_insn *in = &c->p->code[at];
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
    default: return fail(c, e->line, e->col, "internal: no inverse for a condition jump");
    }
    patch_false(c, at, target);
    return true;
}

static long find_label(c3 *c, const char *name, long line, long col, bool define)
{
    for (size_t i = 0; i < c->nlabels; i++)
        if (strcmp(c->labels[i].name, name) == 0) {
            if (define && c->labels[i].ip >= 0) {
                fail(c, line, col, "Name previously declared within scope: label '%s' is defined twice", name);
                return -1;
            }
            return (long)i;
        }
    if (c->nlabels == c->caplabels) {
        size_t nc = c->caplabels ? c->caplabels * 2 : 8;
        label3 *nl = realloc(c->labels, nc * sizeof *nl);
        if (!nl) {
            fail(c, line, col, "out of memory");
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
        return cexpr_stmt(c, s->expr);
    case S_DECL: {
        if (s->expr) {
            lsl_type t = cexpr(c, s->expr);
            if (!coerce(c, t, s->decl_type, s->expr->line, s->expr->col, "initializer"))
                return false;
        } else if (op(c, F3_PUSH_EMPTY, s->decl_type, 0, 0) < 0)
            return false;
        int slot = 0;
        if (!declare_local(c, s->name, s->decl_type, s->name_line, s->name_col, &slot))
            return false;
        return op(c, F3_STORE_LOCAL, slot, 0, 0) >= 0;
    }
    case S_JUMP: {
        long li = find_label(c, s->name, s->line, s->col, false);
        long at = op(c, F3_JMP, -1, 0, 0);
        if (li < 0 || at < 0)
            return false;
        if (c->nfixups == c->capfixups) {
            size_t nc = c->capfixups ? c->capfixups * 2 : 8;
            fixup3 *nf = realloc(c->fixups, nc * sizeof *nf);
            if (!nf)
                return fail(c, s->line, s->col, "out of memory");
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
                return fail(c, s->line, s->col,
                            "Return statement type doesn't match function return type: this %s returns no value",
                            c->in_event ? "event" : "function");
            lsl_type t = cexpr(c, s->expr);
            if (!coerce(c, t, c->ret, s->expr->line, s->expr->col, "return"))
                return false;
            return op(c, F3_RETV, 0, 0, 0) >= 0;
        }
        if (c->ret != LSL_TYPE_VOID)
            return fail(c, s->line, s->col,
                        "Function returns a value but return statement doesn't: return needs a value of type %s",
                        lsl_type_name(c->ret));
        return op(c, F3_RET, 0, 0, 0) >= 0;
    case S_STATE: {
        long si;
        /* Second Life refuses `state x;` in a function, except as the body
         * of an `if` without else: there it returns from the function and
         * the state changes when the handler ends */
        if (!c->in_event && !c->state_if_body)
            return fail(c, s->line, s->col, "Global functions can't change state");
        if (!lsl_names_get(&c->snames, s->name, &si))
            return fail(c, s->line, s->col, "Name not defined within scope: no state named '%s'", s->name);
        if (c->in_event)
            return op(c, F3_STATE, (int32_t)si, 0, 0) >= 0;
        if (op(c, F3_SET_STATE, (int32_t)si, 0, 0) < 0)
            return false;
        if (c->ret == LSL_TYPE_VOID)
            return op(c, F3_RET, 0, 0, 0) >= 0;
        return op(c, F3_PUSH_EMPTY, c->ret, 0, 0) >= 0 && op(c, F3_RETV, 0, 0, 0) >= 0;
    }
    case S_BLOCK: case S_IF: case S_WHILE: case S_DO: case S_FOR:
        break; /* cstmt's */
    }
    return fail(c, s->line, s->col, "unknown statement");
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
    if (!reserve(c, (void **)&c->sf, &c->capsf, c->nsf, sizeof *c->sf))
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
static bool cstmt(c3 *c, const lsl_stmt *root)
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
            leave_scope(c);
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
                    long je = op(c, F3_JMP, (int32_t)f->chain, 0, 0);
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
                    ok = cexpr_stmt(c, s->init[i]);
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
                ok = cexpr_stmt(c, s->step[i]);
            if (ok)
                ok = s->expr ? ccond_true(c, s->expr, f->top) : op(c, F3_JMP, (int32_t)f->top, 0, 0) >= 0;
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
                    leave_scope(c);
            }
            c->line = line0;
            c->col = col0;
            return false;
        }
    }
    return true;
}

/* Compiles one function or handler into p->funcs[index]. */
static bool cfunc(c3 *c, size_t index, const lsl_func *f, int event)
{
    fal3_func *fn = &c->p->funcs[index];
    c->nslots = 0;
    c->sd = c->max_sd = 0;
    c->nlabels = c->nfixups = 0;
    c->ret = f->ret;
    c->in_event = event >= 0;
    c->line = f->line; /* the prologue and the implicit return: the function's own line */
    c->col = f->col;
    lsl_names_clear(&c->lnames);
    c->nlocals = 0;
    c->depth = 1;
    const lsl_event_def *ed = NULL;
    if (event >= 0) {
        size_t ne;
        ed = &lsl_events(&ne)[event];
        if (f->nparams != ed->nargs)
            return fail(c, f->line, f->col, "Syntax error: event %s takes %u parameters, not %zu", f->name, ed->nargs, f->nparams);
    }
    for (size_t i = 0; i < f->nparams; i++) {
        if (ed && f->params[i].type != lsl_type_from_letter(ed->argtypes[i]))
            return fail(c, f->params[i].line, f->params[i].col, "Syntax error: parameter %zu of %s must be %s", i + 1,
                        f->name, lsl_type_name(lsl_type_from_letter(ed->argtypes[i])));
        int slot = 0;
        if (!declare_local(c, f->params[i].name, f->params[i].type, f->params[i].line, f->params[i].col, &slot))
            return false;
    }
    if (f->ret != LSL_TYPE_VOID && !f->body->returns) /* the parser's flag: Second Life's rule */
        return fail(c, f->line, f->col, "Not all code paths return a value");
    fn->entry = (uint32_t)c->p->ncode;
    c->depth = 2;
    c->invalid_il = false;
    if (!cstmt(c, f->body))
        return false;
    if (c->invalid_il) {
        /* Mono refuses the whole function when it is first called: its code
         * becomes that run-time error */
        c->p->ncode = fn->entry;
        c->nfixups = 0;
        c->barrier = fn->entry;
        if (op(c, F3_FAULT, 0, 0, 0) < 0)
            return false;
    }
    if (f->ret == LSL_TYPE_VOID) {
        if (op(c, F3_RET, 0, 0, 0) < 0)
            return false;
    } else if (op(c, F3_PUSH_EMPTY, f->ret, 0, 0) < 0 || op(c, F3_RETV, 0, 0, 0) < 0)
        return false;
    for (size_t i = 0; i < c->nfixups; i++) {
        label3 *l = &c->labels[c->fixups[i].label];
        if (l->ip < 0)
            return fail(c, l->line, l->col, "Name not defined within scope: no label '%s' in this function", l->name);
        c->p->code[c->fixups[i].at].a = (int32_t)l->ip;
    }
    fn->name = strdup(f->name);
    fn->ret = (uint8_t)f->ret;
    fn->event = event;
    fn->nparams = (uint32_t)f->nparams;
    fn->nslots = (uint32_t)c->nslots;
    fn->slot_types = malloc(c->nslots ? c->nslots : 1);
    fn->max_stack = (uint32_t)c->max_sd + 2;
    if (!fn->name || !fn->slot_types)
        return fail(c, f->line, f->col, "out of memory");
    if (c->nslots)
        memcpy(fn->slot_types, c->slot_types, c->nslots);
    size_t bytes = FAL3_FRAME_BYTES;
    for (size_t i = 0; i < c->nslots; i++) {
        lsl_value z = lsl_empty((lsl_type)c->slot_types[i]);
        bytes += lsl_value_slot_size(&z);
    }
    fn->frame_bytes = (uint32_t)bytes;
    return true;
}

static bool compile3(c3 *c, const lsl_script *sc)
{
    gsvm_lsl3_program *p = c->p;
    c->sc = sc;
    /* states first, so `state X;` may name a later one */
    size_t ndefault = 0;
    for (size_t i = 0; i < sc->nstates; i++)
        ndefault += sc->states[i].is_default;
    if (ndefault != 1)
        return fail(c, 1, 1, "Syntax error: a script needs exactly one default state");
    p->states = calloc(sc->nstates, sizeof *p->states);
    if (!p->states)
        return fail(c, 1, 1, "out of memory");
    p->nstate = sc->nstates;
    size_t si = 1;
    for (size_t i = 0; i < sc->nstates; i++) {
        const lsl_state *st = &sc->states[i];
        size_t at = st->is_default ? 0 : si++;
        long seen;
        if (lsl_names_get(&c->snames, st->name, &seen))
            return fail(c, st->line, st->col, "Name previously declared within scope: state '%s' is declared twice", st->name);
        if (!lsl_names_set(&c->snames, st->name, (long)at))
            return fail(c, 1, 1, "out of memory");
        p->states[at].name = strdup(st->name);
        if (!p->states[at].name)
            return fail(c, 1, 1, "out of memory");
        for (int k = 0; k < FAL3_EVENT_COUNT; k++)
            p->states[at].handler[k] = -1;
    }
    /* globals */
    c->gtypes = calloc(sc->nglobals ? sc->nglobals : 1, sizeof *c->gtypes);
    p->globals = calloc(sc->nglobals ? sc->nglobals : 1, sizeof *p->globals);
    p->global_names = calloc(sc->nglobals ? sc->nglobals : 1, sizeof *p->global_names);
    if (!c->gtypes || !p->globals || !p->global_names)
        return fail(c, 1, 1, "out of memory");
    for (size_t i = 0; i < sc->nglobals; i++) {
        const lsl_global *g = &sc->globals[i];
        long seen;
        if (lsl_names_get(&c->gnames, g->name, &seen))
            return fail(c, g->line, g->col, "Name previously declared within scope: global '%s' is declared twice", g->name);
        lsl_value v = fal3_zero(g->type);
        if (g->init) {
            if (!ceval(c, g->init, &v))
                return false;
            if (v.type == LSL_TYPE_INTEGER && g->type == LSL_TYPE_FLOAT)
                v = lsl_float((float)v.u.i);
            else if ((v.type == LSL_TYPE_STRING && g->type == LSL_TYPE_KEY) ||
                     (v.type == LSL_TYPE_KEY && g->type == LSL_TYPE_STRING))
                v.type = g->type; /* unshared NULL-heap object: retag in place */
            if (v.type != g->type) {
                lsl_type vt = v.type;
                lsl_value_release(&v);
                return fail(c, g->init->line, g->init->col, "Type mismatch: cannot initialize %s '%s' with %s",
                            lsl_type_name(g->type), g->name, lsl_type_name(vt));
            }
        }
        p->globals[i] = v;
        p->global_names[i] = strdup(g->name);
        p->nglobal = i + 1;
        if (!p->global_names[i])
            return fail(c, 1, 1, "out of memory");
        if (!lsl_names_set(&c->gnames, g->name, (long)i))
            return fail(c, 1, 1, "out of memory");
        c->gtypes[i] = g->type;
        c->ng = i + 1;
    }
    /* functions: user functions first (index = position), then handlers */
    size_t nh = 0;
    for (size_t i = 0; i < sc->nstates; i++)
        nh += sc->states[i].nevents;
    size_t total = sc->nfuncs + nh;
    if (total > FAL3_MAX_FUNCS)
        return fail(c, 1, 1, "too many functions");
    p->funcs = calloc(total ? total : 1, sizeof *p->funcs);
    if (!p->funcs)
        return fail(c, 1, 1, "out of memory");
    p->nfunc = total;
    for (size_t i = 0; i < sc->nfuncs; i++) {
        long seen;
        if (lsl_names_get(&c->fnames, sc->funcs[i].name, &seen))
            return fail(c, sc->funcs[i].line, sc->funcs[i].col, "Name previously declared within scope: function '%s' is declared twice", sc->funcs[i].name);
        if (!lsl_names_set(&c->fnames, sc->funcs[i].name, (long)i))
            return fail(c, 1, 1, "out of memory");
    }
    for (size_t i = 0; i < sc->nfuncs; i++)
        if (!cfunc(c, i, &sc->funcs[i], -1))
            return false;
    size_t fi = sc->nfuncs;
    for (size_t i = 0; i < sc->nstates; i++) {
        const lsl_state *st = &sc->states[i];
        long at;
        lsl_names_get(&c->snames, st->name, &at);
        for (size_t k = 0; k < st->nevents; k++) {
            const lsl_func *ev = &st->events[k];
            int ei = fal3_event_index(ev->name);
            if (ei < 0)
                return fail(c, ev->line, ev->col, "Syntax error: '%s' is not an event", ev->name);
            if (p->states[at].handler[ei] >= 0)
                return fail(c, ev->line, ev->col, "Name previously declared within scope: state '%s' handles %s twice", st->name, ev->name);
            if (!cfunc(c, fi, ev, ei))
                return false;
            p->states[at].handler[ei] = (int32_t)fi++;
        }
    }
    if (p->oom)
        return fail(c, 1, 1, "out of memory");
    return true;
}

static bool compile_tree(const lsl_script *sc, void *ctx) { return compile3(ctx, sc); }

gsvm_status gsvm_lsl3_compile(const char *source, size_t len, const char *file,
                              gsvm_lsl3_program **out, gsvm_error *err)
{
    *out = NULL;
    c3 c;
    memset(&c, 0, sizeof c);
    c.file = file;
    c.err = err;
    c.p = fal3_program_new();
    if (!c.p)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
    gsvm_status st = lsl_front_end(source, len, file, compile_tree, &c, err);
    free(c.gtypes);
    free(c.locals);
    free(c.slot_types);
    free(c.labels);
    free(c.fixups);
    free(c.ef);
    free(c.sf);
    free(c.scan);
    lsl_names_free(&c.gnames);
    lsl_names_free(&c.fnames);
    lsl_names_free(&c.snames);
    lsl_names_free(&c.lnames);
    if (st == GSVM_OK)
        st = fal3_program_seal(c.p, err);
    if (st != GSVM_OK) {
        gsvm_lsl3_program_free(c.p);
        return st;
    }
    *out = c.p;
    return GSVM_OK;
}
