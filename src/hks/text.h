/* Small helpers shared by the listing printer and the assembler: string
 * escaping and number formatting that read back to the same bytes. */
#ifndef GSVM_HKS_TEXT_H
#define GSVM_HKS_TEXT_H

#include <stdbool.h>
#include <stdint.h>

#include "base/buf.h"
#include "base/decimal.h"
#include "gsvm/hks.h"

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
