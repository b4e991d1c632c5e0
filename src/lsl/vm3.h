/* The ABI-3 interpreter's private parts, shared by vm3.c (life cycle,
 * events, handler starts, run), vm3_calls.c (the builtin boundary) and
 * vm3_exec.c (the instruction loop, with vm3_exec_fused.inc). */
#ifndef GSVM_LSL_VM3_H
#define GSVM_LSL_VM3_H

#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "lsl/hostcall.h"
#include "lsl/lib.h"
#include "lsl/prog3.h"

#if defined(__GNUC__) && !defined(GSVM_LSL_NO_COMPUTED_GOTO)
#define F3_THREADED 1
#else
#define F3_THREADED 0
#endif

#define HEAPTYPE(t) ((1u << (t)) & ((1u << LSL_TYPE_STRING) | (1u << LSL_TYPE_KEY) | (1u << LSL_TYPE_LIST)))

static inline void vretain(const lsl_value *v)
{
    if (HEAPTYPE(v->type))
        lsl_value_retain(v);
}

static inline void vrelease(lsl_value *v)
{
    if (HEAPTYPE(v->type))
        lsl_value_release(v);
}

/* *d = *s, copying only the bytes the type uses.  Typed instructions write
 * a number's 4 bytes alone; copying the whole 24-byte slot right after such
 * a narrow write would make the CPU wait for the write to land (a failed
 * store-to-load forward, ~a dozen cycles each time). */
static inline void vcopy(lsl_value *d, const lsl_value *s)
{
    d->type = s->type;
    if (s->type <= LSL_TYPE_FLOAT)
        d->u.i = s->u.i;
    else if (s->type == LSL_TYPE_VECTOR || s->type == LSL_TYPE_ROTATION)
        memcpy(d->u.v, s->u.v, sizeof d->u.v);
    else
        d->u.s = s->u.s; /* string, key, list: the pointer (same place in the union) */
}

/* A float on the operand stack is its double (u.t.d, Mono's temporaries);
 * in a variable (a frame slot, a global) and everywhere else, its float32
 * (u.f).  vload pushes a variable's value, vstore stores a stack value
 * (rounding a float), vdup copies within the stack. */
static inline void vload(lsl_value *d, const lsl_value *s)
{
    if (s->type == LSL_TYPE_FLOAT) {
        d->type = LSL_TYPE_FLOAT;
        d->u.t.d = s->u.f;
    } else
        vcopy(d, s);
}

static inline void vstore(lsl_value *d, const lsl_value *s)
{
    if (s->type == LSL_TYPE_FLOAT) {
        d->type = LSL_TYPE_FLOAT;
        d->u.f = (float)s->u.t.d;
    } else
        vcopy(d, s);
}

static inline void vdup(lsl_value *d, const lsl_value *s)
{
    if (s->type == LSL_TYPE_FLOAT) {
        d->type = LSL_TYPE_FLOAT;
        d->u.t.d = s->u.t.d;
    } else
        vcopy(d, s);
}

/* A stack value about to be read as an LSL value (by the library, a list,
 * a vector, a call): a float rounded to its float32. */
static inline void fround(lsl_value *v)
{
    if (v->type == LSL_TYPE_FLOAT)
        v->u.f = (float)v->u.t.d;
}

static inline void fround_n(lsl_value *v, int32_t n)
{
    for (int32_t k = 0; k < n; k++)
        fround(&v[k]);
}

/* For x / k by the float k (bits a): when k is a power of two, the bits of
 * 1/k, exact, so x * (1/k) rounds the same real number x / k does. */
static inline bool recip_exact(int32_t a, int32_t *bits)
{
    float k, inv;
    memcpy(&k, &a, 4);
    inv = 1.0f / k;
    if (!isfinite(k) || k == 0.0f || !isfinite(inv) || (double)inv * k != 1.0)
        return false;
    memcpy(bits, &inv, 4);
    return true;
}

#define IS_NUMBER(t) ((t) == LSL_TYPE_INTEGER || (t) == LSL_TYPE_FLOAT)

/* Number results written field by field, for the same reason. */
#define SET_I(p, x) do { (p)->type = LSL_TYPE_INTEGER; (p)->u.i = (x); } while (0)
#define SET_F(p, x) do { float f_ = (x); (p)->type = LSL_TYPE_FLOAT; (p)->u.f = f_; (p)->u.t.d = f_; } while (0)

/* Float temporaries (Mono's precision): the VM's float arithmetic reads and
 * writes an operand stack value's double (D), keeping its float32 rounding
 * beside it for every other reader; a float32 operand (a local, a
 * constant) is widened exactly.  A store rounds (vcopy, the fused stores). */
#define FD(p) ((p)->u.t.d)
#define PUT_D(p, x) do { (p)->u.t.d = (x); } while (0)
#define PUSH_D(p, x) do { (p)->type = LSL_TYPE_FLOAT; PUT_D(p, x); } while (0)

/* A value the library made, now on the stack: a float's double is its float32. */
static inline void fnorm(lsl_value *v)
{
    if (v->type == LSL_TYPE_FLOAT)
        v->u.t.d = v->u.f;
}

void fal3_reset_script(gsvm_lsl3_vm *vm);
void fal3_set_fault(gsvm_lsl3_vm *vm, uint32_t ip, const char *msg);
void fal3_unwind(gsvm_lsl3_vm *vm);
int fal3_call_host(gsvm_lsl3_vm *vm, const lsl_builtin *b, lsl_value *args, lsl_value *ret, gsvm_error *err);
bool fal3_fast_builtin(gsvm_lsl3_vm *vm, int32_t id, const lsl_value *args, lsl_value *ret, gsvm_error *err,
                         int *r);
int fal3_vm_service(gsvm_lsl3_vm *vm, const lsl_builtin *b, lsl_value *args, lsl_value *ret, gsvm_error *err);
bool fal3_exec(gsvm_lsl3_vm *vm, uint64_t *left);

/* The heap and the frames past the limit (a Stack-Heap Collision); keeps the peak. */
static inline bool fal3_heap_over(gsvm_lsl3_vm *vm)
{
    size_t total = vm->hp->used + vm->hp->extra;
    if (total > vm->hp->peak)
        vm->hp->peak = total;
    return vm->hp->limit && total > vm->hp->limit;
}

/* what a builtin call did (fal3_vm_service, fal3_call_host, fal3_fast_builtin) */
enum { CALL_OK, CALL_FAULT, CALL_RESET };

#endif
