/* Declarations shared by the engine's files but not part of the public API. */
#ifndef GSVM_PATHO_INTERNAL_H
#define GSVM_PATHO_INTERNAL_H

#include "gsvm/patho.h"

/* The deepest stack along any path from RunOp or an event handler, in the
 * verifier's model (verify.c). */
gsvm_status patho_max_stack(const gsvm_patho_program *p, uint32_t *out, gsvm_error *err);

#endif
