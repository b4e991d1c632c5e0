/* Declarations shared by the engine's files but not part of the public API. */
#ifndef GSVM_PATHO_INTERNAL_H
#define GSVM_PATHO_INTERNAL_H

#include "base/buf.h"
#include "gsvm/patho.h"

/* One instruction in listing syntax ("Func Trace(s1)"), appended to b. */
void patho_format_insn(const gsvm_patho_program *p, const gsvm_patho_insn *in, gsvm_buf *b);

/* The deepest stack along any path from RunOp or an event handler, in the
 * verifier's model (verify.c). */
gsvm_status patho_max_stack(const gsvm_patho_program *p, uint32_t *out, gsvm_error *err);

#endif
