/* The LSL parser: hand-written recursive descent with Pratt-style binary
 * expressions, for the whole LSL grammar.  The result is a syntax tree in
 * `arena`; errors are "FILE:LINE:COL: error: MESSAGE" in err. */
#ifndef GSVM_LSL_PARSER_H
#define GSVM_LSL_PARSER_H

#include "gsvm/gsvm.h"
#include "lsl/arena.h"
#include "lsl/ast.h"

gsvm_status lsl_parse(const char *src, size_t len, const char *file, lsl_arena *arena,
                      lsl_script **out, gsvm_error *err);

#endif
