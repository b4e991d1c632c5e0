/* The assembler's shared parts (asm.c reads a listing back into a chunk;
 * asm_lex.c has the listing's words, numbers and strings, asm_code.c its
 * instruction lines).  Every error names the line:column. */
#ifndef GSVM_HKS_ASM_H
#define GSVM_HKS_ASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hks/internal.h"
#include "hks/isa.h"

enum { MAX_DEPTH = 128, SEC_NONE, SEC_CODE, SEC_CONSTS };

typedef struct fbuild {
    gsvm_hks_proto f;
    size_t cap_code, cap_k, cap_lines, cap_locals, cap_up, cap_p;
    int section;
} fbuild;

typedef struct parser {
    const char *p, *end; /* the current line, without its comment */
    const char *line_start;
    long line;
    const char *file;
    gsvm_error *err;
    bool failed;
    gsvm_hks_chunk *c;
    fbuild stack[MAX_DEPTH + 1];
    int depth; /* number of open functions */
    bool have_header, have_main, in_structs, structs_done;
    bool std_types;         /* types_standard's answer ... */
    uint64_t std_types_at;  /* ... for this many types + 1 (0: not asked yet) */
    uint8_t ophash[256]; /* opcode name hash -> internal id + 1 (0 = empty) */
    size_t cap_structs, cap_slots, cap_bases, cap_prefix, cap_trailing;
} parser;

static inline bool is_ws(char ch) { return ch == ' ' || ch == '\t' || ch == '\r'; }

static inline void skip_ws(parser *P)
{
    const char *p = P->p, *e = P->end;
    while (p < e && is_ws(*p))
        p++;
    P->p = p;
}

static inline bool is_digit(char ch) { return (unsigned)(ch - '0') < 10u; }

/* asm_lex.c: each reads at P->p and moves past what it read; a false
 * return has reported the error (line:column, what was expected). */
bool asm_fail(parser *P, const char *at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
bool asm_grow(parser *P, void **arr, size_t *cap, size_t n, size_t size);
bool asm_at_end(parser *P);
bool asm_expect_end(parser *P);
bool asm_word(parser *P, const char **w, size_t *n);
bool asm_word_is(const char *w, size_t n, const char *lit);
int asm_hexval(char ch);
bool asm_integer(parser *P, int64_t *out, const char *what);
bool asm_unsigned_in(parser *P, uint64_t *out, uint64_t max, const char *what);
bool asm_u32(parser *P, uint32_t *out, const char *what);
bool asm_string(parser *P, gsvm_hks_str *out, const char *what);
bool asm_hexbytes(parser *P, uint8_t **arr, size_t *n, size_t *cap);

/* asm_code.c: the opcode name table (built once per listing) and one
 * instruction line into the open function. */
void asm_ophash_build(parser *P);
bool asm_code_line(parser *P, fbuild *fb);

#endif
