/* Decimal text of unsigned integers without stdio: the listers print
 * millions of numbers (the hks corpus listing ~20 million), and casts of
 * integers to strings are the hot step of string-building LSL scripts. */
#ifndef GSVM_BASE_DECIMAL_H
#define GSVM_BASE_DECIMAL_H

#include <stdint.h>

/* The "00".."99" pairs, so that a decimal costs one table read per two digits. */
extern const char gsvm_digit_pairs[201];

/* Writes the decimal of v at o (no NUL; room for 10 bytes is the caller's)
 * and returns the end.  Counts the digits first, then fills them in from
 * the right, two at a time. */
static inline char *gsvm_decimal_u32(char *o, uint32_t v)
{
    int n = v < 10u ? 1 : v < 100u ? 2 : v < 1000u ? 3 : v < 10000u ? 4 : v < 100000u ? 5
          : v < 1000000u ? 6 : v < 10000000u ? 7 : v < 100000000u ? 8 : v < 1000000000u ? 9 : 10;
    char *e = o + n;
    while (v >= 100u) {
        const char *d = gsvm_digit_pairs + 2u * (v % 100u);
        v /= 100u;
        *--e = d[1];
        *--e = d[0];
    }
    if (v >= 10u) {
        *--e = gsvm_digit_pairs[2u * v + 1u];
        *--e = gsvm_digit_pairs[2u * v];
    } else {
        *--e = (char)('0' + v);
    }
    return o + n;
}

/* The same for 64 bits (room for 20 bytes): above 32 bits, the leading
 * digits, then the last nine zero-padded. */
static inline char *gsvm_decimal_u64(char *o, uint64_t v)
{
    if (v <= UINT32_MAX)
        return gsvm_decimal_u32(o, (uint32_t)v);
    o = gsvm_decimal_u64(o, v / 1000000000u);
    uint32_t lo = (uint32_t)(v % 1000000000u);
    for (int i = 8; i >= 0; i--, lo /= 10u)
        o[i] = (char)('0' + lo % 10u);
    return o + 9;
}

#endif
