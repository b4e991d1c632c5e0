/* Small helpers shared by the listing printer and the assembler: string
 * escaping and number formatting that read back to the same bytes. */
#ifndef GSVM_HKS_TEXT_H
#define GSVM_HKS_TEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "gsvm/hks.h"

/* The "00".."99" pairs, so that a decimal costs one table read per two digits. */
extern const char hks_digit_pairs[201];

/* Writes the decimal of v at o (room for 10 bytes is the caller's) and
 * returns the end.  The listing prints ~20 million numbers for the corpus:
 * this is its hottest helper, so it counts the digits first and then fills
 * them in from the right, two at a time. */
static inline char *hks_w_u32(char *o, uint32_t v)
{
    int n = v < 10u ? 1 : v < 100u ? 2 : v < 1000u ? 3 : v < 10000u ? 4 : v < 100000u ? 5
          : v < 1000000u ? 6 : v < 10000000u ? 7 : v < 100000000u ? 8 : v < 1000000000u ? 9 : 10;
    char *e = o + n;
    while (v >= 100u) {
        const char *d = hks_digit_pairs + 2u * (v % 100u);
        v /= 100u;
        *--e = d[1];
        *--e = d[0];
    }
    if (v >= 10u) {
        *--e = hks_digit_pairs[2u * v + 1u];
        *--e = hks_digit_pairs[2u * v];
    } else {
        *--e = (char)('0' + v);
    }
    return o + n;
}

/* Appends an unsigned / signed decimal (faster than printf on hot paths). */
void hks_put_u(gsvm_buf *b, uint64_t v);
void hks_put_i(gsvm_buf *b, int64_t v);
/* A string as `null`, `"text"` (stored with a final NUL) or `nonul"text"`.
 * `limit` > 0 truncates (for comments only; then "..." marks the cut). */
void hks_put_str(gsvm_buf *b, const gsvm_hks_str *s, size_t limit);
/* A number constant's value that parses back to the same bits. */
void hks_put_number(gsvm_buf *b, uint64_t bits, int size, bool integral);
void hks_put_hex(gsvm_buf *b, const uint8_t *p, size_t n);

#endif
