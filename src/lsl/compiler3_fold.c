/* ABI-3 compiler: constant folding (global initializers, constant expressions). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsl/compiler3.h"

bool c3_lookup_constant(const char *name, lsl_value *out)
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
            return c3_fail(c, e->line, e->col, "%s", ee.message);
        return true;
    case E_IDENT: {
        long gi;
        if (lsl_names_get(&c->gnames, e->name, &gi)) {
            *out = c->p->globals[gi];
            lsl_value_retain(out);
            return true;
        }
        if (c3_lookup_constant(e->name, out))
            return true;
        return c3_fail(c, e->line, e->col, "Name not defined within scope: '%s' is not a constant or an earlier global", e->name);
    }
    default:
        return c3_fail(c, e->line, e->col, "Syntax error: a global initializer must be a constant expression");
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
        !c3_lookup_constant(x->name, &k))
        return false;
    bool number = k.type == LSL_TYPE_INTEGER || k.type == LSL_TYPE_FLOAT;
    lsl_value_release(&k);
    return number;
}

bool c3_ceval(c3 *c, const lsl_expr *root, lsl_value *out)
{
    cframe3 *fs = NULL;
    lsl_value *vs = NULL;
    size_t nf = 0, capf = 0, nv = 0, capv = 0;
    bool ok = c3_reserve(c, (void **)&fs, &capf, nf, sizeof *fs);
    if (ok)
        fs[nf++] = (cframe3){.e = root};
    gsvm_error ee;
    while (ok && nf) {
        cframe3 *f = &fs[nf - 1];
        const lsl_expr *e = f->e;
        const lsl_expr *child = NULL;
        lsl_value v = {0};
        if (!c3_reserve(c, (void **)&vs, &capv, nv, sizeof *vs)) {
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
                    ok = c3_fail(c, e->items[f->i - 1]->line, e->items[f->i - 1]->col,
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
                ok = c3_fail(c, e->items[f->i - 1]->line, e->items[f->i - 1]->col, "Lists can't be included in lists");
                break;
            }
            if (f->i < e->nitems) {
                child = e->items[f->i++];
                break;
            }
            if (lsl_list_adopt(NULL, vs + f->vbase, nv - f->vbase, &v, &ee) != GSVM_OK) {
                ok = c3_fail(c, e->line, e->col, "%s", ee.message);
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
                    ok = c3_fail(c, e->line, e->col, "Syntax error: a global initializer must be a constant expression");
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
                ok = c3_fail(c, e->line, e->col, "Type mismatch: cannot cast %s to %s", lsl_type_name(v.type),
                          lsl_type_name(e->cast_type));
                break;
            } else {
                st = lsl_value_cast(NULL, &v, e->cast_type, &vs[nv], &ee);
            }
            lsl_value_release(&v);
            if (st != GSVM_OK) {
                ok = c3_fail(c, e->line, e->col, "%s", ee.message);
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
            if ((ok = c3_reserve(c, (void **)&fs, &capf, nf, sizeof *fs)))
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
