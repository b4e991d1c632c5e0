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

#include "lsl/compiler3.h"

bool c3_fail(c3 *c, long line, long col, const char *fmt, ...)
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
const char *c3_list_item_error(lsl_type t)
{
    return t == LSL_TYPE_LIST ? "Lists can't be included in lists" : "Type mismatch: a list element cannot be void";
}

/* Room for element n of a work stack. */
bool c3_reserve(c3 *c, void **arr, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap)
        return true;
    size_t nc = *cap ? *cap * 2 : 64;
    void *na = realloc(*arr, nc * elem);
    if (!na)
        return c3_fail(c, 0, 0, "out of memory");
    *arr = na;
    *cap = nc;
    return true;
}

long c3_emit(c3 *c, fal3_op op, int32_t a, int32_t b, int32_t cc, int pops, int pushes)
{
    if (c->failed)
        return -1;
    fal3_mark_line(c->p, c->line > 0 ? (uint32_t)c->line : 0, c->line > 0 && c->col > 0 ? (uint32_t)c->col : 0);
    long at = fal3_emit(c->p, op, a, b, cc);
    if (at < 0) {
        c3_fail(c, 0, 0, "out of memory or program too large");
        return -1;
    }
    c->sd += pushes - pops;
    if (c->sd > c->max_sd)
        c->max_sd = c->sd;
    return at;
}

/* Emits with the stack effect of isa3.def; two loads of locals in a row
 * become one LoadLL (never across `barrier`). */
