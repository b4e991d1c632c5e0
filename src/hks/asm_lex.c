/* The assembler's lexical layer: errors at line:column, growing arrays,
 * words, integers, strings and hex bytes of a listing line. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/asm.h"

bool asm_fail(parser *P, const char *at, const char *fmt, ...)
{
    if (P->failed)
        return false;
    P->failed = true;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gsvm_error_at_line(P->err, GSVM_ERR_INPUT, P->file, P->line,
                       (long)((at ? at : P->p) - P->line_start) + 1, "%s", msg);
    return false;
}

/* Grows *arr (of `size`-byte items) to hold n+1 items. */
bool asm_grow(parser *P, void **arr, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return true;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *na = realloc(*arr, ncap * size);
    if (!na)
        return asm_fail(P, NULL, "out of memory");
    *arr = na;
    *cap = ncap;
    return true;
}

bool asm_at_end(parser *P)
{
    skip_ws(P);
    return P->p >= P->end;
}

bool asm_expect_end(parser *P)
{
    if (!asm_at_end(P))
        return asm_fail(P, NULL, "unexpected text; expected the end of the line");
    return true;
}

/* A bare word: letters, digits, '_', '.', ':' ... up to white space. */
bool asm_word(parser *P, const char **w, size_t *n)
{
    skip_ws(P);
    const char *s = P->p;
    while (P->p < P->end && *P->p != ' ' && *P->p != '\t' && *P->p != '\r')
        P->p++;
    *w = s;
    *n = (size_t)(P->p - s);
    return *n > 0;
}

bool asm_word_is(const char *w, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(w, lit, n) == 0;
}

int asm_hexval(char ch)
{
    return ch >= '0' && ch <= '9' ? ch - '0'
           : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
           : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                    : -1;
}

/* Up to 19 decimal digits, which cannot overflow 64 bits and so need no
 * check per digit; the callers go on digit by digit (with checks) after
 * that.  Returns the number of digits read. */
static inline int decimal19(const char **pp, const char *end, uint64_t *out)
{
    const char *p = *pp, *stop = end - p > 19 ? p + 19 : end;
    uint64_t v = 0;
    while (p < stop && is_digit(*p))
        v = v * 10 + (uint64_t)(*p++ - '0');
    int n = (int)(p - *pp);
    *pp = p;
    *out = v;
    return n;
}

