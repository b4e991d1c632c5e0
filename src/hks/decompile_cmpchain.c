/* The HavokScript decompiler, comparison chains as values:
 * `f(a == 0 or a == 1)`, `x = a < b and c ~= d`.  Lua 5.1's exp2reg codes
 * a condition that needs a value as its tests, each with a JMP to one half
 * of a pair LOADBOOL R 0 1; LOADBOOL R 1 0 (false, skipping; true), the
 * last test falling into it.  The code after each JMP inside is the same
 * expression, no block of its own: its start is no leader, so a value
 * computed before the chain (the callee, earlier arguments) still folds
 * into the instruction after it; but not into a test after the first (it
 * would be computed only when the tests before it let it: a local).  (A single comparison is the JMP over
 * nothing but the pair, seen where the leaders are made; a chain with a
 * computed last operand is a boolean tail.) */
#include <stdlib.h>

#include "hks/decompile.h"

/* Whether the instruction at q jumps (JMP, a loop's), and where. */
static bool jump_at(const fn *F, int64_t q, int64_t *t)
{
    unsigned op = OPAT(F, q);
    if (op != HKS_I_JMP && op != HKS_I_FORPREP && op != HKS_I_FORLOOP)
        return false;
    *t = jmp_target(F, q);
    return true;
}

/* The pair at L (LOADBOOL R 0 1; LOADBOOL R 1 0) after the last test's JMP:
 * the chain's first test, or -1. */
static int64_t chain_start(const fn *F, int64_t L)
{
    uint32_t w0 = W(F, L), w1 = W(F, L + 1);
    if (A_(w0) != A_(w1) || B_(w0) != 0 || C_(w0) != 1 || B_(w1) != 1 || C_(w1) != 0)
        return -1;
    if (L < 2 || OPAT(F, L - 1) != HKS_I_JMP || !is_test(OPAT(F, L - 2)))
        return -1;
    uint32_t R = A_(w0);
    int64_t s = -1;
    /* back over test / JMP pairs that go forward into the chain or to the
     * pair, and the values their operands take (above R, temporaries) */
    for (int64_t q = L - 1; q >= 0; q--) {
        if (F->isdata[q])
            continue;
        unsigned op = F->op[q];
        if (op == HKS_I_JMP && q > 0 && is_test(OPAT(F, q - 1))) {
            int64_t t = jmp_target(F, q);
            if (t <= q + 1 || t > L + 1)
                break;
            s = q - 1;
            q--;
            continue;
        }
        if (is_test(op) || !dc_defines_value(F, q) || A_(W(F, q)) < R)
            break;
    }
    return s >= 0 && s < L - 2 ? s : -1;
}

void dc_find_cmp_chains(fn *F)
{
    int64_t n = F->n;
    for (int64_t L = 3; L + 1 < n; L++) {
        if (F->isdata[L] || F->op[L] != HKS_I_LOADBOOL || OPAT(F, L + 1) != HKS_I_LOADBOOL)
            continue;
        int64_t s = chain_start(F, L);
        if (s < 0 || F->bend[s] || F->vend[s])
            continue;
        /* nothing from outside [s, L) jumps into (s, L + 1] */
        bool ok = true;
        for (int64_t q = 0; q < n && ok; q++) {
            int64_t t;
            if (!F->isdata[q] && (q < s || q >= L) && jump_at(F, q, &t) && t > s && t <= L + 1)
                ok = false;
        }
        if (!ok)
            continue;
        for (int64_t q = s + 1; q < L; q++) {
            if (F->leader[q]) {
                F->leader[q] = 0;
                F->vjoin[q] = 1;
            }
            if (q > s + 1)
                F->cmpend[q] = (int32_t)L;
        }
    }
}

bool dc_cmp_pair_at(const fn *F, int64_t q)
{
    if (q < 2 || q + 1 >= F->n || OPAT(F, q) != HKS_I_LOADBOOL || OPAT(F, q + 1) != HKS_I_LOADBOOL)
        return false;
    uint32_t w0 = W(F, q), w1 = W(F, q + 1);
    return A_(w0) == A_(w1) && B_(w0) == 0 && C_(w0) == 1 && B_(w1) == 1 && C_(w1) == 0 &&
           OPAT(F, q - 1) == HKS_I_JMP && is_test(OPAT(F, q - 2));
}

/* A value region's code after its first test (a or (b == 1)) is marked like
 * a chain's: a value computed before the region and read there is a local. */
void dc_mark_region_reads(fn *F)
{
    for (int64_t s = 0; s < F->n; s++) {
        if (!F->vend[s])
            continue;
        for (int64_t q = s + 2; q < F->vend[s] && q < F->n; q++)
            if (!F->cmpend[q])
                F->cmpend[q] = F->vend[s];
    }
}
