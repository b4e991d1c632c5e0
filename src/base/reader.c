#include "base/reader.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void gsvm_reader_init(gsvm_reader *r, const void *data, size_t len, const char *file,
                      gsvm_error *err)
{
    memset(r, 0, sizeof *r);
    r->data = data;
    r->len = len;
    r->file = file;
    r->err = err;
}

size_t gsvm_reader_left(const gsvm_reader *r) { return r->len - r->pos; }

bool gsvm_reader_fail(gsvm_reader *r, const char *fmt, ...)
{
    if (r->failed)
        return false;
    r->failed = true;
    if (r->err) {
        char msg[400];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        gsvm_error_at_offset(r->err, GSVM_ERR_INPUT, r->file, (long long)r->pos, "%s", msg);
    }
    return false;
}

static bool need(gsvm_reader *r, size_t n, const char *what)
{
    if (r->failed)
        return false;
    if (n > r->len - r->pos)
        return gsvm_reader_fail(r, "truncated: %s needs %zu bytes, %zu left", what, n,
                                r->len - r->pos);
    return true;
}

static uint64_t get_uint(gsvm_reader *r, int width)
{
    uint64_t v = 0;
    const uint8_t *p = r->data + r->pos;
    for (int i = 0; i < width; i++) {
        int shift = 8 * (r->big_endian ? width - 1 - i : i);
        v |= (uint64_t)p[i] << shift;
    }
    r->pos += (size_t)width;
    return v;
}

bool gsvm_read_u8(gsvm_reader *r, uint8_t *out, const char *what)
{
    if (!need(r, 1, what))
        return false;
    *out = r->data[r->pos++];
    return true;
}

bool gsvm_read_u16(gsvm_reader *r, uint16_t *out, const char *what)
{
    if (!need(r, 2, what))
        return false;
    *out = (uint16_t)get_uint(r, 2);
    return true;
}

bool gsvm_read_u32(gsvm_reader *r, uint32_t *out, const char *what)
{
    if (!need(r, 4, what))
        return false;
    *out = (uint32_t)get_uint(r, 4);
    return true;
}

bool gsvm_read_u64(gsvm_reader *r, uint64_t *out, const char *what)
{
    if (!need(r, 8, what))
        return false;
    *out = get_uint(r, 8);
    return true;
}

bool gsvm_read_i32(gsvm_reader *r, int32_t *out, const char *what)
{
    uint32_t u;
    if (!gsvm_read_u32(r, &u, what))
        return false;
    memcpy(out, &u, 4);
    return true;
}

bool gsvm_read_f32(gsvm_reader *r, float *out, const char *what)
{
    uint32_t u;
    if (!gsvm_read_u32(r, &u, what))
        return false;
    memcpy(out, &u, 4);
    return true;
}

bool gsvm_read_f64(gsvm_reader *r, double *out, const char *what)
{
    uint64_t u;
    if (!gsvm_read_u64(r, &u, what))
        return false;
    memcpy(out, &u, 8);
    return true;
}

bool gsvm_read_bytes(gsvm_reader *r, size_t n, const uint8_t **out, const char *what)
{
    if (!need(r, n, what))
        return false;
    *out = r->data + r->pos;
    r->pos += n;
    return true;
}

bool gsvm_reader_skip(gsvm_reader *r, size_t n, const char *what)
{
    if (!need(r, n, what))
        return false;
    r->pos += n;
    return true;
}

bool gsvm_reader_seek(gsvm_reader *r, size_t pos, const char *what)
{
    if (r->failed)
        return false;
    if (pos > r->len)
        return gsvm_reader_fail(r, "%s: offset %zu is past the end (%zu bytes)", what, pos, r->len);
    r->pos = pos;
    return true;
}
