/* Text forms shared by the listing printer and the assembler: floats that
 * round-trip exactly, escaped strings, names, type lists. */
#ifndef GSVM_PATHO_TEXT_H
#define GSVM_PATHO_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/buf.h"
#include "gsvm/patho.h"

/* The shortest decimal that reads back to the same f32 bits; NaNs and
 * infinities as f32:0xXXXXXXXX. */
void patho_put_float(gsvm_buf *b, uint32_t bits);
/* The pool string at `off` as a quoted literal: wide (UTF-16LE code units,
 * non-ASCII as \uXXXX) or narrow (bytes, non-ASCII as \xNN).  Returns false
 * (printing nothing) when there is no terminator inside the pool. */
bool patho_put_pool_string(gsvm_buf *b, const uint8_t *pool, uint32_t size, uint32_t off,
                           bool wide);
/* Length in bytes of the string at `off` including its terminator, or 0
 * when it has none inside the pool. */
uint32_t patho_pool_string_size(const uint8_t *pool, uint32_t size, uint32_t off, bool wide);
/* A name: bare when it is [A-Za-z_][A-Za-z0-9_]*, else a quoted literal. */
void patho_put_name(gsvm_buf *b, const char *s, uint32_t len);
/* Always quoted, bytes >= 0x7F as \xNN. */
void patho_put_quoted(gsvm_buf *b, const char *s, uint32_t len);
/* "(bool, int, 7)" */
void patho_put_types(gsvm_buf *b, const uint8_t *types, uint32_t n);
/* A type code's name, or its number for unknown codes. */
void patho_put_type(gsvm_buf *b, uint8_t type);

#endif
