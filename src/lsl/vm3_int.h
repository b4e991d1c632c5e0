/* The ABI-3 VM's integer arithmetic as LSL defines it (wrapping, C's
 * truncating division, MIN / -1 = MIN), shared by the instruction loop's
 * handlers (vm3_exec.c, vm3_exec_fused.inc). */
#ifndef GSVM_LSL_VM3_INT_H
#define GSVM_LSL_VM3_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "lsl/prog3.h"

static inline int32_t wrap_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
static inline int32_t wrap_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
static inline int32_t wrap_mul(int32_t a, int32_t b) { return (int32_t)((uint32_t)a * (uint32_t)b); }

/* The integer operators that fused instructions carry in an operand
 * (IOpLK, IOpLG, IOpKR, IOpLKS) and their results on l and r; division and
 * modulo, which can fault, are apart.  int_op and the threaded
 * interpreter's handlers per operator expand from this list. */
#define F3_INT_OPS(X)                                                          \
    X(ADD_I, wrap_add(l, r)) X(SUB_I, wrap_sub(l, r)) X(MUL_I, wrap_mul(l, r)) \
    X(BAND_I, l & r) X(BOR_I, l | r) X(BXOR_I, l ^ r)                          \
    X(SHL_I, (int32_t)((uint32_t)l << (r & 31))) X(SHR_I, l >> (r & 31))       \
    X(EQ_I, l == r) X(NE_I, l != r) X(LT_I, l < r) X(LE_I, l <= r)             \
    X(GT_I, l > r) X(GE_I, l >= r)

/* The operators of JzIOpLL / JnzIOpLL: all the above, division and modulo too. */
#define F3_INT_OPS_ALL(X) F3_INT_OPS(X) X(DIV_I, 0) X(MOD_I, 0)

/* l / r and l % r for r != 0, as LSL (C's truncation; MIN / -1 = MIN,
 * MIN % -1 = 0). */
static inline int32_t div_i(int32_t l, int32_t r) { return r == -1 ? (int32_t)(0u - (uint32_t)l) : l / r; }
static inline int32_t mod_i(int32_t l, int32_t r) { return r == -1 ? 0 : l % r; }

/* The same for a constant divisor r != 0 (IOpLK, IOpLKS): a positive power
 * of two (bit sets: `m / 32`, `m % 32`) takes shifts instead of a hardware
 * division, which costs tens of cycles.  Only for constants: on a divisor
 * that varies (Euclid's `a % b`) the test is a branch the CPU mispredicts. */
static inline bool pow2_k(int32_t r) { return r > 0 && (r & (r - 1)) == 0; }

#if defined(__GNUC__)
/* l / r and l % r for r a positive power of two (pow2_k): round toward
 * zero by biasing a negative l by r - 1 first; the remainder is l less
 * the biased l with its low bits cleared (the quotient times r). */
static inline int32_t div_p2(int32_t l, int32_t r) { return (l + ((l >> 31) & (r - 1))) >> __builtin_ctz((unsigned)r); }
static inline int32_t mod_p2(int32_t l, int32_t r)
{
    return (int32_t)((uint32_t)l - ((uint32_t)(l + ((l >> 31) & (r - 1))) & (uint32_t)-r));
}
#endif

static inline int32_t div_k(int32_t l, int32_t r)
{
#if defined(__GNUC__)
    if (pow2_k(r))
        return div_p2(l, r);
#endif
    return div_i(l, r);
}

static inline int32_t mod_k(int32_t l, int32_t r)
{
#if defined(__GNUC__)
    if (pow2_k(r))
        return mod_p2(l, r);
#endif
    return mod_i(l, r);
}

/* l OP r for the integer operator whose opcode is `op`; false on a Math
 * Error (division or modulo by zero).  `k`: r is the instruction's constant. */
static inline bool int_op_by(int32_t op, int32_t l, int32_t r, int32_t *v, bool k)
{
    switch (op) {
#define X(name, expr) case F3_##name: *v = (expr); return true;
        F3_INT_OPS(X)
#undef X
    case F3_DIV_I: if (r == 0) return false; *v = k ? div_k(l, r) : div_i(l, r); return true;
    case F3_MOD_I: if (r == 0) return false; *v = k ? mod_k(l, r) : mod_i(l, r); return true;
    default: *v = 0; return true; /* the verifier admits no other operator */
    }
}

static inline bool int_op(int32_t op, int32_t l, int32_t r, int32_t *v) { return int_op_by(op, l, r, v, false); }

/* l / d and l % d for a constant d with |d| >= 2 by a multiply-high instead
 * of a hardware division: with m = ceil(2^64 / |d|) (recip_k, computed when
 * the instruction's handler is chosen), floor(n * m / 2^64) is n / |d|
 * exactly for every n < 2^32 (Lemire, Kaser and Kurz, "Faster remainder by
 * direct computation", 2019).  The signs then follow C's truncation: the
 * quotient is negative when the signs differ, the remainder has l's sign. */
static inline uint64_t recip_k(int32_t d)
{
    uint32_t ad = d < 0 ? 0u - (uint32_t)d : (uint32_t)d;
    return UINT64_MAX / ad + 1;
}

static inline uint32_t mulhi_k(uint32_t n, uint64_t m) { return (uint32_t)(((unsigned __int128)m * n) >> 64); }

static inline int32_t div_m(int32_t l, int32_t d, uint64_t m)
{
    uint32_t s = (uint32_t)(l >> 31), sq = s ^ (uint32_t)(d >> 31); /* all ones when negative */
    uint32_t q = mulhi_k(((uint32_t)l ^ s) - s, m);
    return (int32_t)((q ^ sq) - sq);
}

static inline int32_t mod_m(int32_t l, int32_t d, uint64_t m)
{
    uint32_t s = (uint32_t)(l >> 31), al = ((uint32_t)l ^ s) - s;
    uint32_t ad = d < 0 ? 0u - (uint32_t)d : (uint32_t)d;
    uint32_t r = al - mulhi_k(al, m) * ad;
    return (int32_t)((r ^ s) - s);
}

/* Whether div_m / mod_m serve the constant divisor d: not 0 (a Math
 * Error), not 1 or -1 (m would not fit), not a positive power of two
 * (div_k's shifts are cheaper still). */
static inline bool recip_fits(int32_t d) { return d != 0 && d != 1 && d != -1 && !(d > 0 && (d & (d - 1)) == 0); }

#endif
