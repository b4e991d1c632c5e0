#include "base/buf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gsvm_buf_init(gsvm_buf *b) { memset(b, 0, sizeof *b); }

void gsvm_buf_free(gsvm_buf *b)
{
    free(b->data);
    gsvm_buf_init(b);
}

bool gsvm_buf_reserve(gsvm_buf *b, size_t extra)
{
    if (b->oom)
        return false;
    /* +1 keeps room for the terminator gsvm_buf_cstr adds. */
    if (extra > SIZE_MAX / 2 - b->len) {
        b->oom = true;
        return false;
    }
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return true;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    uint8_t *p = realloc(b->data, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->data = p;
    b->cap = cap;
    return true;
}

void gsvm_buf_append(gsvm_buf *b, const void *data, size_t len)
{
    if (len == 0 || !gsvm_buf_reserve(b, len))
        return;
    memcpy(b->data + b->len, data, len);
    b->len += len;
}

void gsvm_buf_putc(gsvm_buf *b, int c)
{
    uint8_t byte = (uint8_t)c;
    gsvm_buf_append(b, &byte, 1);
}

void gsvm_buf_puts(gsvm_buf *b, const char *s) { gsvm_buf_append(b, s, strlen(s)); }

void gsvm_buf_vprintf(gsvm_buf *b, const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int n = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (n < 0 || !gsvm_buf_reserve(b, (size_t)n))
        return;
    vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void gsvm_buf_printf(gsvm_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    gsvm_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

const char *gsvm_buf_cstr(gsvm_buf *b)
{
    if (!gsvm_buf_reserve(b, 0))
        return "";
    b->data[b->len] = 0;
    return (const char *)b->data;
}

uint8_t *gsvm_buf_take(gsvm_buf *b, size_t *len)
{
    uint8_t *p = b->data;
    if (len)
        *len = b->len;
    gsvm_buf_init(b);
    return p;
}

void gsvm_buf_u8(gsvm_buf *b, uint8_t v) { gsvm_buf_append(b, &v, 1); }

static void put_uint(gsvm_buf *b, uint64_t v, int width, bool big_endian)
{
    uint8_t bytes[8];
    for (int i = 0; i < width; i++) {
        int shift = 8 * (big_endian ? width - 1 - i : i);
        bytes[i] = (uint8_t)(v >> shift);
    }
    gsvm_buf_append(b, bytes, (size_t)width);
}

void gsvm_buf_u16(gsvm_buf *b, uint16_t v, bool be) { put_uint(b, v, 2, be); }
void gsvm_buf_u32(gsvm_buf *b, uint32_t v, bool be) { put_uint(b, v, 4, be); }
void gsvm_buf_u64(gsvm_buf *b, uint64_t v, bool be) { put_uint(b, v, 8, be); }

void gsvm_buf_f32(gsvm_buf *b, float v, bool be)
{
    uint32_t bits;
    memcpy(&bits, &v, 4);
    put_uint(b, bits, 4, be);
}

void gsvm_buf_f64(gsvm_buf *b, double v, bool be)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    put_uint(b, bits, 8, be);
}

char *gsvm_dup_bytes(const void *data, size_t len)
{
    char *d = malloc(len + 1);
    if (d) {
        if (len)
            memcpy(d, data, len);
        d[len] = 0;
    }
    return d;
}
