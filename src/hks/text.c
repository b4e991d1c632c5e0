#include "hks/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hks_put_u(gsvm_buf *b, uint64_t v)
{
    if (!gsvm_buf_reserve(b, 20))
        return;
    b->len = (size_t)(gsvm_decimal_u64((char *)b->data + b->len, v) - (char *)b->data);
}

void hks_put_i(gsvm_buf *b, int64_t v)
{
    if (v < 0) {
        gsvm_buf_putc(b, '-');
        hks_put_u(b, (uint64_t)0 - (uint64_t)v);
    } else {
        hks_put_u(b, (uint64_t)v);
    }
}

void hks_put_hex(gsvm_buf *b, const uint8_t *p, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    if (!gsvm_buf_reserve(b, 2 * n))
        return;
    for (size_t i = 0; i < n; i++) {
        b->data[b->len++] = (uint8_t)hex[p[i] >> 4];
        b->data[b->len++] = (uint8_t)hex[p[i] & 15];
    }
}

/* Whether any of the 8 bytes in x needs an escape in a quoted string: below
 * 0x20, 0x7f and above, '"' or '\\' (the word-at-a-time byte tests of "Bit
 * Twiddling Hacks"; exact for "any", which is all that is asked). */
static inline bool any_escape8(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    uint64_t below20 = (x - ones * 0x20) & ~x & highs;
    uint64_t above7e = ((x + ones * (127 - 0x7e)) | x) & highs;
    uint64_t q = x ^ (ones * '"'), bs = x ^ (ones * '\\');
    uint64_t quote = (q - ones) & ~q & highs, backslash = (bs - ones) & ~bs & highs;
    return (below20 | above7e | quote | backslash) != 0;
}

void hks_put_str(gsvm_buf *b, const gsvm_hks_str *s, size_t limit)
{
    if (s->size == 0) {
        gsvm_buf_append(b, "null", 4);
        return;
    }
    size_t n = (size_t)s->size;
    bool nul = s->data[n - 1] == 0;
    if (nul)
        n--;
    else
        gsvm_buf_append(b, "nonul", 5);
    bool cut = limit && n > limit;
    if (cut)
        n = limit;
    /* at most 4 bytes per input byte, quotes and "..." */
    if (!gsvm_buf_reserve(b, 4 * n + 8))
        return;
    static const char hex[] = "0123456789abcdef";
    char *o = (char *)b->data + b->len;
    *o++ = '"';
    for (size_t i = 0; i < n; i++) {
        /* names are mostly plain: copy them 8 bytes at a time */
        while (n - i >= 8) {
            uint64_t x;
            memcpy(&x, s->data + i, 8);
            if (any_escape8(x))
                break;
            memcpy(o, &x, 8);
            o += 8;
            i += 8;
        }
        if (i == n)
            break;
        if (n >= 8 && n - i < 8 && i >= 8) {
            /* the tail: if the last 8 bytes are all plain, the ones among
             * them already written came out as themselves, so writing all 8
             * again over them finishes the string */
            uint64_t x;
            memcpy(&x, s->data + n - 8, 8);
            if (!any_escape8(x)) {
                memcpy(o - (i - (n - 8)), &x, 8);
                o += n - i;
                break;
            }
        }
        unsigned char ch = (unsigned char)s->data[i];
        if (ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\') {
            *o++ = (char)ch;
            continue;
        }
        *o++ = '\\';
        switch (ch) {
        case '"': *o++ = '"'; break;
        case '\\': *o++ = '\\'; break;
        case '\n': *o++ = 'n'; break;
        case '\t': *o++ = 't'; break;
        case '\r': *o++ = 'r'; break;
        default:
            *o++ = 'x';
            *o++ = hex[ch >> 4];
            *o++ = hex[ch & 15];
        }
    }
    *o++ = '"';
    if (cut) {
        memcpy(o, "...", 3);
        o += 3;
    }
    b->len = (size_t)(o - (char *)b->data);
}

void hks_put_number(gsvm_buf *b, uint64_t bits, int size, bool integral)
{
    char tmp[64];
    if (integral) {
        int64_t v = size == 4 ? (int64_t)(int32_t)(uint32_t)bits : (int64_t)bits;
        hks_put_i(b, v);
        return;
    }
    if (size == 4) {
        uint32_t u = (uint32_t)bits;
        float f;
        memcpy(&f, &u, 4);
        /* whole numbers (most constants) print as integers: exact below 2^24 */
        if (f > -16777216.0f && f < 16777216.0f && f == (float)(int32_t)f &&
            !(f == 0 && (u >> 31))) {
            hks_put_i(b, (int32_t)f);
            return;
        }
        if (!isnan(f)) {
            for (int prec = 6; prec <= 9; prec++) {
                snprintf(tmp, sizeof tmp, "%.*g", prec, (double)f);
                float g = strtof(tmp, NULL);
                uint32_t v;
                memcpy(&v, &g, 4);
                if (v == u) {
                    gsvm_buf_puts(b, tmp);
                    return;
                }
            }
        }
        snprintf(tmp, sizeof tmp, "bits:%08x", u);
    } else {
        double f;
        memcpy(&f, &bits, 8);
        if (f > -9007199254740992.0 && f < 9007199254740992.0 && f == (double)(int64_t)f &&
            !(f == 0 && (bits >> 63))) {
            hks_put_i(b, (int64_t)f);
            return;
        }
        if (!isnan(f)) {
            for (int prec = 15; prec <= 17; prec++) {
                snprintf(tmp, sizeof tmp, "%.*g", prec, f);
                double g = strtod(tmp, NULL);
                uint64_t v;
                memcpy(&v, &g, 8);
                if (v == bits) {
                    gsvm_buf_puts(b, tmp);
                    return;
                }
            }
        }
        snprintf(tmp, sizeof tmp, "bits:%016llx", (unsigned long long)bits);
    }
    gsvm_buf_puts(b, tmp);
}
