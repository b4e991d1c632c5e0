/* The LSL syntax tree: the whole language (every type, operator, assignment
 * form, statement, user functions and states), every node with the 1-based
 * line and column of where it starts (operators: of the operator), so later
 * passes can point at the exact place.  Nodes live in the parser's arena. */
#ifndef GSVM_LSL_AST_H
#define GSVM_LSL_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lsl/lexer.h"
#include "lsl/value.h"

/* Types are the native library's (lsl/value.h): LSL_TYPE_VOID ... LSL_TYPE_LIST. */

typedef enum lsl_expr_kind {
    E_INT,      /* ival */
    E_FLOAT,    /* fval */
    E_STRING,   /* sval, slen */
    E_IDENT,    /* name */
    E_VECTOR,   /* items[3] */
    E_ROTATION, /* items[4] */
    E_LIST,     /* items[n] */
    E_CALL,     /* name(items...) */
    E_UNARY,    /* op lhs: - ! ~ */
    E_BINARY,   /* lhs op rhs */
    E_ASSIGN,   /* lhs op rhs: = += -= *= /= %= */
    E_PREINC, E_PREDEC, E_POSTINC, E_POSTDEC, /* lhs */
    E_CAST,     /* (cast_type) lhs */
    E_MEMBER,   /* lhs.name, name one of x y z s */
    E_PRINT     /* print(lhs): a host line on the debug channel, no value */
} lsl_expr_kind;

typedef struct lsl_expr {
    lsl_expr_kind kind;
    long line, col;
    lsl_tok op;
    lsl_type cast_type;
    int32_t ival;
    double fval;
    const char *sval;
    size_t slen;
    const char *name;
    struct lsl_expr *lhs, *rhs;
    struct lsl_expr **items;
    size_t nitems;
    int height; /* operators above the deepest leaf (a leaf: 0): at most LSL_MAX_NESTING */
    /* Set by the parser bottom-up, so no later pass walks a subtree to know:
     * `pure`: literals (integer, float), names and operators, unary ones and
     * casts and components (`v.x`) of pure operands only (no call, no assignment: evaluating it
     * cannot change a variable); `effects`: an assignment, ++/--, a call or
     * print, directly or under operators, casts and components (lists and
     * vectors do not count: ABI 2 refuses them anyway). */
    bool pure, effects;
} lsl_expr;

typedef enum lsl_stmt_kind {
    S_EMPTY,
    S_EXPR,   /* expr */
    S_DECL,   /* decl_type name [= expr] */
    S_BLOCK,  /* stmts */
    S_IF,     /* expr body [else_body] */
    S_WHILE,  /* expr body */
    S_DO,     /* body expr */
    S_FOR,    /* init; expr (may be NULL); step; body */
    S_JUMP,   /* name */
    S_LABEL,  /* name */
    S_RETURN, /* [expr] */
    S_STATE   /* name ("default" for the default state) */
} lsl_stmt_kind;

typedef struct lsl_stmt {
    lsl_stmt_kind kind;
    long line, col;
    lsl_expr *expr;
    lsl_type decl_type;
    const char *name;
    long name_line, name_col;
    struct lsl_stmt *body, *else_body;
    struct lsl_stmt **stmts;
    size_t nstmts;
    lsl_expr **init, **step;
    size_t ninit, nstep;
    /* Set by the parser: every path through it returns (Second Life's rule:
     * a return, a block with a statement that returns, an if whose both
     * branches return; loops never count, their body may not run). */
    bool returns;
} lsl_stmt;

typedef struct lsl_param {
    lsl_type type;
    const char *name;
    long line, col;
} lsl_param;

/* A user function or an event handler (ret is VOID for events). */
typedef struct lsl_func {
    lsl_type ret;
    const char *name;
    long line, col;
    lsl_param *params;
    size_t nparams;
    lsl_stmt *body;
} lsl_func;

typedef struct lsl_global {
    lsl_type type;
    const char *name;
    long line, col;
    lsl_expr *init; /* may be NULL */
} lsl_global;

typedef struct lsl_state {
    const char *name; /* "default" for the default state */
    bool is_default;
    long line, col;
    lsl_func *events;
    size_t nevents;
} lsl_state;

typedef struct lsl_script {
    lsl_global *globals;
    size_t nglobals;
    lsl_func *funcs;
    size_t nfuncs;
    lsl_state *states;
    size_t nstates;
} lsl_script;

#endif
