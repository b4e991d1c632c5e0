/* The ABI-3 code generator's private state, shared by its parts:
 * compiler3.c (emission, names, functions, the entry point),
 * compiler3_fold.c (constant folding), compiler3_expr.c (expressions) and
 * compiler3_stmt.c (conditions and statements). */
#ifndef GSVM_LSL_COMPILER3_H
#define GSVM_LSL_COMPILER3_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsl/arena.h"
#include "lsl/ast.h"
#include "lsl/builtins.h"
#include "lsl/names.h"
#include "lsl/parser.h"
#include "lsl/prog3.h"

#define T_ERR ((lsl_type)99)

typedef struct local3 {
    const char *name;
    lsl_type type;
    int slot;
    int depth;
    long prev;
} local3;

typedef struct label3 {
    const char *name;
    long ip; /* -1 until defined */
    long line, col;
} label3;

typedef struct fixup3 {
    size_t label;
    long at;
} fixup3;

typedef struct c3 {
    gsvm_lsl3_program *p;
    const char *file;
    gsvm_error *err;
    bool failed;
    const lsl_script *sc;
    lsl_names gnames, fnames, snames, lnames;
    lsl_type *gtypes;
    size_t ng;
    local3 *locals;
    size_t nlocals, caplocals;
    int depth;
    /* the function being compiled */
    fal3_func *fn;
    uint8_t *slot_types;
    size_t nslots, capslots;
    long sd, max_sd; /* operand stack depth */
    long line, col;  /* the source position of the code being emitted (the line table) */
    size_t barrier;  /* no peephole fusion reaches below this ip (a jump may target it) */
    lsl_type ret;
    bool in_event;
    bool state_if_body; /* compiling the body of `if (c) state x;` (no else) */
    bool invalid_il; /* the function uses the value of integer OP= float (Mono refuses it at run time) */
    label3 *labels;
    size_t nlabels, caplabels;
    fixup3 *fixups;
    size_t nfixups, capfixups;
    /* the passes' work stacks (heap): no pass recurses over the tree */
    struct eframe3 *ef; /* cexpr */
    size_t nef, capef;
    struct sframe3 *sf; /* cstmt */
    size_t nsf, capsf;
    const lsl_expr **scan; /* int_expr, quiet_expr, ccond_false */
    size_t nscan, capscan;
} c3;

typedef struct var3 {
    bool global;
    int slot;
    lsl_type type;
} var3;

/* No side effects, no calls: evaluating it cannot change a variable (the
 * parser's flag, ast.h). */
static inline bool pure_expr(const lsl_expr *e) { return e->pure; }

bool c3_coerce(c3 *c, lsl_type from, lsl_type to, long line, long col, const char *what);
bool c3_coerce_arg(c3 *c, lsl_type from, lsl_type to, const lsl_expr *arg, size_t i, const char *fname);
bool c3_declare_local(c3 *c, const char *name, lsl_type t, long line, long col, int *slot);
long c3_emit(c3 *c, fal3_op op, int32_t a, int32_t b, int32_t cc, int pops, int pushes);
bool c3_fail(c3 *c, long line, long col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
bool c3_find_var(c3 *c, const char *name, var3 *out);
void c3_leave_scope(c3 *c);
const char *c3_list_item_error(lsl_type t);
long c3_op(c3 *c, fal3_op o, int32_t a, int32_t b, int32_t cc);
bool c3_push_value(c3 *c, lsl_value v);
bool c3_reserve(c3 *c, void **arr, size_t *cap, size_t n, size_t elem);
bool c3_ceval(c3 *c, const lsl_expr *root, lsl_value *out);
bool c3_lookup_constant(const char *name, lsl_value *out);
lsl_type c3_cexpr(c3 *c, const lsl_expr *root);
bool c3_cexpr_stmt(c3 *c, const lsl_expr *e);
bool c3_int_expr(c3 *c, const lsl_expr *e);
bool c3_cstmt(c3 *c, const lsl_stmt *root);

#endif
