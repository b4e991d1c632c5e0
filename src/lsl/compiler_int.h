/* The ABI-2 code generator's shared state (compiler.c: helpers, names,
 * statements and the top level; compiler_expr.c: expressions). */
#ifndef GSVM_LSL_COMPILER_INT_H
#define GSVM_LSL_COMPILER_INT_H

#include "lsl/arena.h"
#include "lsl/ast.h"
#include "lsl/names.h"
#include "lsl/program.h"

typedef struct local_var {
    const char *name;
    lsl_type type;
    int slot;
    int depth;
    long prev; /* the outer local this one shadows, or -1 */
} local_var;

typedef struct global_var {
    const char *name;
    lsl_type type;
} global_var;

typedef struct compiler {
    gsvm_lsl_program *p;
    const char *file;
    gsvm_error *err;
    bool failed;
    global_var *globals;
    size_t nglobals;
    local_var *locals;
    size_t nlocals, caplocals;
    int depth;
    int max_slots;
    lsl_names global_names; /* name -> global index */
    lsl_names local_names;  /* name -> innermost local index, -1 when none */
    /* the passes' work stacks (heap): no pass recurses over the tree */
    struct eframe *ef; /* cexpr */
    size_t nef, capef;
    struct sframe *sf; /* cstmt */
    size_t nsf, capsf;
} compiler;

typedef struct var_ref {
    bool global;
    int slot;
    lsl_type type;
} var_ref;

/* Records the first diagnostic at line:col; always false. */
bool c2_fail(compiler *c, long line, long col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Room for element n of a work stack. */
bool c2_reserve(compiler *c, void **arr, size_t *cap, size_t n, size_t elem);
bool c2_supported_type(compiler *c, lsl_type t, long line, long col);
/* Appends an instruction: its index, or -1 (out of memory, recorded). */
long c2_emit(compiler *c, fal_op op, int32_t a, int32_t b);
bool c2_push_int(compiler *c, int32_t v);
bool c2_push_str(compiler *c, const char *s, size_t len);
/* The innermost local or the global of that name. */
bool c2_find_var(compiler *c, const char *name, var_ref *out);
bool c2_find_int_constant(const char *name, int32_t *out);

/* Compiles an expression: its static type (VOID for a call without a
 * value); c->failed says whether it failed. */
lsl_type c2_cexpr(compiler *c, const lsl_expr *e);
/* An expression statement (its value discarded). */
bool c2_cexpr_stmt(compiler *c, const lsl_expr *e);
/* A condition of `what` (if, while, ...): an integer. */
bool c2_ccondition(compiler *c, const lsl_expr *e, const char *what);

#endif
