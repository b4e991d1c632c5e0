/* The LSL lexer: the whole language's tokens (every type keyword, every
 * operator and assignment form, integer/float/string literals), each with
 * its 1-based line and column as LSL editors count them. */
#ifndef GSVM_LSL_LEXER_H
#define GSVM_LSL_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gsvm/gsvm.h"

typedef enum lsl_tok {
    T_EOF,
    T_IDENT,
    T_INT_LIT,
    T_FLOAT_LIT,
    T_STRING_LIT,
    /* type keywords */
    T_INTEGER, T_FLOAT, T_STRING, T_KEY, T_VECTOR, T_ROTATION, T_LIST,
    /* other keywords */
    T_DEFAULT, T_STATE, T_JUMP, T_RETURN, T_IF, T_ELSE, T_FOR, T_DO, T_WHILE, T_PRINT,
    /* punctuation */
    T_LPAREN, T_RPAREN, T_LBRACE, T_RBRACE, T_LBRACKET, T_RBRACKET,
    T_COMMA, T_SEMI, T_DOT, T_AT,
    /* operators */
    T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT,
    T_ASSIGN, T_PLUS_ASSIGN, T_MINUS_ASSIGN, T_STAR_ASSIGN, T_SLASH_ASSIGN, T_PERCENT_ASSIGN,
    T_EQ, T_NE, T_LT, T_GT, T_LE, T_GE,
    T_AND_AND, T_OR_OR, T_NOT, T_TILDE, T_AMP, T_PIPE, T_CARET, T_SHL, T_SHR,
    T_INC, T_DEC,
    T_COUNT
} lsl_tok;

typedef struct lsl_token {
    lsl_tok kind;
    const char *start; /* into the source */
    size_t len;
    long line, col;
    int32_t ival;  /* T_INT_LIT */
    double fval;   /* T_FLOAT_LIT */
    char *sval;    /* T_STRING_LIT: decoded bytes (owned by the lexer's arena) */
    size_t slen;
} lsl_token;

typedef struct lsl_arena lsl_arena;

typedef struct lsl_lexer {
    const char *src, *end, *p;
    long line;
    const char *line_start;
    const char *col_at; /* column cache: col_at (on the current line) is column col */
    long col;
    const char *file;
    lsl_arena *arena;
    gsvm_error *err;
} lsl_lexer;

void lsl_lexer_init(lsl_lexer *lx, const char *src, size_t len, const char *file,
                    lsl_arena *arena, gsvm_error *err);
/* Scans the next token; false after filling err (line:col of the problem). */
bool lsl_lexer_next(lsl_lexer *lx, lsl_token *tok);
/* "';'", "'integer'", "identifier", "end of file" ... for messages. */
const char *lsl_tok_name(lsl_tok kind);
/* What goes before a front-end error message so that it starts with the
 * message Second Life's compiler gives: "" when it already does (or is "out
 * of memory"), else "Syntax error: " (SL's grammar refuses everything the
 * lexer and parser refuse). */
const char *lsl_sl_error_prefix(const char *msg);

#endif
