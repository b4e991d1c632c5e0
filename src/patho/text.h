/* Text forms shared by the listing printer and the assembler: floats that
 * round-trip exactly, escaped strings, names, type lists. */
#ifndef GSVM_PATHO_TEXT_H
#define GSVM_PATHO_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <string.h>

#include "base/buf.h"
#include "gsvm/patho.h"

/* Fast appends for the listing printer (the fast path skips the call into
 * gsvm_buf_reserve; the +1 matches its room for a terminator). */
static inline void pb_putc(gsvm_buf *b, char c)
{
    if (b->len + 2 <= b->cap || gsvm_buf_reserve(b, 1))
        b->data[b->len++] = (uint8_t)c;
}
static inline void pb_put(gsvm_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 <= b->cap || gsvm_buf_reserve(b, n)) {
        memcpy(b->data + b->len, s, n);
        b->len += n;
    }
}
static inline void pb_puts(gsvm_buf *b, const char *s) { pb_put(b, s, strlen(s)); }
/* Room for n more bytes (and the terminator), for writers that store
 * several pieces after one check. */
static inline bool pb_room(gsvm_buf *b, size_t n)
{
    return b->len + n + 1 <= b->cap || gsvm_buf_reserve(b, n);
}
/* "00" .. "ff": a byte as two lowercase hex digits. */
extern const char patho_hex_pairs[256][2];
/* Decimal, signed decimal, and hex with at least `width` digits.  Most
 * numbers in a listing are one digit (s1, pop=0): those inline. */
void patho_put_u_any(gsvm_buf *b, uint32_t v);
static inline void patho_put_u(gsvm_buf *b, uint32_t v)
{
    if (v < 10 && b->len + 2 <= b->cap)
        b->data[b->len++] = (uint8_t)('0' + v);
    else
        patho_put_u_any(b, v);
}
void patho_put_d(gsvm_buf *b, int32_t v);
void patho_put_hex(gsvm_buf *b, uint32_t v, int width);
/* Spaces up to column `col` of the line that started at `line_start`
 * (at least one). */
void patho_pad(gsvm_buf *b, size_t line_start, size_t col);

/* The shortest decimal that reads back to the same f32 bits; NaNs and
 * infinities as f32:0xXXXXXXXX. */
void patho_put_float(gsvm_buf *b, uint32_t bits);
/* The float a decimal literal (n bytes, no terminator needed) stands for,
 * exactly as strtof reads it; *ok false when it is not a whole float
 * literal.  patho_parse_float_exact does only the common cases without
 * strtof and returns false (no answer) for the others. */
float patho_parse_float(const char *s, size_t n, bool *ok);
bool patho_parse_float_exact(const char *s, size_t n, float *out);
/* The pool string at `off` as a quoted literal: wide (UTF-16LE code units,
 * non-ASCII as \uXXXX) or narrow (bytes, non-ASCII as \xNN).  Returns false
 * (printing nothing) when there is no terminator inside the pool. */
bool patho_put_pool_string(gsvm_buf *b, const uint8_t *pool, uint32_t size, uint32_t off,
                           bool wide);
/* Length in bytes of the string at `off` including its terminator, or 0
 * when it has none inside the pool. */
uint32_t patho_pool_string_size(const uint8_t *pool, uint32_t size, uint32_t off, bool wide);
/* The pool item starting at `pos`: a wide string when a wide operand points
 * there (ref bit 1) or, with no narrow reference (bit 2), when it looks like
 * UTF-16LE text; else an 8-bit string.  Returns its size in bytes with the
 * terminator, or 0 when neither encoding terminates inside the pool (then
 * the rest is raw bytes). */
uint32_t patho_pool_item(const uint8_t *pool, uint32_t size, uint32_t pos, unsigned ref,
                         bool *wide);
/* Marks, per pool byte, the operands pointing there: 1 wide (data strings),
 * 2 narrow (method names).  `refs` has pool_size bytes, zeroed. */
void patho_pool_refs(const gsvm_patho_program *p, uint8_t *refs);
/* Per import: PATHO_IMPORT_AMBIGUOUS when another import has the same
 * (name, argc), so a call to it must be written Name#index;
 * PATHO_IMPORT_BARE when its name is written bare (patho_name_is_bare).
 * malloc'd (NULL on out-of-memory). */
enum { PATHO_IMPORT_AMBIGUOUS = 1, PATHO_IMPORT_BARE = 2 };
uint8_t *patho_import_flags(const gsvm_patho_program *p);
/* Imports by (name, argc), for the assembler: the first such import, -1
 * when there is none, -2 on out-of-memory.  Rebuilt when imports grow. */
typedef struct patho_import_index {
    uint32_t *table, cap, count;
    /* room for the table of up to 64 imports, so most programs need no
     * allocation for it */
    uint32_t local[128];
} patho_import_index;
int64_t patho_import_find(patho_import_index *x, const gsvm_patho_program *p, const char *name,
                          uint32_t len, uint32_t argc);
void patho_import_index_free(patho_import_index *x);
/* Whether a name is written bare: [A-Za-z_][A-Za-z0-9_]*. */
bool patho_name_is_bare(const char *s, uint32_t len);
/* A name: bare when patho_name_is_bare, else a quoted literal. */
void patho_put_name(gsvm_buf *b, const char *s, uint32_t len);
/* Always quoted, bytes >= 0x7F as \xNN. */
void patho_put_quoted(gsvm_buf *b, const char *s, uint32_t len);
/* "(bool, int, 7)" */
void patho_put_types(gsvm_buf *b, const uint8_t *types, uint32_t n);
/* A type code's name, or its number for unknown codes. */
void patho_put_type(gsvm_buf *b, uint8_t type);

#endif
