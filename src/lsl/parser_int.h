/* The LSL parser's shared state (parser.c: tokens, helpers, statements and
 * the top level; parser_expr.c: expressions). */
#ifndef GSVM_LSL_PARSER_INT_H
#define GSVM_LSL_PARSER_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "lsl/parser.h"

/* Nesting: Second Life's parser stack holds 10,000 entries, so it accepts
 * thousands of levels; so does this one (LSL_MAX_NESTING).  Operator chains
 * are read in loops; real nesting (parentheses, calls, lists, vectors,
 * prefix operators, assignments as operands, blocks and bodies, and each
 * `else if`, which nests in Second Life's grammar too) counts one level in
 * `depth`.  An expression's tree may also be at most LSL_MAX_NESTING high
 * (a chain of 10,000 terms).  Nothing here recurses: expressions and
 * statements are read with explicit stacks on the heap (xframe, sframe), so the C
 * stack a compilation needs does not grow with the script's nesting, and
 * the later passes walk the tree with explicit stacks too. */
#define MAX_DEPTH LSL_MAX_NESTING

/* A construct of an expression still open (see parse_expr_ng). */
typedef enum xkind {
    X_EXPR,   /* one expression: its operands and operators above vbase / obase */
    X_PREFIX, /* - ! ~ ++ -- (t) before its operand */
    X_CAST,   /* (type) before its operand */
    X_ASSIGN, /* the variable e, an assignment t, before its right side */
    X_PAREN,  /* ( before its expression */
    X_ITEMS,  /* a call's arguments or a list's items (e), up to `close` */
    X_VEC,    /* the components of <...> (e) */
    X_PRINT   /* print( (e) before its argument */
} xkind;

typedef struct xframe {
    xkind kind;
    bool no_gt; /* X_EXPR: `>` may close a vector; else that of the operand the construct is part of */
    bool top;   /* the operand the construct begins is a statement's first */
    lsl_token t;   /* the operator or opening token */
    lsl_type type; /* X_CAST */
    lsl_tok close; /* X_ITEMS */
    lsl_expr *e;
    size_t cap; /* of e->items */
    size_t vbase, obase;
} xframe;

/* A statement still open (see parse_block). */
typedef enum skind {
    K_BLOCK,  /* s, opened at t: its statements */
    K_NESTED, /* a block in a block (one level) */
    K_BODY,   /* the body of if / else / while / do / for, begun at t (one level) */
    K_IF,     /* an if chain (first ... last), s the if whose body is read */
    K_ELSE,   /* an if chain, its final else's body is read */
    K_WHILE, K_DO, K_FOR /* s, its body is read */
} skind;

typedef struct sframe {
    skind kind;
    lsl_token t;
    lsl_stmt *s, *first, *last;
    int links; /* K_IF / K_ELSE: the else-ifs, a level each */
    size_t cap; /* K_BLOCK: of s->stmts */
} sframe;

typedef struct parser {
    lsl_lexer lx;
    lsl_token tok;  /* current */
    lsl_token next; /* one token of lookahead */
    bool failed;
    int depth;
    bool stmt_top; /* the next operand begins a statement's expression */
    lsl_arena *arena;
    const char *file;
    gsvm_error *err;
    /* the work stacks (heap, freed by lsl_parse) */
    xframe *xs;
    size_t nxs, capxs;
    lsl_expr **vals;
    size_t nvals, capvals;
    lsl_token *ops;
    size_t nops, capops;
    sframe *ss;
    size_t nss, capss;
} parser;

static inline bool is_type_token(lsl_tok k) { return k >= T_INTEGER && k <= T_LIST; }

/* parser.c: a diagnostic at line:col (false, and only the first counts),
 * token stepping, arrays on the parse's arena, new tree nodes. */
bool lp_fail_at(parser *ps, long line, long col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void lp_describe(const lsl_token *t, char *out, size_t size);
bool lp_advance(parser *ps);
bool lp_expect(parser *ps, lsl_tok kind, const char *context);
bool lp_append(parser *ps, void **arr, size_t *n, size_t *cap, const void *item, size_t elem);
const char *lp_ident_name(parser *ps);
lsl_type lp_type_of(lsl_tok k);
lsl_expr *lp_new_expr(parser *ps, lsl_expr_kind kind, long line, long col);
lsl_expr *lp_grown(parser *ps, lsl_expr *e);

/* parser_expr.c: one more nesting level (false past LSL_MAX_NESTING), room
 * for n items in an explicit stack, and one whole expression. */
bool lp_enter(parser *ps);
bool lp_reserve(parser *ps, void **arr, size_t *cap, size_t n, size_t elem);
lsl_expr *lp_parse_expr(parser *ps);

#endif