long c3_op(c3 *c, fal3_op o, int32_t a, int32_t b, int32_t cc)
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
    if (o == F3_GET_MEMBER && !c->failed && n > c->barrier && c->p->code[n - 1].op == F3_LOAD_LOCAL) {
        /* `v.x` on a local: the component read in its slot */
        c->p->code[n - 1] = (fal3_insn){F3_LOAD_MEMBER_L, c->p->code[n - 1].a, a, 0};
        return (long)n - 1;
    }
    if (o == F3_GET_MEMBER && !c->failed && n > c->barrier && c->p->code[n - 1].op == F3_LOAD_LL) {
        /* `x * v.y`: LoadLL x v splits so that v's component is read in its slot */
        fal3_insn *last = &c->p->code[n - 1];
        int32_t v = last->b;
        *last = (fal3_insn){F3_LOAD_LOCAL, last->a, 0, 0};
        return c3_emit(c, F3_LOAD_MEMBER_L, v, a, 0, 0, 0);
    }
    if (o == F3_I2F && !c->failed && n > c->barrier && c->p->code[n - 1].op == F3_PUSH_INT &&
        (double)(float)c->p->code[n - 1].a == (double)c->p->code[n - 1].a) {
        /* an integer literal used as a float: the float itself (when the
         * float32 holds it exactly, as the double temporary would) */
        float k = (float)c->p->code[n - 1].a;
        memcpy(&c->p->code[n - 1].a, &k, 4);
        c->p->code[n - 1].op = F3_PUSH_FLOAT;
        return (long)n - 1;
    }
    if (o == F3_I2F_UNDER && !c->failed && n >= c->barrier + 2 && c->p->code[n - 2].op == F3_PUSH_INT &&
        fal3_ops[c->p->code[n - 1].op].pops == 0 && fal3_ops[c->p->code[n - 1].op].pushes == 1 &&
        (double)(float)c->p->code[n - 2].a == (double)c->p->code[n - 2].a) {
        /* `x * 2` on a float x: the same for the literal under x */
        float k = (float)c->p->code[n - 2].a;
        memcpy(&c->p->code[n - 2].a, &k, 4);
        c->p->code[n - 2].op = F3_PUSH_FLOAT;
        return (long)n - 1;
    }
    if ((o == F3_NEG_F || o == F3_NEG_I) && !c->failed && n > c->barrier &&
        c->p->code[n - 1].op == (o == F3_NEG_F ? F3_PUSH_FLOAT : F3_PUSH_INT)) {
        /* `-16.0`, `-3`: the negative constant itself (a float's sign bit
         * flipped, as NegF does; an integer negated wrapping, as NegI) */
        fal3_insn *last = &c->p->code[n - 1];
        last->a = o == F3_NEG_F ? (int32_t)((uint32_t)last->a ^ 0x80000000u) : (int32_t)(0u - (uint32_t)last->a);
        return (long)n - 1;
    }
    if (o == F3_I2F && !c->failed && n > c->barrier && c->p->code[n - 1].op == F3_LOAD_LOCAL &&
        c->slot_types[c->p->code[n - 1].a] == LSL_TYPE_INTEGER) {
        c->p->code[n - 1].op = F3_LOAD_LOCAL_IF; /* an integer local joining a float expression */
        return (long)n - 1;
    }
    if (o == F3_I2F && !c->failed && n > c->barrier && c->p->code[n - 1].op == F3_F2I) {
        c->p->code[n - 1].op = F3_TRUNC_F; /* `(integer)x` used as a float */
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
    if (o == F3_STORE_LOCAL && !c->failed && n > c->barrier && c->p->code[n - 1].op == F3_IOP_K && a >= 0 &&
        a < (1 << 22)) {
        /* `x = expr OP k` on integers: the result goes to the slot */
        fal3_insn *last = &c->p->code[n - 1];
        last->op = F3_IOP_K_S;
        last->b = last->b | (a << 8);
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
    if (o == F3_STORE_LOCAL && !c->failed && n >= c->barrier + 4 && n >= 4 && c->p->code[n - 1].op == F3_SUBF_L) {
        /* `y = x - k * (integer)(x / k)`, LSL's float modulo: FOpLK x/k,
         * TruncF, MulFK k, SubFL x as one instruction */
        fal3_insn *q = &c->p->code[n - 4];
        if (q->op == F3_FOP_LK && q->c == F3_DIV_F && q->a == c->p->code[n - 1].a && q[1].op == F3_TRUNC_F &&
            q[2].op == F3_MULF_K && q[2].a == q->b) {
            *q = (fal3_insn){F3_FMOD_LK, q->a, q->b, a};
            c->p->ncode -= 3;
            c->sd -= 1;
            return (long)n - 4;
        }
    }
    if (o == F3_STORE_LOCAL && !c->failed && n > c->barrier &&
        (c->p->code[n - 1].op == F3_ADDF_L || c->p->code[n - 1].op == F3_SUBF_L || c->p->code[n - 1].op == F3_MULF_L)) {
        /* `t = t - expr`, `x = y * expr` on floats: the result goes to the slot */
        fal3_insn *last = &c->p->code[n - 1];
        fal3_op k = last->op == F3_ADDF_L ? F3_ADD_F : last->op == F3_SUBF_L ? F3_SUB_F : F3_MUL_F;
        *last = (fal3_insn){F3_FOP_L_S, last->a, k, a};
        c->sd -= 1;
        return (long)n - 1;
    }
    if (o == F3_STORE_LOCAL && !c->failed && n >= c->barrier + 2 && n >= 2 && a >= 0 && a < (1 << 22)) {
        /* vectors: `d = p - q` on locals, `v += expr` */
        fal3_insn *last = &c->p->code[n - 1], *prev = &c->p->code[n - 2];
        bool vop = last->op == F3_ADD_V || last->op == F3_SUB_V || last->op == F3_DOT_V;
        if (vop && prev->op == F3_LOAD_LL) { /* LoadLL pushes the right operand, then the left */
            *prev = (fal3_insn){F3_VOP_LL_S, prev->b, prev->a, last->op | (a << 8)};
            c->p->ncode -= 1;
            c->sd -= 1;
            return (long)n - 2;
        }
        if (vop && last->op != F3_DOT_V && prev->op == F3_LOAD_LOCAL && prev->a == a) {
            *prev = (fal3_insn){F3_VOP_TO_L, a, last->op, 0};
            c->p->ncode -= 1;
            c->sd -= 1;
            return (long)n - 2;
        }
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
    return c3_emit(c, o, a, b, cc, fal3_ops[o].pops, fal3_ops[o].pushes);
}

bool c3_push_value(c3 *c, lsl_value v)
{
    switch (v.type) {
    case LSL_TYPE_INTEGER:
        return c3_op(c, F3_PUSH_INT, v.u.i, 0, 0) >= 0;
    case LSL_TYPE_FLOAT: {
        int32_t bits;
        memcpy(&bits, &v.u.f, 4);
        return c3_op(c, F3_PUSH_FLOAT, bits, 0, 0) >= 0;
    }
    default: {
        if ((v.type == LSL_TYPE_STRING || v.type == LSL_TYPE_KEY) && !v.u.s)
            return c3_op(c, F3_PUSH_EMPTY, v.type, 0, 0) >= 0;
        if (v.type == LSL_TYPE_LIST && !v.u.l)
            return c3_op(c, F3_PUSH_EMPTY, v.type, 0, 0) >= 0;
        long k = fal3_const(c->p, v);
        if (k < 0)
            return c3_fail(c, 0, 0, "out of memory or too many constants");
        return c3_op(c, F3_PUSH_CONST, (int32_t)k, 0, 0) >= 0;
    }
    }
}

/* ---- names --------------------------------------------------------------- */


bool c3_find_var(c3 *c, const char *name, var3 *out)
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
        return c3_fail(c, 0, 0, "too many local variables");
    if (c->nslots == c->capslots) {
        size_t nc = c->capslots ? c->capslots * 2 : 16;
        uint8_t *n = realloc(c->slot_types, nc);
        if (!n)
            return c3_fail(c, 0, 0, "out of memory");
        c->slot_types = n;
        c->capslots = nc;
    }
    c->slot_types[c->nslots] = (uint8_t)t;
    *slot = (int)c->nslots++;
    return true;
}

bool c3_declare_local(c3 *c, const char *name, lsl_type t, long line, long col, int *slot)
{
    long prev = -1;
    if (!lsl_names_get(&c->lnames, name, &prev))
        prev = -1;
    if (prev >= 0 && c->locals[prev].depth == c->depth)
        return c3_fail(c, line, col, "Name previously declared within scope: '%s' is already declared in this scope", name);
    if (c->nlocals == c->caplocals) {
        size_t nc = c->caplocals ? c->caplocals * 2 : 16;
        local3 *nl = realloc(c->locals, nc * sizeof *nl);
        if (!nl)
            return c3_fail(c, line, col, "out of memory");
        c->locals = nl;
        c->caplocals = nc;
    }
    if (!new_slot(c, t, slot))
        return false;
    if (!lsl_names_set(&c->lnames, name, (long)c->nlocals))
        return c3_fail(c, line, col, "out of memory");
    c->locals[c->nlocals++] = (local3){name, t, *slot, c->depth, prev};
    return true;
}

void c3_leave_scope(c3 *c)
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
bool c3_coerce(c3 *c, lsl_type from, lsl_type to, long line, long col, const char *what)
{
    if (from == T_ERR)
        return false;
    if (from == to)
        return true;
    if (from == LSL_TYPE_INTEGER && to == LSL_TYPE_FLOAT)
        return c3_op(c, F3_I2F, 0, 0, 0) >= 0;
    if ((from == LSL_TYPE_STRING && to == LSL_TYPE_KEY) || (from == LSL_TYPE_KEY && to == LSL_TYPE_STRING))
        return c3_op(c, F3_CAST, to, 0, 0) >= 0;
    return c3_fail(c, line, col, "Type mismatch: %s: cannot use %s as %s", what, lsl_type_name(from), lsl_type_name(to));
}

static bool can_coerce(lsl_type from, lsl_type to)
{
    return from == to || (from == LSL_TYPE_INTEGER && to == LSL_TYPE_FLOAT) ||
           (from == LSL_TYPE_STRING && to == LSL_TYPE_KEY) || (from == LSL_TYPE_KEY && to == LSL_TYPE_STRING);
}

/* An argument: the message names the argument and the function. */
bool c3_coerce_arg(c3 *c, lsl_type from, lsl_type to, const lsl_expr *arg, size_t i, const char *fname)
{
    if (from == T_ERR)
        return false;
    if (!can_coerce(from, to))
        return c3_fail(c, arg->line, arg->col, "Function call mismatches type or number of arguments: argument %zu of %s must be %s, got %s", i + 1, fname,
                    lsl_type_name(to), lsl_type_name(from));
    return c3_coerce(c, from, to, arg->line, arg->col, "argument");
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
            return c3_fail(c, f->line, f->col, "Syntax error: event %s takes %u parameters, not %zu", f->name, ed->nargs, f->nparams);
    }
    for (size_t i = 0; i < f->nparams; i++) {
        if (ed && f->params[i].type != lsl_type_from_letter(ed->argtypes[i]))
            return c3_fail(c, f->params[i].line, f->params[i].col, "Syntax error: parameter %zu of %s must be %s", i + 1,
                        f->name, lsl_type_name(lsl_type_from_letter(ed->argtypes[i])));
        int slot = 0;
        if (!c3_declare_local(c, f->params[i].name, f->params[i].type, f->params[i].line, f->params[i].col, &slot))
            return false;
    }
    if (f->ret != LSL_TYPE_VOID && !f->body->returns) /* the parser's flag: Second Life's rule */
        return c3_fail(c, f->line, f->col, "Not all code paths return a value");
    fn->entry = (uint32_t)c->p->ncode;
    c->depth = 2;
    c->invalid_il = false;
    if (!c3_cstmt(c, f->body))
        return false;
    if (c->invalid_il) {
        /* Mono refuses the whole function when it is first called: its code
         * becomes that run-time error */
        c->p->ncode = fn->entry;
        c->nfixups = 0;
        c->barrier = fn->entry;
        if (c3_op(c, F3_FAULT, 0, 0, 0) < 0)
            return false;
    }
    if (f->ret == LSL_TYPE_VOID) {
        if (c3_op(c, F3_RET, 0, 0, 0) < 0)
            return false;
    } else if (c3_op(c, F3_PUSH_EMPTY, f->ret, 0, 0) < 0 || c3_op(c, F3_RETV, 0, 0, 0) < 0)
        return false;
    for (size_t i = 0; i < c->nfixups; i++) {
        label3 *l = &c->labels[c->fixups[i].label];
        if (l->ip < 0)
            return c3_fail(c, l->line, l->col, "Name not defined within scope: no label '%s' in this function", l->name);
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
        return c3_fail(c, f->line, f->col, "out of memory");
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
        return c3_fail(c, 1, 1, "Syntax error: a script needs exactly one default state");
    p->states = calloc(sc->nstates, sizeof *p->states);
    if (!p->states)
        return c3_fail(c, 1, 1, "out of memory");
    p->nstate = sc->nstates;
    size_t si = 1;
    for (size_t i = 0; i < sc->nstates; i++) {
        const lsl_state *st = &sc->states[i];
        size_t at = st->is_default ? 0 : si++;
        long seen;
        if (lsl_names_get(&c->snames, st->name, &seen))
            return c3_fail(c, st->line, st->col, "Name previously declared within scope: state '%s' is declared twice", st->name);
        if (!lsl_names_set(&c->snames, st->name, (long)at))
            return c3_fail(c, 1, 1, "out of memory");
        p->states[at].name = strdup(st->name);
        if (!p->states[at].name)
            return c3_fail(c, 1, 1, "out of memory");
        for (int k = 0; k < FAL3_EVENT_COUNT; k++)
            p->states[at].handler[k] = -1;
    }
    /* globals */
    c->gtypes = calloc(sc->nglobals ? sc->nglobals : 1, sizeof *c->gtypes);
    p->globals = calloc(sc->nglobals ? sc->nglobals : 1, sizeof *p->globals);
    p->global_names = calloc(sc->nglobals ? sc->nglobals : 1, sizeof *p->global_names);
    if (!c->gtypes || !p->globals || !p->global_names)
        return c3_fail(c, 1, 1, "out of memory");
    for (size_t i = 0; i < sc->nglobals; i++) {
        const lsl_global *g = &sc->globals[i];
        long seen;
        if (lsl_names_get(&c->gnames, g->name, &seen))
            return c3_fail(c, g->line, g->col, "Name previously declared within scope: global '%s' is declared twice", g->name);
        lsl_value v = fal3_zero(g->type);
        if (g->init) {
            if (!c3_ceval(c, g->init, &v))
                return false;
            if (v.type == LSL_TYPE_INTEGER && g->type == LSL_TYPE_FLOAT)
                v = lsl_float((float)v.u.i);
            else if ((v.type == LSL_TYPE_STRING && g->type == LSL_TYPE_KEY) ||
                     (v.type == LSL_TYPE_KEY && g->type == LSL_TYPE_STRING))
                v.type = g->type; /* unshared NULL-heap object: retag in place */
            if (v.type != g->type) {
                lsl_type vt = v.type;
                lsl_value_release(&v);
                return c3_fail(c, g->init->line, g->init->col, "Type mismatch: cannot initialize %s '%s' with %s",
                            lsl_type_name(g->type), g->name, lsl_type_name(vt));
            }
        }
        p->globals[i] = v;
        p->global_names[i] = strdup(g->name);
        p->nglobal = i + 1;
        if (!p->global_names[i])
            return c3_fail(c, 1, 1, "out of memory");
        if (!lsl_names_set(&c->gnames, g->name, (long)i))
            return c3_fail(c, 1, 1, "out of memory");
        c->gtypes[i] = g->type;
        c->ng = i + 1;
    }
    /* functions: user functions first (index = position), then handlers */
    size_t nh = 0;
    for (size_t i = 0; i < sc->nstates; i++)
        nh += sc->states[i].nevents;
    size_t total = sc->nfuncs + nh;
    if (total > FAL3_MAX_FUNCS)
        return c3_fail(c, 1, 1, "too many functions");
    p->funcs = calloc(total ? total : 1, sizeof *p->funcs);
    if (!p->funcs)
        return c3_fail(c, 1, 1, "out of memory");
    p->nfunc = total;
    for (size_t i = 0; i < sc->nfuncs; i++) {
        long seen;
        if (lsl_names_get(&c->fnames, sc->funcs[i].name, &seen))
            return c3_fail(c, sc->funcs[i].line, sc->funcs[i].col, "Name previously declared within scope: function '%s' is declared twice", sc->funcs[i].name);
        if (!lsl_names_set(&c->fnames, sc->funcs[i].name, (long)i))
            return c3_fail(c, 1, 1, "out of memory");
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
                return c3_fail(c, ev->line, ev->col, "Syntax error: '%s' is not an event", ev->name);
            if (p->states[at].handler[ei] >= 0)
                return c3_fail(c, ev->line, ev->col, "Name previously declared within scope: state '%s' handles %s twice", st->name, ev->name);
            if (!cfunc(c, fi, ev, ei))
                return false;
            p->states[at].handler[ei] = (int32_t)fi++;
        }
    }
    if (p->oom)
        return c3_fail(c, 1, 1, "out of memory");
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

