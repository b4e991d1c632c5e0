/* A bounds-checked reader of outside bytes, in either byte order.
 *
 * Every read checks that the bytes are there.  The first failed read records
 * an error naming the byte offset and what was being read, and every later
 * read fails too, so a loader may read a whole structure and check
 * `r->failed` once.  Nothing ever reads past `len`. */
#ifndef GSVM_BASE_READER_H
#define GSVM_BASE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gsvm/gsvm.h"

typedef struct gsvm_reader {
    const uint8_t *data;
    size_t len, pos;
    bool big_endian;
    bool failed;
    const char *file;  /* for error messages; may be NULL */
    gsvm_error *err;   /* filled on the first failure; may be NULL */
} gsvm_reader;

void gsvm_reader_init(gsvm_reader *r, const void *data, size_t len, const char *file,
                      gsvm_error *err);
size_t gsvm_reader_left(const gsvm_reader *r);
/* Records a failure at the current offset (only the first one is kept). */
bool gsvm_reader_fail(gsvm_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Each `what` names the field for the error message ("constant count"). */
bool gsvm_read_u8(gsvm_reader *r, uint8_t *out, const char *what);
bool gsvm_read_u16(gsvm_reader *r, uint16_t *out, const char *what);
bool gsvm_read_u32(gsvm_reader *r, uint32_t *out, const char *what);
bool gsvm_read_u64(gsvm_reader *r, uint64_t *out, const char *what);
bool gsvm_read_i32(gsvm_reader *r, int32_t *out, const char *what);
bool gsvm_read_f32(gsvm_reader *r, float *out, const char *what);
bool gsvm_read_f64(gsvm_reader *r, double *out, const char *what);
/* Points `*out` at the next `n` bytes inside the input (no copy). */
bool gsvm_read_bytes(gsvm_reader *r, size_t n, const uint8_t **out, const char *what);
bool gsvm_reader_skip(gsvm_reader *r, size_t n, const char *what);
bool gsvm_reader_seek(gsvm_reader *r, size_t pos, const char *what);

#endif
