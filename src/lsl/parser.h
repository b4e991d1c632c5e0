/* The LSL parser for the whole LSL grammar, without recursion: statements
 * and expressions are read with explicit work stacks on the heap, binary
 * operators by precedence on an operator stack.  The result is a syntax
 * tree in `arena`; errors are "FILE:LINE:COL: error: MESSAGE" in err. */
#ifndef GSVM_LSL_PARSER_H
#define GSVM_LSL_PARSER_H

#include "gsvm/gsvm.h"
#include "lsl/arena.h"
#include "lsl/ast.h"

/* Nesting Second Life accepts (its parser stack holds 10,000 entries):
 * statements, expressions and the parser's own nesting may each be this
 * deep; deeper is "FILE:LINE:COL: error: ... nested too deeply". */
#define LSL_MAX_NESTING 10000

gsvm_status lsl_parse(const char *src, size_t len, const char *file, lsl_arena *arena,
                      lsl_script **out, gsvm_error *err);

/* The whole front end of one compilation: parses `src`, then calls
 * `compile` on the tree (false: it failed and said why in err), on the
 * caller's thread.  No pass recurses over the tree (each walks it with a
 * heap work stack), so the nesting a script may use does not depend on the
 * caller's stack (its ulimit, a sanitizer's larger frames).  The tree is
 * freed before return. */
typedef bool (*lsl_compile_fn)(const lsl_script *sc, void *ctx);
gsvm_status lsl_front_end(const char *src, size_t len, const char *file, lsl_compile_fn compile,
                          void *ctx, gsvm_error *err);

#endif
