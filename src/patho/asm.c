/* The assembler: a listing (the syntax list.c prints, see docs/patho.md)
 * back into a program.
 *
 * Line oriented; ';' starts a comment.  Directives (.layout .global .pool
 * .import .entry .task .on .event .code) describe the sections; after .code
 * each line is a label ("NAME:") or an instruction ("Name operand, ...").
 * Operands are parsed from the letters of the opcode's row in isa.def, so a
 * new opcode needs no assembler change.  Pool references may carry an
 * explicit offset (@0x1c "text") or only the text.  The offset is kept when
 * the pool holds that text there (so a listing rebuilds byte for byte);
 * otherwise — no offset, or a string edited in the listing moved the ones
 * after it — the text is found in the pool (a tail of a longer string will
 * do) or appended to it.
 *
 * Each line is split into tokens and read by the directive or instruction
 * it starts with.  Labels and pool strings are resolved at the end, when
 * every label is known and the pool is complete; gsvm_patho_finish then
 * encodes the instructions in the layout the listing ended with. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/buf.h"
#include "patho/internal.h"
#include "patho/isa.h"
#include "patho/text.h"

/* Returns the status of `expr` unless it is GSVM_OK. */
#define TRY(expr) do { gsvm_status try_st_ = (expr); if (try_st_ != GSVM_OK) return try_st_; } while (0)

/* ---- tokens -------------------------------------------------------------- */

enum { TK_END, TK_IDENT, TK_NUM, TK_STR, TK_PUNCT };

/* s: the start in the source; n: the length there (strings: with quotes); col: 1-based */
typedef struct token { const char *s; uint32_t n, col; uint8_t kind; } token;

/* A line's tokens, then TK_END.  The readers look up to three tokens past
 * the one they are at, so END is repeated that often after the last. */
