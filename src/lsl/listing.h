/* What the ABI 2 and ABI 3 listings and ISA tables share: the finished
 * text, and the rows of `gsvm lsl isa`. */
#ifndef GSVM_LSL_LISTING_H
#define GSVM_LSL_LISTING_H

#include "base/buf.h"
#include "gsvm/gsvm.h"

/* The text built in b as a C string in *out (b is emptied), or out of memory. */
gsvm_status lsl_listing_take(gsvm_buf *b, char **out, gsvm_error *err);

/* An ISA table's heading, then one row per instruction: a negative pops or
 * pushes is variable, shown as var_pops / var_pushes. */
void lsl_isa_header(gsvm_buf *b);
void lsl_isa_row(gsvm_buf *b, int op, const char *mnemonic, const char *operands, int pops,
                 const char *var_pops, int pushes, const char *var_pushes, const char *meaning);

#endif
