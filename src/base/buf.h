/* A growable byte buffer, and writers of fixed-width integers and floats in
 * either byte order.  Writes never fail silently: on allocation failure the
 * buffer remembers it (`oom`) and later writes are ignored, so a writer may
 * emit a whole structure and check once at the end. */
#ifndef GSVM_BASE_BUF_H
#define GSVM_BASE_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct gsvm_buf {
    uint8_t *data;
    size_t len, cap;
    bool oom;
} gsvm_buf;

void gsvm_buf_init(gsvm_buf *b);
void gsvm_buf_free(gsvm_buf *b);
/* Ensures room for `extra` more bytes; false (and oom set) if it cannot. */
bool gsvm_buf_reserve(gsvm_buf *b, size_t extra);
void gsvm_buf_append(gsvm_buf *b, const void *data, size_t len);
void gsvm_buf_putc(gsvm_buf *b, int c);
void gsvm_buf_puts(gsvm_buf *b, const char *s);
void gsvm_buf_printf(gsvm_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gsvm_buf_vprintf(gsvm_buf *b, const char *fmt, va_list ap);
/* Keeps the contents NUL-terminated (not counted in len) for use as a C string. */
const char *gsvm_buf_cstr(gsvm_buf *b);
/* Hands the bytes to the caller (who frees them) and resets the buffer. */
uint8_t *gsvm_buf_take(gsvm_buf *b, size_t *len);

/* A malloc'd copy of `len` bytes with a NUL after them (NULL when out of
 * memory); the bytes may hold NULs of their own. */
char *gsvm_dup_bytes(const void *data, size_t len);

void gsvm_buf_u8(gsvm_buf *b, uint8_t v);
void gsvm_buf_u16(gsvm_buf *b, uint16_t v, bool big_endian);
void gsvm_buf_u32(gsvm_buf *b, uint32_t v, bool big_endian);
void gsvm_buf_u64(gsvm_buf *b, uint64_t v, bool big_endian);
void gsvm_buf_f32(gsvm_buf *b, float v, bool big_endian);
void gsvm_buf_f64(gsvm_buf *b, double v, bool big_endian);

#endif