enum { END_PAD = 4, MAX_TOKENS = 16 * 1024 * 1024 };
typedef struct line_toks { token *t; int n, cap; } line_toks;

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_ident_start(char c) { return ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') || c == '_' || c == '.'; }
static bool is_ident(char c) { return is_ident_start(c) || is_digit(c); }

/* Splits the line [s, end) into tokens; false (with *bad_col and *why) on a
 * NUL byte, an unterminated string, too many tokens or out of memory. */
static bool tokenize(const char *s, const char *end, line_toks *out, long *bad_col, const char **why)
{
    const char *line = s;
    for (out->n = 0;; out->n++) {
        while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
            s++;
        *bad_col = (long)(s - line) + 1;
        if (out->n + END_PAD >= out->cap) {
            int ncap = out->cap ? out->cap * 2 : 64;
            token *n = ncap <= MAX_TOKENS ? realloc(out->t, (size_t)ncap * sizeof *n) : NULL;
            *why = ncap <= MAX_TOKENS ? "out of memory" : "too many tokens on one line";
            if (!n) return false;
            out->t = n, out->cap = ncap;
        }
        if (s >= end || *s == ';') break;
        *why = *s ? "unterminated string" : "NUL byte in the listing";
        if (!*s) return false;
        token *t = &out->t[out->n];
        *t = (token){s, 0, (uint32_t)*bad_col, TK_PUNCT};
        char c = *s++;
        if (is_ident_start(c)) {
            while (s < end && is_ident(*s))
                s++;
            t->kind = TK_IDENT;
        } else if (is_digit(c) || ((c == '-' || c == '+') && s < end && (is_digit(*s) || *s == '.'))) {
            /* identifier characters, and a sign after a decimal exponent */
            bool hex = c == '0' && s < end && (*s == 'x' || *s == 'X');
            while (s < end && (is_ident(*s) || ((*s == '+' || *s == '-') && !hex && (s[-1] | 0x20) == 'e')))
                s++;
            t->kind = TK_NUM;
        } else if (c == '"') {
            while (s < end && *s != '"')
                s += *s == '\\' && s + 1 < end ? 2 : 1;
            if (s++ >= end) return false;
            t->kind = TK_STR;
        }
        t->n = (uint32_t)(s - t->s);
    }
    for (int k = 0; k < END_PAD; k++)
        out->t[out->n + k] = (token){s, 0, (uint32_t)(s - line + 1), TK_END};
    return true;
}

static bool tok_is(const token *t, const char *word)
{
    return (t->kind == TK_IDENT || t->kind == TK_PUNCT) && t->n == strlen(word) && memcmp(t->s, word, t->n) == 0;
}

/* ---- the assembler state ------------------------------------------------- */

/* A label used before it is known.  Arrays move while they grow, so a
 * fixup names its field by indices, never by pointer. */
enum { FIX_ENTRY, FIX_INSN, FIX_TASK_EVENT, FIX_EVENT };
typedef struct fixup {
    int kind;
    uint32_t a, b; /* FIX_INSN: insn, operand slot; FIX_TASK_EVENT: task, event; FIX_EVENT: event */
    const char *name; uint32_t name_len; /* in the listing text, which outlives the assembly */
    long line, col;
} fixup;

/* An operand's pool string, found or placed in the pool at the end. */
typedef struct strref {
    uint32_t insn, slot;
    bool wide, has_offset;
    uint32_t at, nbytes; /* encoded text with its terminator, in asmb.strbytes */
} strref;

typedef struct label { const char *name; uint32_t len, index; } label; /* name: in the listing text */

typedef struct asmb {
    const char *file; /* for errors, with the line number */
    gsvm_error *err;
    long line;
    gsvm_patho_program *p;
    gsvm_patho_layout layout_override;
    enum { SEC_NONE, SEC_POOL, SEC_CODE } sec;
    gsvm_buf pool, vtypes, strbytes;
    gsvm_buf types; /* one type list, reused line after line */
    label *labels; uint32_t nlabels;
    uint32_t *label_hash, hash_cap; /* open addressing, at most half full: label index + 1 */
    fixup *fixups; uint32_t nfixups;
    strref *strs; uint32_t nstrs;
    patho_import_index imports;
} asmb;

__attribute__((format(printf, 3, 4))) static gsvm_status fail_at(asmb *A, long col, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gsvm_error_at_line(A->err, GSVM_ERR_INPUT, A->file, A->line, col, "%s", msg);
}

static gsvm_status nomem(asmb *A) { return gsvm_error_set(A->err, GSVM_ERR_NOMEM, A->file, "out of memory"); }

/* Room in *arr, which holds n elements, for one more.  Arrays grow one
 * element at a time, so the capacity follows from the count: 16, then each
 * power of two. */
static gsvm_status room(asmb *A, void **arr, uint64_t n, size_t elem)
{
    if (n && (n < 16 || (n & (n - 1)))) return GSVM_OK;
    void *q = n < UINT32_MAX / 2 ? realloc(*arr, (size_t)(n ? 2 * n : 16) * elem) : NULL;
    return q ? (*arr = q, GSVM_OK) : nomem(A);
}
#define ROOM(A, arr, n) room((A), (void **)&(arr), (n), sizeof *(arr))

/* ---- numbers, strings, names --------------------------------------------- */

static int hex_digit(char h)
{
    int lower = h | 0x20;
    return is_digit(h) ? h - '0' : lower >= 'a' && lower <= 'f' ? lower - 'a' + 10 : -1;
}

/* Decimal or 0x hex, optionally signed (a leading 0 is still decimal). */
static bool parse_int(const token *t, int64_t lo, int64_t hi, int64_t *out)
{
    const char *s = t->s, *end = t->s + t->n;
    bool neg = s < end && *s == '-';
    s += s < end && (*s == '-' || *s == '+');
    unsigned base = end - s > 2 && s[0] == '0' && (s[1] | 0x20) == 'x' ? 16 : 10;
    s += base == 16 ? 2 : 0;
    if (t->kind != TK_NUM || s == end) return false;
    uint64_t v = 0;
    for (; s < end; s++) {
        unsigned d = (unsigned)hex_digit(*s);
        if (d >= base || v > (UINT64_C(1) << 40)) return false;
        v = v * base + d;
    }
    int64_t r = neg ? -(int64_t)v : (int64_t)v;
    if (r < lo || r > hi) return false;
    *out = r;
    return true;
}

static gsvm_status want_int(asmb *A, const token *t, int64_t lo, int64_t hi, int64_t *out, const char *what)
{
    if (parse_int(t, lo, hi, out)) return GSVM_OK;
    return fail_at(A, t->col, "expected %s (an integer from %lld to %lld)", what, (long long)lo, (long long)hi);
}

/* Decodes a string token.  wide: UTF-16LE code units (UTF-8 source text is
 * converted; \uXXXX is one code unit); narrow: bytes (\xNN is one byte).
 * Appends the encoded bytes plus a terminator when `terminate`. */
static gsvm_status decode_string(asmb *A, const token *t, bool wide, bool terminate, gsvm_buf *out)
{
    static const char escapes[] = "n\nt\tr\r\"\"\\\\0\0"; /* letter, then what it stands for */
    const char *s = t->s + 1, *end = t->s + t->n - 1;
    while (s < end) {
        uint32_t c = (uint8_t)*s;
        long col = t->col + (long)(s - t->s);
        if (c == '\\') {
            char e = s[1]; /* the tokenizer left a character after each backslash */
            const char *known = e ? strchr(escapes, e) : NULL;
            s += 2;
            if (known && (known - escapes) % 2 == 0) {
                c = (uint8_t)known[1];
            } else if (e == 'x' || e == 'u') {
                int digits = e == 'x' ? 2 : 4;
                c = 0;
                for (int i = 0; i < digits; i++, s++) {
                    int v = hex_digit(s < end ? *s : 0);
                    if (v < 0) return fail_at(A, col, "bad \\%c escape (needs %d hex digits)", e, digits);
                    c = c * 16 + (uint32_t)v;
                }
                if (e == 'u' && !wide) return fail_at(A, col, "\\u escape in an 8-bit string (use \\xNN)");
            } else {
                return fail_at(A, col, "unknown escape \\%c", e);
            }
        } else if (c >= 0x80 && wide) {
            /* UTF-8 typed by a person: one code point, as UTF-16 */
            int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1;
            if (more < 0 || end - s <= more) return fail_at(A, col, "invalid UTF-8 in a string");
            c &= 0x3Fu >> more;
            for (int i = 1; i <= more; i++) {
                if (((uint8_t)s[i] & 0xC0) != 0x80) return fail_at(A, col, "invalid UTF-8 in a string");
                c = c << 6 | ((uint8_t)s[i] & 0x3F);
            }
            s += more + 1;
            if (c >= 0x10000) {
                c -= 0x10000;
                gsvm_buf_u16(out, (uint16_t)(0xD800 + (c >> 10)), false);
                c = 0xDC00 + (c & 0x3FF);
            }
        } else
            s++;
        wide ? gsvm_buf_u16(out, (uint16_t)c, false) : gsvm_buf_u8(out, (uint8_t)c);
    }
    if (terminate) wide ? gsvm_buf_u16(out, 0, false) : gsvm_buf_u8(out, 0);
    return out->oom ? nomem(A) : GSVM_OK;
}

/* A name: bare identifier or quoted 8-bit string, as a malloc'd copy. */
static gsvm_status parse_name(asmb *A, const token *t, gsvm_patho_name *out)
{
    if (t->kind != TK_IDENT && t->kind != TK_STR) return fail_at(A, t->col, "expected a name");
    gsvm_buf b;
    gsvm_buf_init(&b);
    gsvm_buf_append(&b, t->s, t->kind == TK_IDENT ? t->n : 0);
    gsvm_status st = t->kind == TK_STR ? decode_string(A, t, false, false, &b) : b.oom ? nomem(A) : GSVM_OK;
    if (st == GSVM_OK && b.len > 0x7FFF) st = fail_at(A, t->col, "name longer than 32767 bytes");
    out->len = (uint32_t)b.len;
    if (st == GSVM_OK && !(out->str = gsvm_dup_bytes(b.data, b.len))) st = nomem(A);
    gsvm_buf_free(&b);
    return st;
}

static gsvm_status parse_type(asmb *A, const token *t, uint8_t *out)
{
    static const char *const names[] = {"bool", "int", "float", "string", "object", "cvector"};
    for (unsigned c = 0; c < 6; c++)
        if (t->n == strlen(names[c]) && memcmp(t->s, names[c], t->n) == 0) return *out = (uint8_t)(c + 1), GSVM_OK;
    int64_t v = 0;
    if (!parse_int(t, 0, 255, &v))
        return fail_at(A, t->col, "expected a type (bool, int, float, string, object, cvector or 0-255)");
    *out = (uint8_t)v;
    return GSVM_OK;
}

/* "(type, type, ...)" starting at *i, into A->types (emptied first); also
 * into a malloc'd copy (never NULL) at *copy when copy is not NULL. */
static gsvm_status parse_types(asmb *A, const line_toks *L, int *i, uint8_t **copy, uint32_t *n)
{
    A->types.len = 0;
    if (!tok_is(&L->t[*i], "(")) return fail_at(A, L->t[*i].col, "expected '(' and a list of types");
    if (!tok_is(&L->t[++*i], ")"))
        for (;;) {
            uint8_t ty = 0;
            TRY(parse_type(A, &L->t[*i], &ty));
            gsvm_buf_u8(&A->types, ty);
            if (tok_is(&L->t[++*i], ")")) break;
            if (!tok_is(&L->t[*i], ",")) return fail_at(A, L->t[*i].col, "expected ',' or ')' in a type list");
            ++*i;
        }
    ++*i; /* past ')' */
    if (A->types.oom) return nomem(A);
    if (copy && !(*copy = (uint8_t *)gsvm_dup_bytes(A->types.data, *n = (uint32_t)A->types.len))) return nomem(A);
    return GSVM_OK;
}

/* ---- labels -------------------------------------------------------------- */

/* The hash slot of the label named by the n bytes at s, or the empty slot
 * where it would go (FNV-1a, linear probing). */
static uint32_t *label_slot(asmb *A, const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    for (h &= A->hash_cap - 1;; h = (h + 1) & (A->hash_cap - 1)) {
        uint32_t k = A->label_hash[h];
        if (!k || (A->labels[k - 1].len == n && memcmp(A->labels[k - 1].name, s, n) == 0))
            return &A->label_hash[h];
    }
}

static gsvm_status label_add(asmb *A, const token *t, uint32_t index)
{
    TRY(ROOM(A, A->labels, A->nlabels));
    if ((A->nlabels + 1) * 2 > A->hash_cap) { /* double the table, rehash */
        uint32_t ncap = A->hash_cap ? A->hash_cap * 2 : 64, *nh = calloc(ncap, sizeof *nh);
        if (!nh) return nomem(A);
        free(A->label_hash);
        A->label_hash = nh, A->hash_cap = ncap;
        for (uint32_t k = 0; k < A->nlabels; k++)
            *label_slot(A, A->labels[k].name, A->labels[k].len) = k + 1;
    }
    uint32_t *slot = label_slot(A, t->s, t->n);
    if (*slot) return fail_at(A, t->col, "label '%.*s' defined twice", (int)t->n, t->s);
    A->labels[A->nlabels] = (label){t->s, t->n, index};
    *slot = ++A->nlabels;
    return GSVM_OK;
}

/* A target: an integer index now (into *where), or a label resolved at the
 * end into the field (kind, a, b) names. */
static gsvm_status parse_target(asmb *A, const token *t, int kind, uint32_t fa, uint32_t fb, uint32_t *where)
{
    int64_t v = 0;
    *where = 0; /* a label's index comes at the end */
    if (t->kind == TK_NUM && parse_int(t, 0, UINT32_MAX, &v)) return *where = (uint32_t)v, GSVM_OK;
    if (t->kind != TK_IDENT) return fail_at(A, t->col, "expected a label or an instruction index");
    TRY(ROOM(A, A->fixups, A->nfixups));
    A->fixups[A->nfixups++] = (fixup){kind, fa, fb, t->s, t->n, A->line, t->col};
    return GSVM_OK;
}

/* ---- directives ---------------------------------------------------------- */

static gsvm_status end_of_line(asmb *A, const line_toks *L, int i)
{
    if (L->t[i].kind == TK_END) return GSVM_OK;
    return fail_at(A, L->t[i].col, "unexpected '%.*s'", (int)L->t[i].n, L->t[i].s);
}

/* .global TYPE ["NAME" [long] [flag=N]] */
static gsvm_status dir_global(asmb *A, const line_toks *L)
{
    gsvm_patho_program *p = A->p;
    TRY(ROOM(A, p->globals, p->nglobals));
    gsvm_patho_global *g = memset(&p->globals[p->nglobals], 0, sizeof *p->globals);
    int i = 1;
    TRY(parse_type(A, &L->t[i++], &g->type));
    p->nglobals++; /* counted now so the name is freed on error */
    if (L->t[i].kind != TK_STR) return end_of_line(A, L, i);
    g->has_name = 1;
    TRY(parse_name(A, &L->t[i++], &g->name));
    for (;;) {
        int64_t v;
        if (tok_is(&L->t[i], "long")) {
            g->name.long_prefix = 1, i++;
        } else if (tok_is(&L->t[i], "flag") && tok_is(&L->t[i + 1], "=")) {
            TRY(want_int(A, &L->t[i + 2], 1, 255, &v, "a name flag"));
            g->has_name = (uint8_t)v, i += 3;
        } else
            return end_of_line(A, L, i);
    }
}

/* .import NAME ARGC [long] */
static gsvm_status dir_import(asmb *A, const line_toks *L)
{
    gsvm_patho_program *p = A->p;
    TRY(ROOM(A, p->imports, p->nimports));
    gsvm_patho_import *im = memset(&p->imports[p->nimports], 0, sizeof *p->imports);
    TRY(parse_name(A, &L->t[1], &im->name));
    p->nimports++;
    int64_t v = 0;
    TRY(want_int(A, &L->t[2], 0, UINT32_MAX, &v, "an argument count"));
    im->argc = (uint32_t)v;
    im->name.long_prefix = tok_is(&L->t[3], "long");
    return end_of_line(A, L, 3 + im->name.long_prefix);
}

/* .on ID TARGET (types) inside a task, .event ID TARGET (types) outside */
static gsvm_status dir_event(asmb *A, const line_toks *L, bool in_task)
{
    gsvm_patho_program *p = A->p;
    gsvm_patho_event *e;
    int kind = FIX_EVENT;
    uint32_t fa = p->nevents, fb = 0;
    if (in_task) {
        if (!p->ntasks) return fail_at(A, L->t[0].col, ".on outside a .task");
        gsvm_patho_task *t = &p->tasks[p->ntasks - 1];
        TRY(ROOM(A, t->events, t->nevents));
        kind = FIX_TASK_EVENT, fa = p->ntasks - 1, fb = t->nevents;
        e = &t->events[t->nevents++];
    } else {
        TRY(ROOM(A, p->events, p->nevents));
        e = &p->events[p->nevents++];
    }
    memset(e, 0, sizeof *e);
    int64_t v = 0;
    TRY(want_int(A, &L->t[1], INT32_MIN, UINT32_MAX, &v, "an event id"));
    e->id = (uint32_t)v;
    TRY(parse_target(A, &L->t[2], kind, fa, fb, &e->op));
    int i = 3;
    TRY(parse_types(A, L, &i, &e->arg_types, &e->nargs));
    return end_of_line(A, L, i);
}

/* .task N [params=N] [vars=(types)] */
static gsvm_status dir_task(asmb *A, const line_toks *L)
{
    gsvm_patho_program *p = A->p;
    int64_t v = 0;
    TRY(want_int(A, &L->t[1], 0, UINT32_MAX, &v, "a task number"));
    if (v != p->ntasks)
        return fail_at(A, L->t[1].col, "task %lld out of order (expected %u)", (long long)v, p->ntasks);
    if (p->ntasks >= 0x1000000) return fail_at(A, L->t[1].col, "too many tasks");
    TRY(ROOM(A, p->tasks, p->ntasks));
    gsvm_patho_task *t = memset(&p->tasks[p->ntasks++], 0, sizeof *p->tasks);
    TRY(ROOM(A, t->events, 0));
    for (int i = 2; L->t[i].kind != TK_END;) {
        if (tok_is(&L->t[i], "params") && tok_is(&L->t[i + 1], "=")) {
            TRY(want_int(A, &L->t[i + 2], 0, UINT32_MAX, &v, "a parameter count"));
            t->nparams = (uint32_t)v, i += 3;
        } else if (tok_is(&L->t[i], "vars") && tok_is(&L->t[i + 1], "=") && !t->var_types) {
            i += 2;
            TRY(parse_types(A, L, &i, &t->var_types, &t->nvars));
        } else
            return fail_at(A, L->t[i].col, "expected params=N or vars=(types)");
    }
    if (!t->var_types && !(t->var_types = malloc(1))) return nomem(A); /* never NULL */
    return GSVM_OK;
}

/* A line of .pool: W "wide text", A "8-bit text" or B hex bytes. */
static gsvm_status pool_item(asmb *A, const line_toks *L)
{
    const token *t = &L->t[0];
    if (tok_is(t, "W") || tok_is(t, "A")) {
        if (L->t[1].kind != TK_STR) return fail_at(A, L->t[1].col, "expected a quoted string");
        TRY(decode_string(A, &L->t[1], tok_is(t, "W"), true, &A->pool));
        return end_of_line(A, L, 2);
    }
    if (!tok_is(t, "B")) return fail_at(A, t->col, "expected a pool item (W \"...\", A \"...\" or B hex bytes)");
    /* Two hex digits each.  Bytes like "ff" or "a0" start with a letter and
     * are identifiers; from the first of those on, upper-case digits are
     * taken too (the lister writes lower case). */
    int i = 1;
    bool upper_ok = false;
    for (; L->t[i].kind == TK_NUM || L->t[i].kind == TK_IDENT; i++) {
        const token *h = &L->t[i];
        upper_ok |= h->kind == TK_IDENT;
        int hi = h->n == 2 ? hex_digit(h->s[0]) : -1, lo = h->n == 2 ? hex_digit(h->s[1]) : -1;
        bool upper = h->n == 2 && ((h->s[0] >= 'A' && h->s[0] <= 'F') || (h->s[1] >= 'A' && h->s[1] <= 'F'));
        if (hi < 0 || lo < 0 || (upper && !upper_ok)) return fail_at(A, h->col, "expected a byte as two hex digits");
        gsvm_buf_u8(&A->pool, (uint8_t)(hi * 16 + lo));
    }
    return end_of_line(A, L, i);
}

/* ---- instructions -------------------------------------------------------- */

/* An operand of an instruction line: the tokens [first, end), split at
 * commas outside parentheses. */
typedef struct group { int first, end; } group;

/* sN (mode 0, Stack[-N]) or tN (mode 1, a task variable) for letter want
 * ('v' stack only, 't' task only, 'm'/'a' either), or N:M (any mode byte). */
static gsvm_status parse_var(asmb *A, const line_toks *L, const group *g, char want, uint32_t *var,
                             unsigned *mode)
{
    const token *t = &L->t[g->first];
    int64_t v, m;
    if (t->kind == TK_NUM && g->end - g->first == 3 && tok_is(&L->t[g->first + 1], ":")) {
        if (!parse_int(t, 0, UINT32_MAX, &v) || !parse_int(&L->t[g->first + 2], 0, 255, &m))
            return fail_at(A, t->col, "expected VAR:MODE");
        *var = (uint32_t)v, *mode = (unsigned)m;
        return GSVM_OK;
    }
    uint32_t i = 1;
    uint64_t n = 0;
    if (g->end - g->first == 1 && t->kind == TK_IDENT && t->n >= 2 && t->n <= 11 && (t->s[0] == 's' || t->s[0] == 't')) {
        for (; i < t->n && is_digit(t->s[i]); i++)
            n = n * 10 + (unsigned)(t->s[i] - '0');
        if (i == t->n && n <= UINT32_MAX) {
            *mode = t->s[0] == 't';
            if ((want == 'v' && *mode) || (want == 't' && !*mode))
                return fail_at(A, t->col, "expected a %s variable (%cN) here, not %.*s", want == 'v' ? "stack" : "task",
                               want == 'v' ? 's' : 't', (int)t->n, t->s);
            *var = (uint32_t)n;
            return GSVM_OK;
        }
    }
    return fail_at(A, t->col, "expected a variable (sN for Stack[-N], tN for a task variable)");
}

/* "(var, var, ...)" at *i: the instruction's list, appended to p->args. */
static gsvm_status parse_args(asmb *A, const line_toks *L, int *i, gsvm_patho_insn *in)
{
    gsvm_patho_program *p = A->p;
    if (!tok_is(&L->t[*i], "(")) return fail_at(A, L->t[*i].col, "expected '(' and an argument list");
    in->list = p->nargs, in->list_len = 0;
    if (!tok_is(&L->t[++*i], ")"))
        for (;;) {
            group g = {*i, *i + (L->t[*i].kind == TK_NUM && tok_is(&L->t[*i + 1], ":") ? 3 : 1)};
            uint32_t var = 0;
            unsigned mode = 0;
            TRY(parse_var(A, L, &g, 'm', &var, &mode));
            TRY(ROOM(A, p->args, p->nargs));
            p->args[p->nargs++] = (gsvm_patho_arg){.var = var, .mode = (uint8_t)mode};
            in->list_len++;
            if (tok_is(&L->t[*i = g.end], ")")) break;
            if (!tok_is(&L->t[*i], ",")) return fail_at(A, L->t[*i].col, "expected ',' or ')' in an argument list");
            ++*i;
        }
    ++*i; /* past ')' */
    return GSVM_OK;
}

static gsvm_status add_strref(asmb *A, const token *t, uint32_t insn, unsigned slot, bool wide, bool has_offset)
{
    TRY(ROOM(A, A->strs, A->nstrs));
    size_t at = A->strbytes.len;
    TRY(decode_string(A, t, wide, true, &A->strbytes));
    if (A->strbytes.len > UINT32_MAX / 2) return fail_at(A, t->col, "too much string text");
    A->strs[A->nstrs++] = (strref){insn, slot, wide, has_offset, (uint32_t)at, (uint32_t)(A->strbytes.len - at)};
    return GSVM_OK;
}

/* Func's operand NAME[#INDEX](args); the import's index in *v. */
static gsvm_status parse_func(asmb *A, const line_toks *L, const group *g, gsvm_patho_insn *in, int64_t *v)
{
    gsvm_patho_program *p = A->p;
    const token *t = &L->t[g->first];
    /* a bare name is compared in place (one of any length is then reported
     * as not imported) */
    gsvm_patho_name nm = {(char *)t->s, t->n, 0};
    bool owned = t->kind != TK_IDENT;
    if (owned) TRY(parse_name(A, t, &nm));
    int j = g->first + 1;
    int64_t forced = -1;
    bool has_index = tok_is(&L->t[j], "#");
    gsvm_status st = has_index ? want_int(A, &L->t[j + 1], 0, UINT32_MAX, &forced, "an import index") : GSVM_OK;
    j += has_index ? 2 : 0;
    if (st == GSVM_OK) st = parse_args(A, L, &j, in);
    if (st == GSVM_OK && j != g->end)
        st = fail_at(A, L->t[j].col, "unexpected '%.*s'", (int)L->t[j].n, L->t[j].s);
    if (st == GSVM_OK) {
        *v = forced >= 0 ? forced : patho_import_find(&A->imports, p, nm.str, nm.len, in->list_len);
        const gsvm_patho_import *im = *v >= 0 && *v < p->nimports ? &p->imports[*v] : NULL;
        if (*v == -2)
            st = nomem(A);
        else if (!im)
            st = fail_at(A, t->col, "no import %.*s with %u arguments (add .import %.*s %u)", (int)nm.len, nm.str,
                         in->list_len, (int)nm.len, nm.str, in->list_len);
        else if (im->argc != in->list_len)
            st = fail_at(A, t->col, "import #%lld takes %u arguments, not %u", (long long)*v, im->argc, in->list_len);
        else if (im->name.len != nm.len || memcmp(im->name.str, nm.str, nm.len) != 0)
            st = fail_at(A, t->col, "import #%lld is not named %.*s", (long long)*v, (int)nm.len, nm.str);
    }
    if (owned) free(nm.str);
    return st;
}

/* The integer operands by letter, and the keywords (pop=N ...) that build
 * the flag, mode, padding and PopE/PopGE bytes: range, what one is, and for
 * an operand the complaint when it is more than one token. */
enum { KW_POP = 7, KW_MODE, KW_PAD, KW_BITS, KW_END };
static const struct int_field {
    const char *key;
    int64_t lo, hi;
    const char *what, *not_one;
} int_fields[KW_END] = {
    {"b", 0, 255, "a byte", "expected a byte"},
    {"i", INT32_MIN, UINT32_MAX, "a 32-bit integer", "expected an integer"},
    {"E", INT32_MIN, UINT32_MAX, "a 32-bit integer", "expected an integer"},
    {"x", -128, 255, "an 8-bit integer", "expected an integer"},
    {"p", 0, UINT32_MAX, "an unsigned integer", "expected an integer"},
    {"k", 0, UINT32_MAX, "an unsigned integer", "expected an integer"},
    {"g", 0, UINT32_MAX, "a global index (gN)", "expected a global (gN)"},
    [KW_POP] = {"pop", 0, 0xFFFF, "a pop count", NULL},
    [KW_MODE] = {"mode", 0, 255, "a mode byte", NULL},
    [KW_PAD] = {"pad", 0, 0xFFFFFF, "3 padding bytes", NULL},
    [KW_BITS] = {"bits", 0, 255, "flag bits", NULL},
};

/* The positional operand g of letter c (not a variable), for operand slot
 * k of instruction idx, in *v; strings and labels are noted for the end. */
static gsvm_status parse_operand(asmb *A, const line_toks *L, const group *g, char c, uint32_t idx, unsigned k,
                                 gsvm_patho_insn *in, int64_t *v)
{
    const token *t = &L->t[g->first], *t1 = t + 1, *t2 = t + 2;
    bool single = g->end == g->first + 1;
    int j = g->first;
    if (c == 'g' && single && t->kind == TK_IDENT && t->s[0] == 'g' && t->n > 1) { /* gN */
        token num = {t->s + 1, t->n - 1, t->col, TK_NUM};
        if (!is_digit(num.s[0]) || !parse_int(&num, 0, UINT32_MAX, v)) return fail_at(A, t->col, "expected a global (gN)");
        return GSVM_OK;
    }
    for (const struct int_field *o = int_fields; o < int_fields + KW_POP; o++)
        if (o->key[0] == c)
            return single ? want_int(A, t, o->lo, o->hi, v, o->what) : fail_at(A, t->col, "%s", o->not_one);
    switch (c) {
    case 'r': /* a decimal float, or f32:BITS */
        if (single && t->kind == TK_NUM) {
            bool ok;
            if (t->n >= 64) return fail_at(A, t->col, "number too long");
            float f = patho_parse_float(t->s, t->n, &ok);
            if (!ok) return fail_at(A, t->col, "expected a float");
            *v = gsvm_patho_f32_bits(f);
            return GSVM_OK;
        }
        if (g->end == g->first + 3 && tok_is(t, "f32") && tok_is(t1, ":"))
            return want_int(A, t2, 0, UINT32_MAX, v, "f32 bits");
        return fail_at(A, t->col, "expected a float");
    case 's': case 'n': /* @OFFSET, @OFFSET "text" or "text" */
        if (single && t->kind == TK_STR) return add_strref(A, t, idx, k, c == 's', false);
        if (!tok_is(t, "@")) return fail_at(A, t->col, "expected a pool string (@OFFSET \"text\" or \"text\")");
        if (g->end < g->first + 2) return fail_at(A, t->col, "expected @OFFSET");
        TRY(want_int(A, t1, 0, UINT32_MAX, v, "a pool offset"));
        if (g->end == g->first + 3 && t2->kind == TK_STR) return add_strref(A, t2, idx, k, c == 's', true);
        if (g->end != g->first + 2) return fail_at(A, t2->col, "expected a string after @OFFSET");
        return GSVM_OK;
    case 'j':
        if (!single) return fail_at(A, t->col, "expected a label or an instruction index");
        TRY(parse_target(A, t, FIX_INSN, idx, k, &in->a[k]));
        *v = in->a[k];
        return GSVM_OK;
    case 'F':
        return parse_func(A, L, g, in, v);
    case 'R':
        TRY(parse_args(A, L, &j, in));
        *v = in->list_len;
        break;
    case 'L':
        TRY(parse_types(A, L, &j, NULL, NULL));
        in->list = (uint32_t)A->vtypes.len;
        *v = in->list_len = (uint32_t)A->types.len;
        gsvm_buf_append(&A->vtypes, A->types.data, A->types.len);
        if (A->vtypes.oom) return nomem(A);
        break;
    default:
        return fail_at(A, t->col, "internal: operand letter %c", c);
    }
    if (j == g->end) return GSVM_OK; /* the list of R or L was all of it */
    return fail_at(A, L->t[j].col, "unexpected '%.*s'", (int)L->t[j].n, L->t[j].s);
}

/* An instruction line: NAME operand, operand, ... (tokens from L->t[0]). */
static gsvm_status instruction(asmb *A, const line_toks *L)
{
    gsvm_patho_program *p = A->p;
    const token *nt = &L->t[0];
    int op = -1;
    for (unsigned o = 0; o < GSVM_PATHO_OP_COUNT && op < 0; o++)
        if (gsvm_patho_ops[o].name_len == nt->n && memcmp(gsvm_patho_ops[o].name, nt->s, nt->n) == 0)
            op = (int)o;
    if (op < 0) return fail_at(A, nt->col, "unknown instruction '%.*s'", (int)nt->n, nt->s);
    const gsvm_patho_opinfo *info = &gsvm_patho_ops[op];
    if (gsvm_patho_code_of((unsigned)op, p->layout) < 0)
        return fail_at(A, nt->col, "%s does not exist in the %s layout", info->name, gsvm_patho_layout_name(p->layout));
    TRY(ROOM(A, p->insns, p->ninsns));
    uint32_t idx = p->ninsns;
    gsvm_patho_insn *in = memset(&p->insns[idx], 0, sizeof *p->insns);
    in->op = (uint16_t)op;

    /* split the operands at top-level commas, then set the keywords apart */
    enum { MAX_GROUPS = GSVM_PATHO_MAX_OPERANDS + 8 };
    group groups[MAX_GROUPS], pos[MAX_GROUPS];
    int ngroups = 0, npos = 0, i = 1, depth = 0;
    if (L->t[i].kind != TK_END) {
        groups[ngroups++].first = i;
        for (; L->t[i].kind != TK_END; i++) {
            char c = L->t[i].kind == TK_PUNCT ? L->t[i].s[0] : 0;
            depth += (c == '(') - (c == ')');
            if (c != ',' || depth != 0) continue;
            groups[ngroups - 1].end = i;
            if (ngroups == MAX_GROUPS) return fail_at(A, L->t[i].col, "too many operands");
            groups[ngroups++].first = i + 1;
        }
        groups[ngroups - 1].end = i;
    }
    int64_t kw[KW_END] = {[KW_MODE] = -1};
    bool keep = false;
    for (int g = 0; g < ngroups; g++) {
        const token *t = &L->t[groups[g].first];
        int n = groups[g].end - groups[g].first, k = KW_POP;
        if (n == 0) return fail_at(A, t->col, "empty operand");
        if (t->kind == TK_IDENT && tok_is(t + 1, "=")) { /* NAME=VALUE */
            if (n != 3) return fail_at(A, t[2].col, "expected one value after '='");
            while (k < KW_END && !tok_is(t, int_fields[k].key))
                k++;
            if (k == KW_END) return fail_at(A, t->col, "unknown keyword '%.*s'", (int)t->n, t->s);
            TRY(want_int(A, t + 2, 0, int_fields[k].hi, &kw[k], int_fields[k].what));
        } else if (tok_is(t, "keep") && n == 1)
            keep = true;
        else
            pos[npos++] = groups[g];
    }

    /* positional operands in the order of isa.def's letters */
    const char *ops = info->operands;
    int pi = 0;
    unsigned mi = 0, a_mode = 0;
    uint32_t flag_modes = 0;
    for (unsigned k = 0; ops[k]; k++) {
        char c = ops[k];
        if (strchr("fTPQGh", c)) continue; /* built from keywords below */
        if (pi >= npos) return fail_at(A, L->t[i].col, "%s needs more operands (%s)", info->name, info->operands);
        const group *g = &pos[pi++];
        int64_t v = 0;
        if (strchr("vtma", c)) {
            uint32_t var = 0;
            unsigned mode = 0;
            TRY(parse_var(A, L, g, c, &var, &mode));
            if (c == 'm' && mode > 1) return fail_at(A, L->t[g->first].col, "a flag-addressed variable is sN or tN");
            if (c == 'm' && mode) flag_modes |= gsvm_patho_mode_bit(mi);
            mi += c == 'm';
            a_mode = c == 'a' ? mode : a_mode;
            v = var;
        } else {
            TRY(parse_operand(A, L, g, c, idx, k, in, &v));
        }
        in->a[k] = (uint32_t)v;
    }
    if (pi < npos) return fail_at(A, L->t[pos[pi].first].col, "too many operands for %s", info->name);

    /* the keyword-built bytes */
    uint8_t popmask = gsvm_patho_shapes[op].popmask;
    uint32_t bits = (uint32_t)kw[KW_BITS];
    for (unsigned k = 0; ops[k]; k++) {
        switch (ops[k]) {
        case 'f':
            if (kw[KW_POP] > popmask)
                return fail_at(A, nt->col, "pop=%lld does not fit in the flag byte (max %u)", (long long)kw[KW_POP], popmask);
            in->a[k] = flag_modes | (uint32_t)kw[KW_POP];
            break;
        case 'h': in->a[k] = (uint32_t)kw[KW_POP]; break;
        case 'T': in->a[k] = kw[KW_MODE] >= 0 ? (uint32_t)kw[KW_MODE] : a_mode; break;
        case 'P': in->a[k] = (uint32_t)kw[KW_PAD]; break;
        case 'Q':
            if (a_mode > 1) return fail_at(A, nt->col, "PopE variable is sN or tN");
            if (bits & 3) return fail_at(A, nt->col, "bits= holds the bits other than 0x01 and 0x02");
            in->a[k] = a_mode | (keep ? 2u : 0u) | bits;
            break;
        case 'G':
            if (bits & 1) return fail_at(A, nt->col, "bits= holds the bits other than 0x01");
            in->a[k] = (keep ? 1u : 0u) | bits;
            break;
        }
    }
    p->ninsns++;
    return GSVM_OK;
}

/* ---- lines and resolution ----------------------------------------------- */

static gsvm_status one_line(asmb *A, const line_toks *L)
{
    const token *t = &L->t[0];
    gsvm_patho_program *p = A->p;
    if (t->kind == TK_END) return GSVM_OK;
    if (t->kind == TK_IDENT && t->s[0] == '.') {
        if (tok_is(t, ".layout")) { /* .layout alpha|hd */
            gsvm_patho_layout l;
            char name[16] = {0};
            const token *v = &L->t[1];
            if (v->kind != TK_IDENT && v->kind != TK_NUM) return fail_at(A, v->col, "expected alpha or hd");
            memcpy(name, v->s, v->n < 15 ? v->n : 15);
            if (!gsvm_patho_layout_parse(name, &l) || l == GSVM_PATHO_LAYOUT_AUTO)
                return fail_at(A, v->col, "unknown layout '%s' (alpha or hd)", name);
            if (A->layout_override == GSVM_PATHO_LAYOUT_AUTO)
                p->layout = l; /* instructions before it are encoded at the end too */
            return end_of_line(A, L, 2);
        }
        if (tok_is(t, ".pool") || tok_is(t, ".code")) {
            A->sec = tok_is(t, ".pool") ? SEC_POOL : SEC_CODE;
            return end_of_line(A, L, 1);
        }
        A->sec = SEC_NONE;
        if (tok_is(t, ".global")) return dir_global(A, L);
        if (tok_is(t, ".import")) return dir_import(A, L);
        if (tok_is(t, ".task")) return dir_task(A, L);
        if (tok_is(t, ".on") || tok_is(t, ".event")) return dir_event(A, L, tok_is(t, ".on"));
        if (!tok_is(t, ".entry")) return fail_at(A, t->col, "unknown directive '%.*s'", (int)t->n, t->s);
        int64_t v; /* .entry TASK TARGET */
        TRY(want_int(A, &L->t[1], 0, UINT32_MAX, &v, "a task number"));
        p->run_task = (uint32_t)v;
        TRY(parse_target(A, &L->t[2], FIX_ENTRY, 0, 0, &p->run_op));
        return end_of_line(A, L, 3);
    }
    if (A->sec == SEC_POOL) return pool_item(A, L);
    if (A->sec != SEC_CODE) return fail_at(A, t->col, "instruction or label outside .code");
    if (t->kind == TK_IDENT && tok_is(&L->t[1], ":")) {
        TRY(label_add(A, t, p->ninsns));
        /* "label: Instr ..." on one line: the rest of the tokens */
        line_toks rest = {L->t + 2, L->n - 2, L->cap - 2};
        return L->t[2].kind == TK_END ? GSVM_OK : instruction(A, &rest);
    }
    if (t->kind != TK_IDENT) return fail_at(A, t->col, "expected an instruction");
    return instruction(A, L);
}

/* Labels into their fields; pool strings to their offsets. */
static gsvm_status resolve(asmb *A)
{
    gsvm_patho_program *p = A->p;
    for (uint32_t f = 0; f < A->nfixups; f++) {
        fixup *x = &A->fixups[f];
        uint32_t k = A->hash_cap ? *label_slot(A, x->name, x->name_len) : 0;
        if (!k)
            return gsvm_error_at_line(A->err, GSVM_ERR_INPUT, A->file, x->line, x->col, "undefined label '%.*s'",
                                      (int)x->name_len, x->name);
        uint32_t t = A->labels[k - 1].index;
        switch (x->kind) {
        case FIX_ENTRY: p->run_op = t; break;
        case FIX_INSN: p->insns[x->a].a[x->b] = t; break;
        case FIX_TASK_EVENT: p->tasks[x->a].events[x->b].op = t; break;
        default: p->events[x->a].op = t; break;
        }
    }
    /* The whole pool is searched for a text: past a budget of work (only
     * listings with tens of thousands of new strings reach it) the text is
     * appended without looking, which is still correct. */
    size_t search_budget = 64u * 1024 * 1024;
    for (uint32_t s = 0; s < A->nstrs; s++) {
        strref *r = &A->strs[s];
        uint32_t *slot = &p->insns[r->insn].a[r->slot], found = UINT32_MAX;
        const uint8_t *bytes = A->strbytes.data + r->at, *pool = A->pool.data;
        size_t len = A->pool.len;
        if (r->has_offset && (uint64_t)*slot + r->nbytes <= len && memcmp(pool + *slot, bytes, r->nbytes) == 0)
            continue; /* the offset holds the text: keep it (the exact bytes) */
        if (search_budget >= len) {
            search_budget -= len;
            for (size_t at = 0; at + r->nbytes <= len && found == UINT32_MAX; at += r->wide ? 2 : 1)
                if (memcmp(pool + at, bytes, r->nbytes) == 0) found = (uint32_t)at;
        }
        if (found == UINT32_MAX) {
            found = (uint32_t)len;
            gsvm_buf_append(&A->pool, bytes, r->nbytes);
            if (A->pool.oom) return nomem(A);
        }
        *slot = found;
    }
    return GSVM_OK;
}

/* A buffer's bytes, handed over (never NULL: one zero byte when empty). */
static bool take(gsvm_buf *b, uint8_t **out, uint32_t *n)
{
    *n = (uint32_t)b->len;
    return (*out = b->len ? gsvm_buf_take(b, NULL) : calloc(1, 1)) != NULL;
}

gsvm_status gsvm_patho_asm(const char *text, size_t len, const char *file, gsvm_patho_layout layout,
                           gsvm_patho_program **out, gsvm_error *err)
{
    gsvm_error_clear(err);
    *out = NULL;
    asmb A = {.file = file, .err = err, .layout_override = layout};
    gsvm_patho_program *p = A.p = calloc(1, sizeof *p);
    if (!p) return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
    p->layout = layout == GSVM_PATHO_LAYOUT_AUTO ? GSVM_PATHO_LAYOUT_HD : layout;
    line_toks L = {NULL, 0, 0};
    /* the arrays exist even when their sections are empty */
    bool ok = ROOM(&A, p->globals, 0) == GSVM_OK && ROOM(&A, p->imports, 0) == GSVM_OK &&
              ROOM(&A, p->tasks, 0) == GSVM_OK && ROOM(&A, p->events, 0) == GSVM_OK &&
              ROOM(&A, p->insns, 0) == GSVM_OK && ROOM(&A, p->args, 0) == GSVM_OK;
    gsvm_status st = ok ? GSVM_OK : GSVM_ERR_NOMEM;
    for (const char *s = text, *end = text + len; s < end && st == GSVM_OK;) {
        const char *nl = memchr(s, '\n', (size_t)(end - s)), *why;
        long bad_col;
        A.line++;
        st = tokenize(s, nl ? nl : end, &L, &bad_col, &why) ? one_line(&A, &L) : fail_at(&A, bad_col, "%s", why);
        s = nl ? nl + 1 : end;
    }
    free(L.t);
    if (st == GSVM_OK) st = resolve(&A);
    if (st == GSVM_OK && A.pool.len > UINT32_MAX / 2) st = gsvm_error_set(err, GSVM_ERR_INPUT, file, "pool too large");
    if (st == GSVM_OK && (!take(&A.pool, &p->pool, &p->pool_size) || !take(&A.vtypes, &p->vtypes, &p->nvtypes)))
        st = nomem(&A);
    gsvm_buf *bufs[] = {&A.pool, &A.vtypes, &A.strbytes, &A.types};
    void *arrays[] = {A.labels, A.label_hash, A.fixups, A.strs};
    for (int k = 0; k < 4; k++)
        gsvm_buf_free(bufs[k]), free(arrays[k]);
    patho_import_index_free(&A.imports);
    /* codes, sizes and offsets, in the layout the listing ended with */
    if (st == GSVM_OK) st = gsvm_patho_finish(p, err);
    if (st == GSVM_OK)
        *out = p;
    else
        gsvm_patho_free(p);
    return st;
}
