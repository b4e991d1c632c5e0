#include "patho/text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void patho_put_float(gsvm_buf *b, uint32_t bits)
{
    float f = gsvm_patho_f32(bits);
    if (!isfinite(f)) {
        gsvm_buf_printf(b, "f32:0x%08x", bits);
        return;
    }
    if (f > -1e7f && f < 1e7f && f == (float)(int32_t)f && !(f == 0 && (bits >> 31))) {
        /* whole numbers (most literals in scripts): no formatting loop */
        patho_put_d(b, (int32_t)f);
        pb_put(b, ".0", 2);
        return;
    }
    char tmp[48];
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, (double)f);
        if (gsvm_patho_f32_bits(strtof(tmp, NULL)) == bits)
            break;
    }
    /* Keep a float visibly a float: "1" -> "1.0". */
    if (!strpbrk(tmp, ".eEn"))
        strcat(tmp, ".0");
    gsvm_buf_puts(b, tmp);
}

uint32_t patho_pool_string_size(const uint8_t *pool, uint32_t size, uint32_t off, bool wide)
{
    if (off >= size)
        return 0;
    if (wide) {
        for (uint32_t i = off; i + 1 < size; i += 2)
            if (pool[i] == 0 && pool[i + 1] == 0)
                return i + 2 - off;
        return 0;
    }
    const uint8_t *z = memchr(pool + off, 0, size - off);
    return z ? (uint32_t)(z - (pool + off)) + 1 : 0;
}

static void put_char(gsvm_buf *b, unsigned c, bool wide)
{
    switch (c) {
    case '"': gsvm_buf_puts(b, "\\\""); return;
    case '\\': gsvm_buf_puts(b, "\\\\"); return;
    case '\n': gsvm_buf_puts(b, "\\n"); return;
    case '\t': gsvm_buf_puts(b, "\\t"); return;
    case '\r': gsvm_buf_puts(b, "\\r"); return;
    }
    if (c >= 0x20 && c < 0x7F) {
        pb_putc(b, (char)c);
    } else {
        pb_put(b, wide ? "\\u" : "\\x", 2);
        patho_put_hex(b, c, wide ? 4 : 2);
    }
}

bool patho_put_pool_string(gsvm_buf *b, const uint8_t *pool, uint32_t size, uint32_t off,
                           bool wide)
{
    uint32_t n = patho_pool_string_size(pool, size, off, wide);
    if (!n)
        return false;
    gsvm_buf_putc(b, '"');
    if (wide)
        for (uint32_t i = off; i + 2 < off + n; i += 2)
            put_char(b, (unsigned)pool[i] | (unsigned)pool[i + 1] << 8, true);
    else
        for (uint32_t i = off; i + 1 < off + n; i++)
            put_char(b, pool[i], false);
    gsvm_buf_putc(b, '"');
    return true;
}

void patho_put_name(gsvm_buf *b, const char *s, uint32_t len)
{
    bool bare = len > 0 && !(s[0] >= '0' && s[0] <= '9');
    for (uint32_t i = 0; i < len && bare; i++) {
        char c = s[i];
        bare = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    }
    if (bare) {
        gsvm_buf_append(b, s, len);
        return;
    }
    patho_put_quoted(b, s, len);
}

void patho_put_quoted(gsvm_buf *b, const char *s, uint32_t len)
{
    gsvm_buf_putc(b, '"');
    for (uint32_t i = 0; i < len; i++)
        put_char(b, (uint8_t)s[i], false);
    gsvm_buf_putc(b, '"');
}

void patho_put_type(gsvm_buf *b, uint8_t type)
{
    const char *n = gsvm_patho_type_name(type);
    if (n)
        gsvm_buf_puts(b, n);
    else
        gsvm_buf_printf(b, "%u", type);
}

void patho_put_types(gsvm_buf *b, const uint8_t *types, uint32_t n)
{
    gsvm_buf_putc(b, '(');
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            gsvm_buf_puts(b, ", ");
        patho_put_type(b, types[i]);
    }
    gsvm_buf_putc(b, ')');
}

uint32_t patho_pool_item(const uint8_t *pool, uint32_t size, uint32_t pos, unsigned ref,
                         bool *wide)
{
    const uint8_t *d = pool + pos;
    bool looks_wide = pos + 1 < size && d[0] != 0 && d[1] == 0;
    *wide = (ref & 1) || (!(ref & 2) && looks_wide);
    uint32_t n = patho_pool_string_size(pool, size, pos, *wide);
    if (!n) {
        *wide = !*wide;
        n = patho_pool_string_size(pool, size, pos, *wide);
    }
    return n;
}

void patho_put_u(gsvm_buf *b, uint32_t v)
{
    char tmp[10];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (b->len + (size_t)n + 1 <= b->cap || gsvm_buf_reserve(b, (size_t)n)) {
        uint8_t *w = b->data + b->len;
        for (int i = 0; i < n; i++)
            w[i] = (uint8_t)tmp[n - 1 - i];
        b->len += (size_t)n;
    }
}

void patho_put_d(gsvm_buf *b, int32_t v)
{
    if (v < 0) {
        pb_putc(b, '-');
        patho_put_u(b, (uint32_t)0 - (uint32_t)v);
    } else {
        patho_put_u(b, (uint32_t)v);
    }
}

void patho_put_hex(gsvm_buf *b, uint32_t v, int width)
{
    static const char digits[] = "0123456789abcdef";
    if (width == 4 && v < 0x10000 && (b->len + 5 <= b->cap || gsvm_buf_reserve(b, 4))) {
        /* the listing's index and offset columns */
        uint8_t *w = b->data + b->len;
        w[0] = (uint8_t)digits[v >> 12];
        w[1] = (uint8_t)digits[(v >> 8) & 15];
        w[2] = (uint8_t)digits[(v >> 4) & 15];
        w[3] = (uint8_t)digits[v & 15];
        b->len += 4;
        return;
    }
    char tmp[8];
    int n = 0;
    do {
        tmp[n++] = digits[v & 15];
        v >>= 4;
    } while (v);
    while (n < width && n < 8)
        tmp[n++] = '0';
    if (b->len + (size_t)n + 1 <= b->cap || gsvm_buf_reserve(b, (size_t)n)) {
        uint8_t *w = b->data + b->len;
        for (int i = 0; i < n; i++)
            w[i] = (uint8_t)tmp[n - 1 - i];
        b->len += (size_t)n;
    }
}

void patho_pad(gsvm_buf *b, size_t line_start, size_t col)
{
    size_t used = b->len - line_start, n = used < col ? col - used : 1;
    if (gsvm_buf_reserve(b, n)) {
        memset(b->data + b->len, ' ', n);
        b->len += n;
    }
}