/* Integers: decimal or 0x hex, optionally negative. */
bool asm_integer(parser *P, int64_t *out, const char *what)
{
    skip_ws(P);
    const char *s = P->p;
    bool neg = false;
    if (P->p < P->end && *P->p == '-') {
        neg = true;
        P->p++;
    }
    uint64_t v = 0;
    int digits = 0;
    if (P->end - P->p > 2 && P->p[0] == '0' && (P->p[1] == 'x' || P->p[1] == 'X')) {
        P->p += 2;
        for (; P->p < P->end; P->p++, digits++) {
            char ch = *P->p;
            int d = ch >= '0' && ch <= '9' ? ch - '0'
                    : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                    : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                             : -1;
            if (d < 0)
                break;
            if (v >> 60)
                return asm_fail(P, s, "%s is too large", what);
            v = v * 16 + (uint64_t)d;
        }
    } else {
        digits = decimal19(&P->p, P->end, &v);
        for (; P->p < P->end && *P->p >= '0' && *P->p <= '9'; P->p++, digits++) {
            if (v > (UINT64_MAX - 9) / 10)
                return asm_fail(P, s, "%s is too large", what);
            v = v * 10 + (uint64_t)(*P->p - '0');
        }
    }
    if (!digits)
        return asm_fail(P, s, "expected %s (a number)", what);
    if (v > (uint64_t)INT64_MAX + (neg ? 1u : 0u))
        return asm_fail(P, s, "%s is too large", what);
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

/* Unsigned integers up to 2^64-1: decimal or 0x hex. */
bool asm_unsigned_in(parser *P, uint64_t *out, uint64_t max, const char *what)
{
    skip_ws(P);
    const char *s = P->p;
    if (P->p < P->end && *P->p == '-')
        return asm_fail(P, s, "%s must not be negative", what);
    uint64_t v = 0;
    int digits = 0;
    bool hex = P->end - P->p > 2 && P->p[0] == '0' && (P->p[1] == 'x' || P->p[1] == 'X');
    if (hex)
        P->p += 2;
    else
        digits = decimal19(&P->p, P->end, &v); /* the common case, without a division per digit */
    for (; P->p < P->end; P->p++, digits++) {
        int d = asm_hexval(*P->p);
        if (d < 0 || (!hex && d > 9))
            break;
        uint64_t base = hex ? 16 : 10;
        if (v > (UINT64_MAX - (uint64_t)d) / base)
            return asm_fail(P, s, "%s is too large", what);
        v = v * base + (uint64_t)d;
    }
    if (!digits)
        return asm_fail(P, s, "expected %s (a number)", what);
    if (v > max)
        return asm_fail(P, s, "%s %llu is out of range 0..%llu", what, (unsigned long long)v,
                    (unsigned long long)max);
    *out = v;
    return true;
}

bool asm_u32(parser *P, uint32_t *out, const char *what)
{
    uint64_t v = 0;
    if (!asm_unsigned_in(P, &v, UINT32_MAX, what))
        return false;
    *out = (uint32_t)v;
    return true;
}

/* null | "text" | nonul"text" */
bool asm_string(parser *P, gsvm_hks_str *out, const char *what)
{
    skip_ws(P);
    const char *s = P->p;
    out->size = 0;
    out->data = NULL;
    if (P->end - P->p >= 4 && memcmp(P->p, "null", 4) == 0) {
        P->p += 4;
        return true;
    }
    bool nul = true;
    if (P->end - P->p >= 5 && memcmp(P->p, "nonul", 5) == 0) {
        nul = false;
        P->p += 5;
    }
    if (P->p >= P->end || *P->p != '"')
        return asm_fail(P, s, "expected %s (a quoted string or null)", what);
    P->p++;
    /* most strings have no escapes: then they are copied in one go */
    const char *q = memchr(P->p, '"', (size_t)(P->end - P->p));
    if (q && q > P->p && !memchr(P->p, '\\', (size_t)(q - P->p))) {
        size_t n = (size_t)(q - P->p);
        char *buf = malloc(n + 2);
        if (!buf)
            return asm_fail(P, s, "out of memory");
        memcpy(buf, P->p, n);
        if (nul)
            buf[n++] = 0;
        buf[n] = 0;
        out->data = buf;
        out->size = n;
        P->p = q + 1;
        return true;
    }
    size_t cap = (size_t)(P->end - P->p) + 2;
    char *buf = malloc(cap);
    if (!buf)
        return asm_fail(P, s, "out of memory");
    size_t n = 0;
    for (;;) {
        if (P->p >= P->end) {
            free(buf);
            return asm_fail(P, s, "unterminated string");
        }
        char ch = *P->p++;
        if (ch == '"')
            break;
        if (ch == '\\') {
            if (P->p >= P->end) {
                free(buf);
                return asm_fail(P, s, "unterminated string");
            }
            char e = *P->p++;
            switch (e) {
            case 'n': ch = '\n'; break;
            case 't': ch = '\t'; break;
            case 'r': ch = '\r'; break;
            case '"': ch = '"'; break;
            case '\\': ch = '\\'; break;
            case 'x': {
                int h1 = P->end - P->p >= 2 ? asm_hexval(P->p[0]) : -1;
                int h2 = h1 >= 0 ? asm_hexval(P->p[1]) : -1;
                if (h2 < 0) {
                    free(buf);
                    return asm_fail(P, P->p, "expected two hex digits after \\x");
                }
                ch = (char)(h1 * 16 + h2);
                P->p += 2;
                break;
            }
            default:
                free(buf);
                return asm_fail(P, P->p - 2, "unknown escape \\%c", e);
            }
        }
        buf[n++] = ch;
    }
    if (nul)
        buf[n++] = 0;
    if (n == 0) {
        free(buf);
        return asm_fail(P, s, "a string of zero bytes cannot be stored (use null)");
    }
    buf[n] = 0;
    out->data = buf;
    out->size = n;
    return true;
}

bool asm_hexbytes(parser *P, uint8_t **arr, size_t *n, size_t *cap)
{
    skip_ws(P);
    const char *s = P->p;
    while (P->p < P->end && asm_hexval(*P->p) >= 0) {
        if (P->end - P->p < 2 || asm_hexval(P->p[1]) < 0)
            return asm_fail(P, P->p, "expected an even number of hex digits");
        if (!asm_grow(P, (void **)arr, cap, *n, 1))
            return false;
        (*arr)[(*n)++] = (uint8_t)(asm_hexval(P->p[0]) * 16 + asm_hexval(P->p[1]));
        P->p += 2;
    }
    if (P->p == s)
        return asm_fail(P, s, "expected hex bytes");
    return asm_expect_end(P);
}
