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
 * do) or appended to it. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__) && defined(__GNUC__)
#include <emmintrin.h>
#endif

#include "base/buf.h"
#include "patho/internal.h"
#include "patho/isa.h"
#include "patho/text.h"

/* ---- tokens -------------------------------------------------------------- */

enum { TK_END, TK_IDENT, TK_NUM, TK_STR, TK_PUNCT };

typedef struct token {
    const char *s; /* start in the source */
    uint32_t n;    /* length in the source (strings: with quotes) */
    uint32_t col;  /* 1-based */
    uint8_t kind;
} token;

#define MAX_TOKENS (16 * 1024 * 1024)

typedef struct line_toks {
    token *t; /* `first` until a line needs more, then malloc'd and grown */
    int cap;
    int n;
    token first[128]; /* room for any ordinary line without an allocation */
} line_toks;

/* Character classes for the tokenizer: one table lookup per character. */
enum { CC_SPACE = 1, CC_IDSTART = 2, CC_DIGIT = 4, CC_IDENT = CC_IDSTART | CC_DIGIT };
static const uint8_t char_class[256] = {
    ['\t'] = 1, ['\r'] = 1, [' '] = 1, ['.'] = 2, ['0'] = 4, ['1'] = 4, ['2'] = 4, ['3'] = 4,
    ['4'] = 4, ['5'] = 4, ['6'] = 4, ['7'] = 4, ['8'] = 4, ['9'] = 4, ['A'] = 2, ['B'] = 2,
    ['C'] = 2, ['D'] = 2, ['E'] = 2, ['F'] = 2, ['G'] = 2, ['H'] = 2, ['I'] = 2, ['J'] = 2,
    ['K'] = 2, ['L'] = 2, ['M'] = 2, ['N'] = 2, ['O'] = 2, ['P'] = 2, ['Q'] = 2, ['R'] = 2,
    ['S'] = 2, ['T'] = 2, ['U'] = 2, ['V'] = 2, ['W'] = 2, ['X'] = 2, ['Y'] = 2, ['Z'] = 2,
    ['_'] = 2, ['a'] = 2, ['b'] = 2, ['c'] = 2, ['d'] = 2, ['e'] = 2, ['f'] = 2, ['g'] = 2,
    ['h'] = 2, ['i'] = 2, ['j'] = 2, ['k'] = 2, ['l'] = 2, ['m'] = 2, ['n'] = 2, ['o'] = 2,
    ['p'] = 2, ['q'] = 2, ['r'] = 2, ['s'] = 2, ['t'] = 2, ['u'] = 2, ['v'] = 2, ['w'] = 2,
    ['x'] = 2, ['y'] = 2, ['z'] = 2,
};

/* How many bytes at the start (in memory order) of a word read with memcpy
 * are zero; x != 0. */
static inline unsigned low_zero_bytes(uint64_t x)
{
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return (unsigned)__builtin_ctzll(x) / 8;
#else
    unsigned n = 0;
    const uint8_t *b = (const uint8_t *)&x;
    while (!b[n])
        n++;
    return n;
#endif
}

static bool is_ident(char c) { return char_class[(uint8_t)c] & CC_IDENT; }

/* What a character starts, for the tokenizer's single dispatch per step
 * (0, the default, is one punctuation character). */
enum { ST_PUNCT, ST_SPACE, ST_BLANK, ST_COMMENT, ST_NUL, ST_QUOTE, ST_DIGIT, ST_SIGN, ST_IDENT };
static const uint8_t start_kind[256] = {
    [' '] = ST_SPACE, ['\t'] = ST_BLANK, ['\r'] = ST_BLANK, [';'] = ST_COMMENT, [0] = ST_NUL,
    ['"'] = ST_QUOTE, ['0'] = ST_DIGIT, ['1'] = ST_DIGIT, ['2'] = ST_DIGIT, ['3'] = ST_DIGIT,
    ['4'] = ST_DIGIT, ['5'] = ST_DIGIT, ['6'] = ST_DIGIT, ['7'] = ST_DIGIT, ['8'] = ST_DIGIT,
    ['9'] = ST_DIGIT, ['-'] = ST_SIGN, ['+'] = ST_SIGN, ['.'] = ST_IDENT, ['_'] = ST_IDENT,
    ['A'] = ST_IDENT, ['B'] = ST_IDENT, ['C'] = ST_IDENT, ['D'] = ST_IDENT, ['E'] = ST_IDENT,
    ['F'] = ST_IDENT, ['G'] = ST_IDENT, ['H'] = ST_IDENT, ['I'] = ST_IDENT, ['J'] = ST_IDENT,
    ['K'] = ST_IDENT, ['L'] = ST_IDENT, ['M'] = ST_IDENT, ['N'] = ST_IDENT, ['O'] = ST_IDENT,
    ['P'] = ST_IDENT, ['Q'] = ST_IDENT, ['R'] = ST_IDENT, ['S'] = ST_IDENT, ['T'] = ST_IDENT,
    ['U'] = ST_IDENT, ['V'] = ST_IDENT, ['W'] = ST_IDENT, ['X'] = ST_IDENT, ['Y'] = ST_IDENT,
    ['Z'] = ST_IDENT, ['a'] = ST_IDENT, ['b'] = ST_IDENT, ['c'] = ST_IDENT, ['d'] = ST_IDENT,
    ['e'] = ST_IDENT, ['f'] = ST_IDENT, ['g'] = ST_IDENT, ['h'] = ST_IDENT, ['i'] = ST_IDENT,
    ['j'] = ST_IDENT, ['k'] = ST_IDENT, ['l'] = ST_IDENT, ['m'] = ST_IDENT, ['n'] = ST_IDENT,
    ['o'] = ST_IDENT, ['p'] = ST_IDENT, ['q'] = ST_IDENT, ['r'] = ST_IDENT, ['s'] = ST_IDENT,
    ['t'] = ST_IDENT, ['u'] = ST_IDENT, ['v'] = ST_IDENT, ['w'] = ST_IDENT, ['x'] = ST_IDENT,
    ['y'] = ST_IDENT, ['z'] = ST_IDENT,
};

/* Splits one line into tokens; false (with *bad_col) on an unterminated
 * string or too many tokens. */
static bool tokenize(const char *s, const char *end, line_toks *out, long *bad_col,
                     const char **why)
{
    const char *line = s;
    out->n = 0;
    /* a line of N bytes has at most N tokens: when the array holds that
     * many (almost always), no per-token room check is needed */
    bool roomy = (size_t)(end - s) < (size_t)out->cap - 1;
    while (s < end) {
        char c = *s;
        unsigned kind = start_kind[(uint8_t)c];
        if (kind == ST_SPACE) {
            /* Listings pad to a comment column: count the leading spaces of
             * 8 bytes at once (the lowest byte that is not a space ends the
             * run), so a run costs one step per 8 columns, not per column. */
            while (end - s >= 8) {
                uint64_t eight;
                memcpy(&eight, s, 8);
                uint64_t diff = eight ^ 0x2020202020202020ull;
                if (diff) {
                    s += low_zero_bytes(diff);
                    break;
                }
                s += 8;
            }
            while (s < end && *s == ' ')
                s++;
            continue;
        }
        if (kind == ST_BLANK) {
            s++;
            continue;
        }
        if (kind == ST_COMMENT)
            break;
        if (kind == ST_NUL) {
            *bad_col = (long)(s - line) + 1;
            *why = "NUL byte in the listing";
            return false;
        }
        if (!roomy && out->n >= out->cap - 1) {
            token *n = NULL;
            if (out->cap < MAX_TOKENS) {
                bool inline_array = out->t == out->first;
                n = inline_array ? malloc((size_t)out->cap * 2 * sizeof *n)
                                 : realloc(out->t, (size_t)out->cap * 2 * sizeof *n);
                if (n && inline_array)
                    memcpy(n, out->first, sizeof out->first);
            }
            if (!n) {
                *bad_col = (long)(s - line) + 1;
                *why = out->cap < MAX_TOKENS ? "out of memory" : "too many tokens on one line";
                return false;
            }
            out->t = n;
            out->cap *= 2;
        }
        token *t = &out->t[out->n++];
        t->s = s;
        t->col = (uint32_t)(s - line + 1);
        const char *q = s + 1;
        if (kind == ST_IDENT) {
            while (q < end && is_ident(*q))
                q++;
            t->kind = TK_IDENT;
        } else if (kind == ST_DIGIT ||
                   (kind == ST_SIGN && q < end && ((*q >= '0' && *q <= '9') || *q == '.'))) {
            bool hex = c == '0' && q < end && (*q == 'x' || *q == 'X');
            while (q < end) {
                char d = *q;
                if (is_ident(d) ||
                    ((d == '+' || d == '-') && !hex && (q[-1] == 'e' || q[-1] == 'E')))
                    q++;
                else
                    break;
            }
            t->kind = TK_NUM;
        } else if (kind == ST_QUOTE) {
            while (q < end && *q != '"') {
                if (*q == '\\' && q + 1 < end)
                    q++;
                q++;
            }
            if (q >= end) {
                *bad_col = t->col;
                *why = "unterminated string";
                return false;
            }
            q++;
            t->kind = TK_STR;
        } else {
            t->kind = TK_PUNCT;
        }
        t->n = (uint32_t)(q - s);
        s = q;
    }
    out->t[out->n].kind = TK_END;
    out->t[out->n].s = s;
    out->t[out->n].n = 0;
    out->t[out->n].col = (uint32_t)(s - line + 1);
    return true;
}

static bool tok_is_n(const token *t, const char *word, size_t n)
{
    /* the first byte decides most comparisons (and all of "(" "," ":") */
    return t->n == n && t->s[0] == word[0] && (t->kind == TK_IDENT || t->kind == TK_PUNCT) &&
           (n == 1 || memcmp(t->s + 1, word + 1, n - 1) == 0);
}
/* WORD is a string literal, so its length is known at compile time. */
#define tok_is(t, word) tok_is_n((t), (word), sizeof(word) - 1)

/* ---- the assembler state ------------------------------------------------- */

/* A label used before it is known.  Arrays move while they grow, so a
 * fixup names its field by indices, never by pointer. */
enum { FIX_ENTRY, FIX_INSN, FIX_TASK_EVENT, FIX_EVENT };

typedef struct fixup {
    int kind;
    uint32_t a, b; /* FIX_INSN: insn, operand slot; FIX_TASK_EVENT: task, event; FIX_EVENT: event */
    const char *name; /* in the listing text, which outlives the assembly */
    uint32_t name_len;
    long line, col;
} fixup;

typedef struct strref {
    uint32_t insn;
    int slot;
    bool wide, has_offset;
    uint32_t at, nbytes; /* encoded text with its terminator, in asmb.strbytes */
    long line, col;
} strref;

typedef struct label {
    const char *name; /* in the listing text */
    uint32_t len, index;
} label;

/* One allocation that arrays and names are carved from, so a listing
 * costs a handful of mallocs rather than one per array and growth step.
 * Nothing inside is freed or reallocated on its own: an array that
 * outgrows its piece moves to malloc (see grow). */
typedef struct region {
    uint8_t *base;
    size_t size, used;
} region;

static void *region_take(region *R, size_t n)
{
    size_t at = (R->used + 7) & ~(size_t)7; /* arrays of structs: 8-byte aligned */
    if (!R->base || at > R->size || n > R->size - at)
        return NULL;
    R->used = at + n;
    return R->base + at;
}

static bool in_region(const region *R, const void *ptr)
{
    uintptr_t a = (uintptr_t)ptr, lo = (uintptr_t)R->base;
    return R->base && a >= lo && a <= lo + R->size;
}

typedef struct asmb {
    const char *file;
    gsvm_error *err;
    long line;
    gsvm_patho_program *p;
    gsvm_patho_layout layout_override;
    bool layout_seen;
    bool recode; /* the layout changed after code: a full gsvm_patho_finish */
    enum { SEC_NONE, SEC_POOL, SEC_CODE } sec;
    gsvm_buf pool;
    uint32_t cap_globals, cap_imports, cap_tasks, cap_events, cap_insns, cap_args, cap_vtypes;
    uint32_t *cap_task_events; /* per task */
    region prog;    /* p->block: the program's names, type lists and arrays */
    region scratch; /* the assembler's own arrays (labels, fixups, strings) */
    label *labels;
    uint32_t nlabels, cap_labels;
    uint32_t *label_hash; /* open addressing: label index + 1 */
    uint32_t hash_cap;
    fixup *fixups;
    uint32_t nfixups, cap_fixups;
    strref *strs;
    uint32_t nstrs, cap_strs;
    gsvm_buf strbytes;
    gsvm_buf types; /* scratch for one type list, reused line after line */
    bool oom;
    uint8_t op_slot[512]; /* instruction names: op + 1, see op_slot() */
    const char *text_end; /* of the listing: how far the fast lane may read */
    patho_import_index imports;
    uint32_t import_cache[64]; /* see fast_import_find: import + 1 */
} asmb;

static gsvm_status fail_at(asmb *A, long col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static gsvm_status fail_at(asmb *A, long col, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gsvm_error_at_line(A->err, GSVM_ERR_INPUT, A->file, A->line, col, "%s", msg);
}

static gsvm_status nomem(asmb *A)
{
    A->oom = true;
    return gsvm_error_set(A->err, GSVM_ERR_NOMEM, A->file, "out of memory");
}

/* Grows *arr (of elem-size items) to hold `need`: its first room from
 * region R when it fits, then malloc'd (copied out of the region) and
 * realloc'd. */
static bool grow_slow(asmb *A, region *R, void **arr, uint32_t *cap, uint64_t need, size_t elem)
{
    if (need > UINT32_MAX / 2) {
        nomem(A);
        return false;
    }
    /* the first room exactly as asked (callers size it from the text),
     * doubling after */
    uint32_t ncap = *cap ? *cap * 2 : need > 16 ? (uint32_t)need : 16;
    while (ncap < need)
        ncap *= 2;
    void *n;
    if (*arr && !in_region(R, *arr)) {
        n = realloc(*arr, (size_t)ncap * elem);
    } else {
        n = region_take(R, (size_t)ncap * elem);
        if (!n)
            n = malloc((size_t)ncap * elem);
        if (n && *cap)
            memcpy(n, *arr, (size_t)*cap * elem);
    }
    if (!n) {
        nomem(A);
        return false;
    }
    *arr = n;
    *cap = ncap;
    return true;
}

/* grow(), with the usual "there is room" answered inline */
static inline bool grow(asmb *A, region *R, void **arr, uint32_t *cap, uint64_t need, size_t elem)
{
    return need <= *cap || grow_slow(A, R, arr, cap, need, elem);
}

/* free(), unless ptr was carved out of R */
static void free_unless_in(const region *R, void *ptr)
{
    if (!in_region(R, ptr))
        free(ptr);
}

/* ---- numbers, strings, names --------------------------------------------- */

/* Decimal or 0x hex, optionally signed (a leading 0 is still decimal). */
static bool parse_int(const token *t, int64_t lo, int64_t hi, int64_t *out)
{
    if (t->kind != TK_NUM)
        return false;
    const char *s = t->s, *end = t->s + t->n;
    bool neg = false;
    if (s < end && (*s == '-' || *s == '+'))
        neg = *s++ == '-';
    unsigned base = 10;
    if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (s == end)
        return false;
    uint64_t v = 0;
    for (; s < end; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (d > 9) {
            unsigned c = (unsigned)(*s | 0x20) - 'a';
            d = base == 16 && c < 6 ? c + 10 : 99;
        }
        if (d >= base || v > (UINT64_C(1) << 40))
            return false;
        v = v * base + d;
    }
    int64_t r = neg ? -(int64_t)v : (int64_t)v;
    if (r < lo || r > hi)
        return false;
    *out = r;
    return true;
}

static gsvm_status want_int(asmb *A, const token *t, int64_t lo, int64_t hi, int64_t *out,
                            const char *what)
{
    if (!parse_int(t, lo, hi, out))
        return fail_at(A, t->col, "expected %s (an integer from %lld to %lld)", what,
                       (long long)lo, (long long)hi);
    return GSVM_OK;
}

/* Decodes a string token.  wide: UTF-16LE code units (UTF-8 source text is
 * converted; \uXXXX is one code unit); narrow: bytes (\xNN is one byte).
 * Appends the encoded bytes plus a terminator when `terminate`. */
static gsvm_status decode_string(asmb *A, const token *t, bool wide, bool terminate, gsvm_buf *out)
{
    const char *s = t->s + 1, *end = t->s + t->n - 1;
    /* fast path: printable ASCII with no escapes, written straight in as
     * it is checked; at the first other character the loop below starts
     * over (nothing written here counts until the end) */
    size_t n = (size_t)(end - s), k = 0;
    if (!(out->len + (n + 1) * 2 + 1 <= out->cap || gsvm_buf_reserve(out, (n + 1) * 2)))
        return nomem(A);
    uint8_t *w = out->data + out->len;
    if (wide) {
        for (; k < n && (uint8_t)s[k] >= 0x20 && (uint8_t)s[k] < 0x7F && s[k] != '\\'; k++) {
            w[2 * k] = (uint8_t)s[k];
            w[2 * k + 1] = 0;
        }
        if (k == n) {
            out->len += 2 * n;
            if (terminate) {
                w[2 * n] = w[2 * n + 1] = 0;
                out->len += 2;
            }
            return GSVM_OK;
        }
    } else {
        for (; k < n && (uint8_t)s[k] >= 0x20 && (uint8_t)s[k] < 0x7F && s[k] != '\\'; k++)
            w[k] = (uint8_t)s[k];
        if (k == n) {
            out->len += n;
            if (terminate)
                out->data[out->len++] = 0;
            return GSVM_OK;
        }
    }
    while (s < end) {
        uint32_t c = (uint8_t)*s;
        long col = t->col + (long)(s - t->s);
        if (c == '\\') {
            s++;
            char e = *s++;
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case '"': c = '"'; break;
            case '\\': c = '\\'; break;
            case '0': c = 0; break;
            case 'x':
            case 'u': {
                int digits = e == 'x' ? 2 : 4;
                c = 0;
                for (int i = 0; i < digits; i++, s++) {
                    char h = s < end ? *s : 0;
                    int v = h >= '0' && h <= '9' ? h - '0'
                            : h >= 'a' && h <= 'f' ? h - 'a' + 10
                            : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
                    if (v < 0)
                        return fail_at(A, col, "bad \\%c escape (needs %d hex digits)", e, digits);
                    c = c * 16 + (uint32_t)v;
                }
                if (e == 'u' && !wide)
                    return fail_at(A, col, "\\u escape in an 8-bit string (use \\xNN)");
                break;
            }
            default: return fail_at(A, col, "unknown escape \\%c", e);
            }
        } else if (c >= 0x80 && wide) {
            /* UTF-8 typed by a person: one code point, as UTF-16 */
            int more = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : -1;
            if (more < 0 || end - s <= more)
                return fail_at(A, col, "invalid UTF-8 in a string");
            c &= 0x3Fu >> more;
            for (int i = 1; i <= more; i++) {
                uint8_t cc = (uint8_t)s[i];
                if ((cc & 0xC0) != 0x80)
                    return fail_at(A, col, "invalid UTF-8 in a string");
                c = c << 6 | (cc & 0x3F);
            }
            s += more + 1;
            if (c >= 0x10000) {
                c -= 0x10000;
                gsvm_buf_u16(out, (uint16_t)(0xD800 + (c >> 10)), false);
                c = 0xDC00 + (c & 0x3FF);
            }
        } else {
            s++;
        }
        if (wide)
            gsvm_buf_u16(out, (uint16_t)c, false);
        else
            gsvm_buf_u8(out, (uint8_t)c);
    }
    if (terminate) {
        if (wide)
            gsvm_buf_u16(out, 0, false);
        else
            gsvm_buf_u8(out, 0);
    }
    return out->oom ? nomem(A) : GSVM_OK;
}

/* `n` bytes from the program's block (one allocation for the names and type
 * lists of a listing, instead of one each); from malloc once it is full
 * (gsvm_patho_free tells them apart by address).  NULL: out of memory. */
static void *part_alloc(asmb *A, size_t n)
{
    region *R = &A->prog;
    if (R->base && n <= R->size - R->used) {
        void *q = R->base + R->used;
        R->used += n;
        return q;
    }
    return malloc(n ? n : 1);
}

/* A name: bare identifier or quoted 8-bit string. */
static gsvm_status parse_name(asmb *A, const token *t, gsvm_patho_name *out)
{
    if (t->kind == TK_IDENT && t->n <= 0x7FFF) {
        /* a bare name (nearly all): its bytes as they are, one exact malloc */
        out->str = part_alloc(A, t->n + 1);
        if (!out->str)
            return nomem(A);
        memcpy(out->str, t->s, t->n);
        out->str[t->n] = 0;
        out->len = t->n;
        return GSVM_OK;
    }
    gsvm_buf b;
    gsvm_buf_init(&b);
    if (t->kind == TK_IDENT) {
        gsvm_buf_append(&b, t->s, t->n);
    } else if (t->kind == TK_STR) {
        gsvm_status st = decode_string(A, t, false, false, &b);
        if (st != GSVM_OK) {
            gsvm_buf_free(&b);
            return st;
        }
    } else {
        return fail_at(A, t->col, "expected a name");
    }
    if (b.len > 0x7FFF) {
        gsvm_buf_free(&b);
        return fail_at(A, t->col, "name longer than 32767 bytes");
    }
    gsvm_buf_cstr(&b);
    if (b.oom) {
        gsvm_buf_free(&b);
        return nomem(A);
    }
    size_t len;
    out->str = (char *)gsvm_buf_take(&b, &len);
    out->len = (uint32_t)len;
    if (!out->str) {
        out->str = calloc(1, 1);
        if (!out->str)
            return nomem(A);
    }
    return GSVM_OK;
}

static gsvm_status parse_type(asmb *A, const token *t, uint8_t *out)
{
    static const char *const names[] = {"bool", "int", "float", "string", "object", "cvector"};
    static const uint8_t lens[] = {4, 3, 5, 6, 6, 7};
    for (unsigned c = 0; c < 6; c++)
        if (t->n == lens[c] && t->s[0] == names[c][0] && memcmp(t->s, names[c], t->n) == 0) {
            *out = (uint8_t)(c + 1);
            return GSVM_OK;
        }
    int64_t v = 0;
    if (parse_int(t, 0, 255, &v)) {
        *out = (uint8_t)v;
        return GSVM_OK;
    }
    return fail_at(A, t->col, "expected a type (bool, int, float, string, object, cvector or 0-255)");
}

/* "(type, type, ...)" starting at *i; the types are appended to `out`. */
static gsvm_status parse_types(asmb *A, const line_toks *L, int *i, gsvm_buf *out)
{
    const token *t = &L->t[*i];
    if (!tok_is(t, "("))
        return fail_at(A, t->col, "expected '(' and a list of types");
    (*i)++;
    if (tok_is(&L->t[*i], ")")) {
        (*i)++;
        return GSVM_OK;
    }
    for (;;) {
        uint8_t ty = 0;
        gsvm_status st = parse_type(A, &L->t[*i], &ty);
        if (st != GSVM_OK)
            return st;
        gsvm_buf_u8(out, ty);
        (*i)++;
        if (tok_is(&L->t[*i], ")")) {
            (*i)++;
            return out->oom ? nomem(A) : GSVM_OK;
        }
        if (!tok_is(&L->t[*i], ","))
            return fail_at(A, L->t[*i].col, "expected ',' or ')' in a type list");
        (*i)++;
    }
}

/* The type-list scratch buffer, emptied (its memory is kept). */
static gsvm_buf *types_scratch(asmb *A)
{
    A->types.len = 0;
    return &A->types;
}

static gsvm_status types_copy(asmb *A, gsvm_buf *b, uint8_t **out, uint32_t *n)
{
    if (b->oom)
        return nomem(A);
    *n = (uint32_t)b->len;
    *out = part_alloc(A, b->len);
    if (!*out)
        return nomem(A);
    if (b->len)
        memcpy(*out, b->data, b->len);
    return GSVM_OK;
}

/* ---- labels -------------------------------------------------------------- */

static uint32_t hash_name(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h;
}

/* Is label l named by the n bytes at s?  (The last bytes differ first in
 * the lister's labels, L0012 and L0013: one compare before memcmp.) */
static inline bool label_is(const label *l, const char *s, size_t n)
{
    return l->len == n && (n == 0 || l->name[n - 1] == s[n - 1]) && memcmp(l->name, s, n) == 0;
}

static int64_t label_find(asmb *A, const char *s, size_t n)
{
    if (!A->hash_cap)
        return -1;
    for (uint32_t h = hash_name(s, n) & (A->hash_cap - 1);; h = (h + 1) & (A->hash_cap - 1)) {
        uint32_t slot = A->label_hash[h];
        if (!slot)
            return -1;
        const label *l = &A->labels[slot - 1];
        if (label_is(l, s, n))
            return l->index;
    }
}

static gsvm_status label_add(asmb *A, const token *t, uint32_t index)
{
    if (!grow(A, &A->scratch, (void **)&A->labels, &A->cap_labels, (uint64_t)A->nlabels + 1, sizeof *A->labels))
        return GSVM_ERR_NOMEM;
    if ((A->nlabels + 1) * 2 > A->hash_cap) {
        uint32_t ncap = A->hash_cap ? A->hash_cap * 2 : 64;
        uint32_t *nh = region_take(&A->scratch, ncap * sizeof *nh);
        if (nh)
            memset(nh, 0, ncap * sizeof *nh);
        else if (!(nh = calloc(ncap, sizeof *nh)))
            return nomem(A);
        for (uint32_t k = 0; k < A->nlabels; k++) {
            const label *l = &A->labels[k];
            uint32_t h = hash_name(l->name, l->len) & (ncap - 1);
            while (nh[h])
                h = (h + 1) & (ncap - 1);
            nh[h] = k + 1;
        }
        free_unless_in(&A->scratch, A->label_hash);
        A->label_hash = nh;
        A->hash_cap = ncap;
    }
    /* one probe sequence finds a duplicate or the free slot */
    uint32_t h = hash_name(t->s, t->n) & (A->hash_cap - 1);
    for (; A->label_hash[h]; h = (h + 1) & (A->hash_cap - 1))
        if (label_is(&A->labels[A->label_hash[h] - 1], t->s, t->n))
            return fail_at(A, t->col, "label '%.*s' defined twice", (int)t->n, t->s);
    label *l = &A->labels[A->nlabels];
    l->name = t->s;
    l->len = t->n;
    l->index = index;
    A->label_hash[h] = ++A->nlabels;
    return GSVM_OK;
}

/* A target: an integer index now (into *where), or a label resolved at the
 * end into the field (kind, a, b) names. */
static gsvm_status parse_target(asmb *A, const token *t, int kind, uint32_t fa, uint32_t fb,
                                uint32_t *where)
{
    int64_t v = 0;
    if (t->kind == TK_NUM) {
        if (!parse_int(t, 0, UINT32_MAX, &v))
            return fail_at(A, t->col, "expected a label or an instruction index");
        *where = (uint32_t)v;
        return GSVM_OK;
    }
    if (t->kind != TK_IDENT)
        return fail_at(A, t->col, "expected a label or an instruction index");
    if (!grow(A, &A->scratch, (void **)&A->fixups, &A->cap_fixups, (uint64_t)A->nfixups + 1, sizeof *A->fixups))
        return GSVM_ERR_NOMEM;
    fixup *f = &A->fixups[A->nfixups++];
    f->name = t->s;
    f->name_len = t->n;
    f->kind = kind;
    f->a = fa;
    f->b = fb;
    f->line = A->line;
    f->col = t->col;
    *where = 0;
    return GSVM_OK;
}

/* ---- directives ---------------------------------------------------------- */

static gsvm_status end_of_line(asmb *A, const line_toks *L, int i)
{
    if (L->t[i].kind != TK_END)
        return fail_at(A, L->t[i].col, "unexpected '%.*s'", (int)L->t[i].n, L->t[i].s);
    return GSVM_OK;
}

static gsvm_status dir_global(asmb *A, const line_toks *L)
{
    gsvm_patho_program *p = A->p;
    if (!grow(A, &A->prog, (void **)&p->globals, &A->cap_globals, (uint64_t)p->nglobals + 1, sizeof *p->globals))
        return GSVM_ERR_NOMEM;
    gsvm_patho_global *g = &p->globals[p->nglobals];
    memset(g, 0, sizeof *g);
    int i = 1;
    gsvm_status st = parse_type(A, &L->t[i++], &g->type);
    if (st != GSVM_OK)
        return st;
    p->nglobals++; /* counted now so the name is freed on error */
    if (L->t[i].kind == TK_STR) {
        g->has_name = 1;
        if ((st = parse_name(A, &L->t[i++], &g->name)) != GSVM_OK)
            return st;
        for (;;) {
            if (tok_is(&L->t[i], "long")) {
                g->name.long_prefix = 1;
                i++;
            } else if (tok_is(&L->t[i], "flag") && tok_is(&L->t[i + 1], "=")) {
                int64_t v;
                if ((st = want_int(A, &L->t[i + 2], 1, 255, &v, "a name flag")) != GSVM_OK)
                    return st;
                g->has_name = (uint8_t)v;
                i += 3;
            } else {
                break;
            }
        }
    }
    return end_of_line(A, L, i);
}

static gsvm_status dir_import(asmb *A, const line_toks *L)
{
    gsvm_patho_program *p = A->p;
    if (!grow(A, &A->prog, (void **)&p->imports, &A->cap_imports, (uint64_t)p->nimports + 1, sizeof *p->imports))
        return GSVM_ERR_NOMEM;
    gsvm_patho_import *im = &p->imports[p->nimports];
    memset(im, 0, sizeof *im);
    gsvm_status st = parse_name(A, &L->t[1], &im->name);
    if (st != GSVM_OK)
        return st;
    p->nimports++;
    int64_t v = 0;
    if ((st = want_int(A, &L->t[2], 0, UINT32_MAX, &v, "an argument count")) != GSVM_OK)
        return st;
    im->argc = (uint32_t)v;
    int i = 3;
    if (tok_is(&L->t[i], "long")) {
        im->name.long_prefix = 1;
        i++;
    }
    return end_of_line(A, L, i);
}

static gsvm_status parse_event(asmb *A, const line_toks *L, gsvm_patho_event *e, int kind,
                               uint32_t fa, uint32_t fb)
{
    int64_t v = 0;
    gsvm_status st = want_int(A, &L->t[1], INT32_MIN, UINT32_MAX, &v, "an event id");
    if (st != GSVM_OK)
        return st;
    e->id = (uint32_t)v;
    if ((st = parse_target(A, &L->t[2], kind, fa, fb, &e->op)) != GSVM_OK)
        return st;
    gsvm_buf *b = types_scratch(A);
    int i = 3;
    st = parse_types(A, L, &i, b);
    if (st == GSVM_OK)
        st = types_copy(A, b, &e->arg_types, &e->nargs);
    if (st != GSVM_OK)
        return st;
    return end_of_line(A, L, i);
}

static gsvm_status dir_event(asmb *A, const line_toks *L, bool in_task)
{
    gsvm_patho_program *p = A->p;
    gsvm_patho_event *e;
    if (in_task) {
        if (!p->ntasks)
            return fail_at(A, L->t[0].col, ".on outside a .task");
        gsvm_patho_task *t = &p->tasks[p->ntasks - 1];
        if (!grow(A, &A->prog, (void **)&t->events, &A->cap_task_events[p->ntasks - 1], (uint64_t)t->nevents + 1,
                  sizeof *t->events))
            return GSVM_ERR_NOMEM;
        e = &t->events[t->nevents++];
    } else {
        if (!grow(A, &A->prog, (void **)&p->events, &A->cap_events, (uint64_t)p->nevents + 1, sizeof *p->events))
            return GSVM_ERR_NOMEM;
        e = &p->events[p->nevents++];
    }
    memset(e, 0, sizeof *e);
    if (in_task)
        return parse_event(A, L, e, FIX_TASK_EVENT, p->ntasks - 1, p->tasks[p->ntasks - 1].nevents - 1);
    return parse_event(A, L, e, FIX_EVENT, p->nevents - 1, 0);
}

static gsvm_status dir_task(asmb *A, const line_toks *L)
{
    gsvm_patho_program *p = A->p;
    int64_t v = 0;
    gsvm_status st = want_int(A, &L->t[1], 0, UINT32_MAX, &v, "a task number");
    if (st != GSVM_OK)
        return st;
    if (v != p->ntasks)
        return fail_at(A, L->t[1].col, "task %lld out of order (expected %u)", (long long)v, p->ntasks);
    if (p->ntasks >= 0x1000000)
        return fail_at(A, L->t[1].col, "too many tasks");
    uint32_t cap = A->cap_tasks;
    if (!grow(A, &A->prog, (void **)&p->tasks, &A->cap_tasks, (uint64_t)p->ntasks + 1, sizeof *p->tasks))
        return GSVM_ERR_NOMEM;
    if (A->cap_tasks != cap) {
        uint32_t *n = realloc(A->cap_task_events, A->cap_tasks * sizeof *n);
        if (!n)
            return nomem(A);
        A->cap_task_events = n;
    }
    gsvm_patho_task *t = &p->tasks[p->ntasks++];
    memset(t, 0, sizeof *t);
    A->cap_task_events[p->ntasks - 1] = 0;
    int i = 2;
    bool have_vars = false;
    while (L->t[i].kind != TK_END) {
        if (tok_is(&L->t[i], "params") && tok_is(&L->t[i + 1], "=")) {
            if ((st = want_int(A, &L->t[i + 2], 0, UINT32_MAX, &v, "a parameter count")) != GSVM_OK)
                return st;
            t->nparams = (uint32_t)v;
            i += 3;
        } else if (tok_is(&L->t[i], "vars") && tok_is(&L->t[i + 1], "=") && !have_vars) {
            i += 2;
            gsvm_buf *b = types_scratch(A);
            st = parse_types(A, L, &i, b);
            if (st == GSVM_OK)
                st = types_copy(A, b, &t->var_types, &t->nvars);
            if (st != GSVM_OK)
                return st;
            have_vars = true;
        } else {
            return fail_at(A, L->t[i].col, "expected params=N or vars=(types)");
        }
    }
    if (!have_vars) {
        t->var_types = part_alloc(A, 0);
        if (!t->var_types)
            return nomem(A);
    }
    return GSVM_OK;
}

static gsvm_status pool_item(asmb *A, const line_toks *L)
{
    const token *t = &L->t[0];
    if (tok_is(t, "W") || tok_is(t, "A")) {
        if (L->t[1].kind != TK_STR)
            return fail_at(A, L->t[1].col, "expected a quoted string");
        gsvm_status st = decode_string(A, &L->t[1], tok_is(t, "W"), true, &A->pool);
        if (st != GSVM_OK)
            return st;
        return end_of_line(A, L, 2);
    }
    if (tok_is(t, "B")) {
        int i = 1;
        for (; L->t[i].kind == TK_NUM; i++) {
            const token *h = &L->t[i];
            int hi = -1, lo = -1;
            if (h->n == 2) {
                char a = h->s[0], b = h->s[1];
                hi = a >= '0' && a <= '9' ? a - '0' : a >= 'a' && a <= 'f' ? a - 'a' + 10 : -1;
                lo = b >= '0' && b <= '9' ? b - '0' : b >= 'a' && b <= 'f' ? b - 'a' + 10 : -1;
            }
            if (hi < 0 || lo < 0)
                return fail_at(A, h->col, "expected a byte as two hex digits");
            gsvm_buf_u8(&A->pool, (uint8_t)(hi * 16 + lo));
        }
        /* bytes like "ff" or "a0" start with a letter and tokenize as identifiers */
        for (; L->t[i].kind == TK_IDENT || L->t[i].kind == TK_NUM; i++) {
            const token *h = &L->t[i];
            if (h->n != 2)
                return fail_at(A, h->col, "expected a byte as two hex digits");
            int v[2];
            for (int k = 0; k < 2; k++) {
                char c = h->s[k];
                v[k] = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                       : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
                if (v[k] < 0)
                    return fail_at(A, h->col, "expected a byte as two hex digits");
            }
            gsvm_buf_u8(&A->pool, (uint8_t)(v[0] * 16 + v[1]));
        }
        return end_of_line(A, L, i);
    }
    return fail_at(A, t->col, "expected a pool item (W \"...\", A \"...\" or B hex bytes)");
}

/* ---- instructions -------------------------------------------------------- */

/* Operand groups of an instruction line: [first, end) token ranges split at
 * top-level commas. */
typedef struct group {
    int first, end;
} group;

static gsvm_status parse_var(asmb *A, const line_toks *L, const group *g, char want,
                             uint32_t *var, unsigned *mode)
{
    const token *t = &L->t[g->first];
    /* N:M (an argument or PushE var with an unusual mode byte) */
    if (t->kind == TK_NUM && g->end - g->first == 3 && tok_is(&L->t[g->first + 1], ":")) {
        int64_t v, m;
        if (!parse_int(t, 0, UINT32_MAX, &v) || !parse_int(&L->t[g->first + 2], 0, 255, &m))
            return fail_at(A, t->col, "expected VAR:MODE");
        *var = (uint32_t)v;
        *mode = (unsigned)m;
        return GSVM_OK;
    }
    if (g->end - g->first == 1 && t->kind == TK_IDENT && t->n >= 2 && (t->s[0] == 's' || t->s[0] == 't')) {
        uint64_t v = 0;
        bool digits = t->n <= 11;
        for (uint32_t i = 1; i < t->n && digits; i++) {
            unsigned d = (unsigned)(t->s[i] - '0');
            digits = d <= 9;
            v = v * 10 + d;
        }
        {
            if (digits && v <= UINT32_MAX) {
                unsigned m = t->s[0] == 't';
                if ((want == 'v' && m) || (want == 't' && !m))
                    return fail_at(A, t->col, "expected a %s variable (%cN) here, not %.*s",
                                   want == 'v' ? "stack" : "task", want == 'v' ? 's' : 't',
                                   (int)t->n, t->s);
                *var = (uint32_t)v;
                *mode = m;
                return GSVM_OK;
            }
        }
    }
    return fail_at(A, t->col, "expected a variable (sN for Stack[-N], tN for a task variable)");
}

static gsvm_status parse_args(asmb *A, const line_toks *L, int *i, gsvm_patho_insn *in)
{
    gsvm_patho_program *p = A->p;
    if (!tok_is(&L->t[*i], "("))
        return fail_at(A, L->t[*i].col, "expected '(' and an argument list");
    (*i)++;
    in->list = p->nargs;
    in->list_len = 0;
    if (tok_is(&L->t[*i], ")")) {
        (*i)++;
        return GSVM_OK;
    }
    for (;;) {
        group g = {*i, *i + 1};
        if (L->t[*i].kind == TK_NUM && tok_is(&L->t[*i + 1], ":"))
            g.end = *i + 3;
        uint32_t var = 0;
        unsigned mode = 0;
        gsvm_status st = parse_var(A, L, &g, 'm', &var, &mode);
        if (st != GSVM_OK)
            return st;
        if (!grow(A, &A->prog, (void **)&p->args, &A->cap_args, (uint64_t)p->nargs + 1, sizeof *p->args))
            return GSVM_ERR_NOMEM;
        p->args[p->nargs].var = var;
        p->args[p->nargs].mode = (uint8_t)mode;
        p->nargs++;
        in->list_len++;
        *i = g.end;
        if (tok_is(&L->t[*i], ")")) {
            (*i)++;
            return GSVM_OK;
        }
        if (!tok_is(&L->t[*i], ","))
            return fail_at(A, L->t[*i].col, "expected ',' or ')' in an argument list");
        (*i)++;
    }
}

static gsvm_status add_strref(asmb *A, const token *t, uint32_t insn, int slot, bool wide,
                              bool has_offset)
{
    if (!grow(A, &A->scratch, (void **)&A->strs, &A->cap_strs, (uint64_t)A->nstrs + 1, sizeof *A->strs))
        return GSVM_ERR_NOMEM;
    size_t at = A->strbytes.len;
    gsvm_status st = decode_string(A, t, wide, true, &A->strbytes);
    if (st != GSVM_OK)
        return st;
    if (A->strbytes.len > UINT32_MAX / 2)
        return fail_at(A, t->col, "too much string text");
    strref *r = &A->strs[A->nstrs++];
    r->at = (uint32_t)at;
    r->nbytes = (uint32_t)(A->strbytes.len - at);
    r->insn = insn;
    r->slot = slot;
    r->wide = wide;
    r->has_offset = has_offset;
    r->line = A->line;
    r->col = t->col;
    return GSVM_OK;
}

/* The slot of a name's words in the 512-entry table.  The multiplier was
 * picked (by trying) so that the names of isa.def land in distinct slots
 * on a little-endian machine; a collision, after a change to isa.def or on
 * another byte order, only costs a second probe. */
static unsigned op_slot(uint64_t w0, uint64_t w1)
{
    uint64_t key = w0 ^ w1 * 0x9E3779B97F4A7C15ull;
    return (unsigned)((key * 0x511E8EBBCCF522F3ull) >> 55);
}

/* Fills the table (once per assembly: 90 stores, no global state). */
static void op_table_init(asmb *A)
{
    for (unsigned op = 0; op < GSVM_PATHO_OP_COUNT; op++) {
        unsigned h = op_slot(gsvm_patho_op_words[op].w[0], gsvm_patho_op_words[op].w[1]);
        while (A->op_slot[h])
            h = (h + 1) & 511;
        A->op_slot[h] = (uint8_t)(op + 1);
    }
}

/* The op whose padded name is (w0, w1), -1 when none. */
static int find_op_words(const asmb *A, uint64_t w0, uint64_t w1)
{
    for (unsigned h = op_slot(w0, w1);; h = (h + 1) & 511) {
        unsigned v = A->op_slot[h];
        if (!v)
            return -1;
        if (gsvm_patho_op_words[v - 1].w[0] == w0 && gsvm_patho_op_words[v - 1].w[1] == w1)
            return (int)(v - 1);
    }
}

/* The n <= 16 bytes at s as two words, zero-padded: how op names are keyed. */
static inline void padded_words(const char *s, size_t n, uint64_t *w0, uint64_t *w1)
{
    union {
        char c[16];
        uint64_t w[2];
    } key;
    memset(&key, 0, sizeof key);
    memcpy(key.c, s, n);
    *w0 = key.w[0];
    *w1 = key.w[1];
}

/* The op named by the n bytes at s, -1 when none. */
static int find_op(const asmb *A, const char *s, size_t n)
{
    if (n == 0 || n > 16 || memchr(s, 0, n))
        return -1;
    uint64_t w0, w1;
    padded_words(s, n, &w0, &w1);
    return find_op_words(A, w0, w1);
}

/* An instruction's code in the program's layout and its encoded size, set
 * as it is assembled, so the assembly ends with offsets only (see
 * patho_finish_offsets) unless the layout changed after code. */
static inline void set_encoding(const gsvm_patho_program *p, gsvm_patho_insn *in)
{
    const gsvm_patho_shape *sh = &gsvm_patho_shapes[in->op];
    in->raw = (uint16_t)gsvm_patho_code_of(in->op, p->layout);
    in->size = sh->fixed_size;
    if (sh->list_at >= 0)
        in->size += in->list_len * (gsvm_patho_ops[in->op].operands[sh->list_at] == 'L' ? 1u : 5u);
}

static gsvm_status instruction(asmb *A, const line_toks *L)
{
    gsvm_patho_program *p = A->p;
    const token *nt = &L->t[0];
    int op = find_op(A, nt->s, nt->n);
    if (op < 0)
        return fail_at(A, nt->col, "unknown instruction '%.*s'", (int)nt->n, nt->s);
    if ((p->layout == GSVM_PATHO_LAYOUT_ALPHA ? gsvm_patho_ops[op].alpha : gsvm_patho_ops[op].hd) < 0)
        return fail_at(A, nt->col, "%s does not exist in the %s layout", gsvm_patho_ops[op].name,
                       gsvm_patho_layout_name(p->layout));
    if (!grow(A, &A->prog, (void **)&p->insns, &A->cap_insns, (uint64_t)p->ninsns + 1, sizeof *p->insns))
        return GSVM_ERR_NOMEM;
    uint32_t idx = p->ninsns;
    gsvm_patho_insn *in = &p->insns[idx];
    memset(in, 0, sizeof *in);
    in->op = (uint16_t)op;
    const char *ops = gsvm_patho_ops[op].operands;
    const gsvm_patho_shape shape = gsvm_patho_shapes[op];

    /* split into groups: their starts and ends in two arrays, not an
     * array of {first, end}, since a start and its end are stored at
     * different times and a compiler reading both at once as one 8-byte
     * load gets no store forwarding (a stall on every instruction line) */
    enum { MAX_GROUPS = GSVM_PATHO_MAX_OPERANDS + 8 };
    int gfirst[MAX_GROUPS], gend_at[MAX_GROUPS];
    int ng = 0;
    int i = 1, depth = 0;
    if (L->t[i].kind != TK_END) {
        gfirst[0] = i;
        ng = 1;
        for (; L->t[i].kind != TK_END; i++) {
            if (L->t[i].kind != TK_PUNCT)
                continue;
            char c = L->t[i].s[0];
            if (c == '(')
                depth++;
            else if (c == ')')
                depth--;
            else if (depth == 0 && c == ',') {
                gend_at[ng - 1] = i;
                if (ng == MAX_GROUPS)
                    return fail_at(A, L->t[i].col, "too many operands");
                gfirst[ng++] = i + 1;
            }
        }
        gend_at[ng - 1] = i;
    }
    /* keywords */
    int64_t kw_pop = 0, kw_mode = -1, kw_pad = 0, kw_bits = 0;
    bool kw_keep = false;
    group pos[MAX_GROUPS];
    int npos = 0;
    for (int g = 0; g < ng; g++) {
        int first = gfirst[g], gend = gend_at[g];
        const token *t = &L->t[first];
        if (first == gend)
            return fail_at(A, t->col, "empty operand");
        if (t->kind == TK_IDENT && tok_is(&L->t[first + 1], "=")) {
            const token *v = &L->t[first + 2];
            gsvm_status st;
            if (gend != first + 3)
                return fail_at(A, v->col, "expected one value after '='");
            if (tok_is(t, "pop"))
                st = want_int(A, v, 0, 0xFFFF, &kw_pop, "a pop count");
            else if (tok_is(t, "mode"))
                st = want_int(A, v, 0, 255, &kw_mode, "a mode byte");
            else if (tok_is(t, "pad"))
                st = want_int(A, v, 0, 0xFFFFFF, &kw_pad, "3 padding bytes");
            else if (tok_is(t, "bits"))
                st = want_int(A, v, 0, 255, &kw_bits, "flag bits");
            else
                st = fail_at(A, t->col, "unknown keyword '%.*s'", (int)t->n, t->s);
            if (st != GSVM_OK)
                return st;
            continue;
        }
        if (tok_is(t, "keep") && gend == first + 1) {
            kw_keep = true;
            continue;
        }
        pos[npos].first = first;
        pos[npos].end = gend;
        npos++;
    }

    /* positional operands in table order */
    int pi = 0;
    unsigned mi = 0;
    uint32_t flag_modes = 0;
    unsigned a_mode = 0;
    for (unsigned k = 0; ops[k]; k++) {
        char c = ops[k];
        if (c == 'f' || c == 'T' || c == 'P' || c == 'Q' || c == 'G' || c == 'h')
            continue;
        if (pi >= npos)
            return fail_at(A, L->t[i].col, "%s needs more operands (%s)", gsvm_patho_ops[op].name,
                           gsvm_patho_ops[op].operands);
        const group *g = &pos[pi++];
        const token *t = &L->t[g->first];
        int64_t v = 0;
        gsvm_status st = GSVM_OK;
        bool single = g->end == g->first + 1;
        switch (c) {
        case 'v': case 't': case 'm': case 'a': {
            uint32_t var = 0;
            unsigned mode = 0;
            if ((st = parse_var(A, L, g, c, &var, &mode)) != GSVM_OK)
                return st;
            if (c == 'm' && mode > 1)
                return fail_at(A, t->col, "a flag-addressed variable is sN or tN");
            if (c == 'm' && mode)
                flag_modes |= gsvm_patho_mode_bit(mi);
            if (c == 'm')
                mi++;
            if (c == 'a')
                a_mode = mode;
            in->a[k] = var;
            continue;
        }
        case 'b':
            st = single ? want_int(A, t, 0, 255, &v, "a byte") : fail_at(A, t->col, "expected a byte");
            break;
        case 'i': case 'E':
            st = single ? want_int(A, t, INT32_MIN, UINT32_MAX, &v, "a 32-bit integer")
                        : fail_at(A, t->col, "expected an integer");
            break;
        case 'x':
            st = single ? want_int(A, t, -128, 255, &v, "an 8-bit integer")
                        : fail_at(A, t->col, "expected an integer");
            break;
        case 'p': case 'k':
            st = single ? want_int(A, t, 0, UINT32_MAX, &v, "an unsigned integer")
                        : fail_at(A, t->col, "expected an integer");
            break;
        case 'g':
            if (single && t->kind == TK_IDENT && t->s[0] == 'g' && t->n > 1) {
                token tmp = *t;
                tmp.s++;
                tmp.n--;
                tmp.kind = TK_NUM;
                if (tmp.s[0] < '0' || tmp.s[0] > '9' || !parse_int(&tmp, 0, UINT32_MAX, &v))
                    st = fail_at(A, t->col, "expected a global (gN)");
            } else {
                st = single ? want_int(A, t, 0, UINT32_MAX, &v, "a global index (gN)")
                            : fail_at(A, t->col, "expected a global (gN)");
            }
            break;
        case 'r':
            if (single && t->kind == TK_NUM) {
                if (t->n >= 64)
                    return fail_at(A, t->col, "number too long");
                bool ok;
                float f = patho_parse_float(t->s, t->n, &ok);
                if (!ok)
                    return fail_at(A, t->col, "expected a float");
                v = gsvm_patho_f32_bits(f);
            } else if (g->end == g->first + 3 && tok_is(t, "f32") && tok_is(&L->t[g->first + 1], ":")) {
                st = want_int(A, &L->t[g->first + 2], 0, UINT32_MAX, &v, "f32 bits");
            } else {
                st = fail_at(A, t->col, "expected a float");
            }
            break;
        case 's': case 'n': {
            bool wide = c == 's';
            if (tok_is(t, "@")) {
                if (g->end < g->first + 2 ||
                    (st = want_int(A, &L->t[g->first + 1], 0, UINT32_MAX, &v, "a pool offset")) != GSVM_OK)
                    return st != GSVM_OK ? st : fail_at(A, t->col, "expected @OFFSET");
                if (g->end == g->first + 3 && L->t[g->first + 2].kind == TK_STR) {
                    if ((st = add_strref(A, &L->t[g->first + 2], idx, (int)k, wide, true)) != GSVM_OK)
                        return st;
                } else if (g->end != g->first + 2) {
                    return fail_at(A, L->t[g->first + 2].col, "expected a string after @OFFSET");
                }
            } else if (single && t->kind == TK_STR) {
                if ((st = add_strref(A, t, idx, (int)k, wide, false)) != GSVM_OK)
                    return st;
            } else {
                return fail_at(A, t->col, "expected a pool string (@OFFSET \"text\" or \"text\")");
            }
            break;
        }
        case 'j':
            if (!single)
                return fail_at(A, t->col, "expected a label or an instruction index");
            if ((st = parse_target(A, t, FIX_INSN, idx, k, &in->a[k])) != GSVM_OK)
                return st;
            continue;
        case 'F': {
            /* NAME[#INDEX](args); a bare name is compared in place */
            gsvm_patho_name nm = {0};
            if (t->kind == TK_IDENT) {
                nm.str = (char *)t->s;
                nm.len = t->n;
            } else if ((st = parse_name(A, t, &nm)) != GSVM_OK) {
                return st;
            }
            bool owned = t->kind != TK_IDENT;
            int j = g->first + 1;
            int64_t forced = -1;
            if (tok_is(&L->t[j], "#")) {
                st = want_int(A, &L->t[j + 1], 0, UINT32_MAX, &forced, "an import index");
                j += 2;
            }
            if (st == GSVM_OK)
                st = parse_args(A, L, &j, in);
            if (st == GSVM_OK && j != g->end)
                st = fail_at(A, L->t[j].col, "unexpected '%.*s'", (int)L->t[j].n, L->t[j].s);
            if (st == GSVM_OK) {
                v = forced >= 0 ? forced
                                : patho_import_find(&A->imports, p, nm.str, nm.len, in->list_len);
                if (v == -2)
                    st = nomem(A);
                else if (v < 0 || v >= p->nimports)
                    st = fail_at(A, t->col, "no import %.*s with %u arguments (add .import %.*s %u)",
                                 (int)nm.len, nm.str, in->list_len, (int)nm.len, nm.str, in->list_len);
                else if (p->imports[v].argc != in->list_len)
                    st = fail_at(A, t->col, "import #%lld takes %u arguments, not %u",
                                 (long long)v, p->imports[v].argc, in->list_len);
                else if (p->imports[v].name.len != nm.len ||
                         memcmp(p->imports[v].name.str, nm.str, nm.len) != 0)
                    st = fail_at(A, t->col, "import #%lld is not named %.*s", (long long)v,
                                 (int)nm.len, nm.str);
            }
            if (owned)
                free(nm.str);
            if (st != GSVM_OK)
                return st;
            break;
        }
        case 'R': {
            int j = g->first;
            if ((st = parse_args(A, L, &j, in)) != GSVM_OK)
                return st;
            if (j != g->end)
                return fail_at(A, L->t[j].col, "unexpected '%.*s'", (int)L->t[j].n, L->t[j].s);
            v = in->list_len;
            break;
        }
        case 'L': {
            int j = g->first;
            gsvm_buf *b = types_scratch(A);
            st = parse_types(A, L, &j, b);
            if (st == GSVM_OK && j != g->end)
                st = fail_at(A, L->t[j].col, "unexpected '%.*s'", (int)L->t[j].n, L->t[j].s);
            if (st == GSVM_OK &&
                grow(A, &A->prog, (void **)&p->vtypes, &A->cap_vtypes, (uint64_t)p->nvtypes + b->len + 1, 1)) {
                if (b->len)
                    memcpy(p->vtypes + p->nvtypes, b->data, b->len);
                in->list = p->nvtypes;
                in->list_len = (uint32_t)b->len;
                p->nvtypes += (uint32_t)b->len;
                v = (int64_t)b->len;
            } else if (st == GSVM_OK) {
                st = GSVM_ERR_NOMEM;
            }
            if (st != GSVM_OK)
                return st;
            break;
        }
        default:
            return fail_at(A, t->col, "internal: operand letter %c", c);
        }
        if (st != GSVM_OK)
            return st;
        in->a[k] = (uint32_t)v;
    }
    if (pi < npos)
        return fail_at(A, L->t[pos[pi].first].col, "too many operands for %s",
                       gsvm_patho_ops[op].name);
    /* the keyword-built bytes */
    for (unsigned k = 0; ops[k]; k++) {
        switch (ops[k]) {
        case 'f':
            if (kw_pop > shape.popmask)
                return fail_at(A, nt->col, "pop=%lld does not fit in the flag byte (max %u)",
                               (long long)kw_pop, shape.popmask);
            in->a[k] = flag_modes | (uint32_t)kw_pop;
            break;
        case 'h': in->a[k] = (uint32_t)kw_pop; break;
        case 'T': in->a[k] = kw_mode >= 0 ? (uint32_t)kw_mode : a_mode; break;
        case 'P': in->a[k] = (uint32_t)kw_pad; break;
        case 'Q':
            if (a_mode > 1)
                return fail_at(A, nt->col, "PopE variable is sN or tN");
            if (kw_bits & 3)
                return fail_at(A, nt->col, "bits= holds the bits other than 0x01 and 0x02");
            in->a[k] = a_mode | (kw_keep ? 2u : 0u) | (uint32_t)kw_bits;
            break;
        case 'G':
            if (kw_bits & 1)
                return fail_at(A, nt->col, "bits= holds the bits other than 0x01");
            in->a[k] = (kw_keep ? 1u : 0u) | (uint32_t)kw_bits;
            break;
        }
    }
    set_encoding(p, in);
    p->ninsns++;
    return GSVM_OK;
}

/* ---- the fast lane for instruction lines -------------------------------- */

/* The fast lane runs once per line: its parts are inlined into one loop
 * (code_lines) kept out of the big assembler function. */
#if defined(__GNUC__)
#define FAST_INLINE inline __attribute__((always_inline))
#define FAST_LOOP __attribute__((noinline))
#else
#define FAST_INLINE inline
#define FAST_LOOP
#endif

/* Nearly every line of a listing is an instruction written exactly as the
 * lister prints it ("Add s2, t1, pop=1", "Func Trace(s1)").  fast_insn
 * parses such a line straight from its characters, without the token
 * array and the operand groups the general path builds.  It accepts only
 * that canonical form (single spaces, ", " between operands, decimal
 * numbers, "pop=N" where the lister puts it); on anything else — another
 * spelling, an error, an op with mode/pad/keep/bits bytes — it undoes what
 * it appended and returns false, and the line goes through tokenize() and
 * instruction(), which accept every spelling and report errors.  So the
 * result is the same either way; the fast lane only saves time. */

/* The fast lane reads from the line's first character on, bounded by the
 * end of the listing rather than of the line (finding the line end first
 * would be a scan of its own), so everything it scans stops at '\n'. */
typedef struct fast_state {
    const char *q, *end, *line; /* end: of the listing */
} fast_state;

/* What may follow a value: the next operand, the end of an argument list,
 * a comment, blanks or the line end (what the caller expects next is its
 * business). */
static const uint8_t delim_char[256] = {
    [','] = 1, [' '] = 1, [')'] = 1, [';'] = 1, ['\t'] = 1, ['\r'] = 1, ['\n'] = 1,
};

static inline bool fast_delim(const fast_state *F)
{
    return F->q >= F->end || delim_char[(uint8_t)*F->q];
}

/* Unsigned decimal, 1 to 10 digits, followed by a delimiter. */
static inline bool fast_uint(fast_state *F, uint64_t *out)
{
    const char *q = F->q, *start = q, *e = F->end;
    unsigned d;
    if (q >= e || (d = (unsigned)(*q - '0')) > 9)
        return false;
    if (e - q >= 2 && (unsigned)(q[1] - '0') > 9) {
        /* one digit, as most numbers in a listing are (s1, pop=0) */
        F->q = q + 1;
        *out = d;
        return delim_char[(uint8_t)q[1]];
    }
    uint64_t v = d;
    for (q++; q < e && (d = (unsigned)(*q - '0')) <= 9 && q - start < 11; q++)
        v = v * 10 + d;
    if (q - start > 10)
        return false;
    F->q = q;
    *out = v;
    return fast_delim(F);
}

/* Optionally signed decimal within [lo, hi]. */
static inline bool fast_int(fast_state *F, int64_t lo, int64_t hi, int64_t *out)
{
    bool neg = F->q < F->end && *F->q == '-';
    if (neg)
        F->q++;
    uint64_t v;
    if (!fast_uint(F, &v))
        return false;
    int64_t r = neg ? -(int64_t)v : (int64_t)v;
    if (r < lo || r > hi)
        return false;
    *out = r;
    return true;
}

/* sN or tN, as parse_var reads them for letter `want` (v, t or m). */
static inline bool fast_var(fast_state *F, char want, uint32_t *var, unsigned *mode)
{
    const char *q = F->q;
    if (F->end - q >= 3) {
        /* s1, t0: one digit, as nearly every variable in a listing */
        unsigned m = (unsigned)(uint8_t)q[0] - 's', d = (unsigned)(q[1] - '0');
        if (m <= 1 && d <= 9 && (unsigned)(q[2] - '0') > 9 && delim_char[(uint8_t)q[2]]) {
            if ((want == 'v' && m) || (want == 't' && !m))
                return false;
            F->q = q + 2;
            *var = d;
            *mode = m;
            return true;
        }
    }
    if (F->q >= F->end || (*F->q != 's' && *F->q != 't'))
        return false;
    unsigned m = *F->q == 't';
    if ((want == 'v' && m) || (want == 't' && !m))
        return false;
    F->q++;
    uint64_t v;
    if (!fast_uint(F, &v) || v > UINT32_MAX)
        return false;
    *var = (uint32_t)v;
    *mode = m;
    return true;
}

/* The character c next (consumed when it is). */
static inline bool fast_char(fast_state *F, char c)
{
    if (F->q >= F->end || *F->q != c)
        return false;
    F->q++;
    return true;
}

/* ", " next (consumed when it is): the two bytes compared as one word. */
static inline bool fast_comma(fast_state *F)
{
    static const char comma_space[2] = {',', ' '};
    uint16_t two, want;
    if (F->end - F->q < 2)
        return false;
    memcpy(&two, F->q, 2);
    memcpy(&want, comma_space, 2);
    if (two != want)
        return false;
    F->q += 2;
    return true;
}

/* The literal s (a few bytes: compared here, not through a call). */
static bool fast_lit(fast_state *F, const char *s, size_t n)
{
    if ((size_t)(F->end - F->q) < n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (F->q[i] != s[i])
            return false;
    F->q += n;
    return true;
}

/* "(sN, tN, ...)" at q into p->args, as parse_args.  Returns the end of
 * the list, NULL when there is none in the lister's form.  (Positions go
 * in and out by value, so the caller's state stays in registers.) */
static const char *fast_args(asmb *A, const char *q, const char *end, gsvm_patho_insn *in)
{
    gsvm_patho_program *p = A->p;
    fast_state F = {q, end, NULL};
    if (!fast_char(&F, '('))
        return NULL;
    in->list = p->nargs;
    in->list_len = 0;
    if (fast_char(&F, ')'))
        return F.q;
    for (;;) {
        uint32_t var;
        unsigned mode;
        if (!fast_var(&F, 'm', &var, &mode) ||
            (p->nargs >= A->cap_args &&
             !grow(A, &A->prog, (void **)&p->args, &A->cap_args, (uint64_t)p->nargs + 1, sizeof *p->args)))
            return NULL;
        p->args[p->nargs].var = var;
        p->args[p->nargs].mode = (uint8_t)mode;
        p->nargs++;
        in->list_len++;
        if (fast_char(&F, ')'))
            return F.q;
        if (!fast_comma(&F))
            return NULL;
    }
}

/* The instruction name at s: the bytes before the first one <= 0x20 (a
 * blank, the line end, NUL), as two words zero-padded to 16 for
 * find_op_words.  Returns its length; 0 when it is longer than 16 bytes
 * (no op name is) or the text ends within 16 bytes (the general path
 * takes those lines).  Op names are identifiers, so when find_op_words
 * knows the result it is the identifier tokenize() would take. */
static unsigned name_words(const char *s, const char *tend, uint64_t *w0, uint64_t *w1)
{
    if (tend - s < 16)
        return 0;
#if defined(__GNUC__) && defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* the lowest byte below 0x21, 8 at a time (the lowest flag is exact) */
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t a, b;
    memcpy(&a, s, 8);
    memcpy(&b, s + 8, 8);
    uint64_t ha = (a - 0x21 * ones) & ~a & highs;
    if (ha) {
        unsigned n = (unsigned)__builtin_ctzll(ha) / 8;
        *w0 = a & ((UINT64_C(1) << (8 * n)) - 1);
        *w1 = 0;
        return n;
    }
    uint64_t hb = (b - 0x21 * ones) & ~b & highs;
    if (!hb)
        return 0;
    unsigned n = (unsigned)__builtin_ctzll(hb) / 8;
    *w0 = a;
    *w1 = b & ((UINT64_C(1) << (8 * n)) - 1);
    return 8 + n;
#else
    unsigned n = 0;
    while (n < 16 && (uint8_t)s[n] > 0x20)
        n++;
    if (n == 16)
        return 0;
    padded_words(s, n, w0, w1);
    return n;
#endif
}

/* The closing quote of the string token that starts at the quote t, as
 * tokenize() finds it on this line (a backslash escapes the next
 * character); NULL when the line or the text ends first. */
static inline const char *string_token_end(const char *t, const char *end)
{
    const char *e = t + 1;
    while (e < end && *e != '"' && *e != '\n') {
        if (*e == '\\') {
            if (end - e < 2 || e[1] == '\n')
                return NULL;
            e++;
        }
        e++;
    }
    return e < end && *e == '"' ? e : NULL;
}

/* Past spaces (listings indent lines and pad them to a comment column):
 * 16 bytes a step with SSE2, else 8 (the lowest byte that is not a space
 * ends the run). */
static inline const char *skip_spaces(const char *q, const char *end)
{
#if defined(__SSE2__) && defined(__GNUC__)
    const __m128i spaces = _mm_set1_epi8(' ');
    while (end - q >= 16) {
        __m128i sixteen = _mm_loadu_si128((const __m128i *)(const void *)q);
        unsigned other = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(sixteen, spaces)) ^ 0xFFFFu;
        if (other)
            return q + __builtin_ctz(other);
        q += 16;
    }
#endif
    while (end - q >= 8) {
        uint64_t eight;
        memcpy(&eight, q, 8);
        uint64_t diff = eight ^ 0x2020202020202020ull;
        if (diff)
            return q + low_zero_bytes(diff);
        q += 8;
    }
    while (q < end && *q == ' ')
        q++;
    return q;
}

/* The start of the line after the one s is in (end when it is the last):
 * the comment after an instruction is short, so 16 bytes a step with SSE2
 * beats a call to memchr. */
static inline const char *next_line(const char *s, const char *end)
{
#if defined(__SSE2__) && defined(__GNUC__)
    const __m128i newline = _mm_set1_epi8('\n');
    while (end - s >= 16) {
        __m128i sixteen = _mm_loadu_si128((const __m128i *)(const void *)s);
        unsigned hit = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(sixteen, newline));
        if (hit)
            return s + __builtin_ctz(hit) + 1;
        s += 16;
    }
#endif
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    return nl ? nl + 1 : end;
}

/* Only blanks from s to the line end or a comment. */
static bool is_blank_to_comment(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
        s++;
    return s == end || *s == ';';
}

/* The import named by the nlen bytes at name taking argc arguments (the
 * first such, as patho_import_find answers), -1 when there is none.  A
 * script calls the same few natives over and over: a small cache keyed by
 * the first 8 bytes at the name (with what follows a short one), its
 * length and argc answers most lines without hashing the name (an entry
 * only ever holds an index's answer, and a hit is checked against the
 * import itself). */
static int64_t fast_import_find(asmb *A, const char *name, uint32_t nlen, uint32_t argc)
{
    const gsvm_patho_program *p = A->p;
    unsigned slot = 64;
    if (A->text_end - name >= 8) {
        uint64_t w;
        memcpy(&w, name, 8);
        slot = (unsigned)(((w ^ (uint64_t)nlen << 40 ^ (uint64_t)argc << 52) * 0x9E3779B97F4A7C15ull) >> 58);
        uint32_t c = A->import_cache[slot];
        if (c && c <= p->nimports) {
            const gsvm_patho_import *im = &p->imports[c - 1];
            if (im->argc == argc && im->name.len == nlen && memcmp(im->name.str, name, nlen) == 0)
                return c - 1;
        }
    }
    int64_t v = patho_import_find(&A->imports, p, name, nlen, argc);
    if (v < 0)
        return -1;
    if (slot < 64)
        A->import_cache[slot] = (uint32_t)v + 1;
    return v;
}

/* The instruction line starting at `line` whose name is at s.  Returns
 * where the next line starts, or NULL (nothing appended) when the line is
 * not in the lister's form. */
static FAST_INLINE const char *fast_insn(asmb *A, const char *line, const char *s)
{
    gsvm_patho_program *p = A->p;
    const char *end = A->text_end;
    uint64_t w0, w1;
    unsigned n = name_words(s, end, &w0, &w1);
    if (n == 0 || s[n - 1] == ':') /* too long, or a label: the caller's */
        return NULL;
    int op = find_op_words(A, w0, w1);
    if (op < 0 || gsvm_patho_code_of((unsigned)op, p->layout) < 0)
        return NULL;
    const gsvm_patho_shape *shape = &gsvm_patho_shapes[op];
    if (shape->extras) /* mode, pad, keep and bits bytes: the general path */
        return NULL;
    if (p->ninsns >= A->cap_insns &&
        !grow(A, &A->prog, (void **)&p->insns, &A->cap_insns, (uint64_t)p->ninsns + 1, sizeof *p->insns))
        return NULL;
    const char *ops = gsvm_patho_ops[op].operands;
    fast_state F = {s + n, end, line};
    uint32_t idx = p->ninsns;
    gsvm_patho_insn *in = &p->insns[idx];
    memset(in, 0, sizeof *in);
    in->op = (uint16_t)op;
    /* what may be appended, to undo on the way out */
    uint32_t nargs0 = p->nargs, nvtypes0 = p->nvtypes, nstrs0 = A->nstrs, nfixups0 = A->nfixups;
    size_t strbytes0 = A->strbytes.len;
    unsigned mi = 0;
    uint32_t flag_modes = 0;
    for (unsigned k = 0; ops[k]; k++) {
        char c = ops[k];
        if (!(k ? fast_comma(&F) : fast_char(&F, ' ')))
            goto undo;
        int64_t v = 0;
        uint64_t u = 0;
        switch (c) {
        case 'v': case 't': case 'm': {
            uint32_t var;
            unsigned mode;
            if (!fast_var(&F, c, &var, &mode))
                goto undo;
            if (c == 'm' && mode)
                flag_modes |= gsvm_patho_mode_bit(mi);
            mi += c == 'm';
            v = var;
            break;
        }
        case 'f': case 'h':
            if (!fast_lit(&F, "pop=", 4) || !fast_uint(&F, &u) || u > 0xFFFF ||
                (c == 'f' && u > shape->popmask))
                goto undo;
            v = c == 'f' ? (int64_t)(flag_modes | (uint32_t)u) : (int64_t)u;
            break;
        case 'b':
            if (!fast_int(&F, 0, 255, &v))
                goto undo;
            break;
        case 'i': case 'E':
            if (!fast_int(&F, INT32_MIN, UINT32_MAX, &v))
                goto undo;
            break;
        case 'x':
            if (!fast_int(&F, -128, 255, &v))
                goto undo;
            break;
        case 'p': case 'k':
            if (!fast_int(&F, 0, UINT32_MAX, &v))
                goto undo;
            break;
        case 'g':
            if (!fast_char(&F, 'g') || !fast_uint(&F, &u) || u > UINT32_MAX)
                goto undo;
            v = (int64_t)u;
            break;
        case 'j': {
            const char *t = F.q;
            if (t < end && (unsigned)(*t - '0') <= 9) {
                if (!fast_uint(&F, &u) || u > UINT32_MAX)
                    goto undo;
                v = (int64_t)u;
                break;
            }
            while (F.q < end && is_ident(*F.q))
                F.q++;
            if (F.q == t || !fast_delim(&F) ||
                (A->nfixups >= A->cap_fixups &&
                 !grow(A, &A->scratch, (void **)&A->fixups, &A->cap_fixups, (uint64_t)A->nfixups + 1, sizeof *A->fixups)))
                goto undo;
            fixup *x = &A->fixups[A->nfixups++];
            x->kind = FIX_INSN;
            x->a = idx;
            x->b = k;
            x->name = t;
            x->name_len = (uint32_t)(F.q - t);
            x->line = A->line;
            x->col = (long)(t - line) + 1;
            break; /* 0 until resolved */
        }
        case 'r': {
            /* the characters the tokenizer takes for a number */
            const char *t = F.q;
            if (!(t < end && ((unsigned)(*t - '0') <= 9 ||
                              ((*t == '-' || *t == '+') && t + 1 < end &&
                               ((unsigned)(t[1] - '0') <= 9 || t[1] == '.')))))
                goto undo;
            const char *e = t + 1;
            while (e < end && (is_ident(*e) || ((*e == '+' || *e == '-') && (e[-1] == 'e' || e[-1] == 'E'))))
                e++;
            if (e - t >= 64 || (t[0] == '0' && e - t > 1 && (t[1] == 'x' || t[1] == 'X')))
                goto undo;
            bool ok;
            float f = patho_parse_float(t, (size_t)(e - t), &ok);
            F.q = e;
            if (!ok || !fast_delim(&F))
                goto undo;
            v = gsvm_patho_f32_bits(f);
            break;
        }
        case 's': case 'n': {
            if (!fast_lit(&F, "@0x", 3))
                goto undo;
            int digits = 0;
            while (F.q < end && digits < 9) {
                unsigned d = (unsigned)(*F.q - '0');
                if (d > 9) {
                    unsigned l = (unsigned)(*F.q | 0x20) - 'a';
                    if (l >= 6)
                        break;
                    d = l + 10;
                }
                u = u * 16 + d;
                digits++;
                F.q++;
            }
            if (digits == 0 || digits > 8 || !fast_delim(&F))
                goto undo;
            v = (int64_t)u;
            if (end - F.q >= 2 && F.q[0] == ' ' && F.q[1] == '"') {
                /* the text */
                const char *t = F.q + 1, *e = string_token_end(t, end);
                if (!e)
                    goto undo;
                token tok = {t, (uint32_t)(e + 1 - t), (uint32_t)(t - line + 1), TK_STR};
                F.q = e + 1;
                if (!fast_delim(&F) || add_strref(A, &tok, idx, (int)k, c == 's', true) != GSVM_OK)
                    goto undo;
            }
            break;
        }
        case 'F': {
            const char *name = F.q;
            if (!(name < end && (char_class[(uint8_t)*name] & CC_IDSTART)))
                goto undo;
            while (F.q < end && is_ident(*F.q))
                F.q++;
            uint32_t nlen = (uint32_t)(F.q - name);
            if (!(F.q = fast_args(A, F.q, end, in)) || !fast_delim(&F))
                goto undo;
            if ((v = fast_import_find(A, name, nlen, in->list_len)) < 0)
                goto undo;
            break;
        }
        case 'R':
            if (!(F.q = fast_args(A, F.q, end, in)) || !fast_delim(&F))
                goto undo;
            v = in->list_len;
            break;
        case 'L': {
            static const char *const names[] = {"bool", "int", "float", "string", "object", "cvector"};
            static const uint8_t lens[] = {4, 3, 5, 6, 6, 7};
            if (!fast_char(&F, '('))
                goto undo;
            in->list = p->nvtypes;
            in->list_len = 0;
            if (!fast_char(&F, ')')) {
                for (;;) {
                    const char *t = F.q;
                    while (F.q < end && is_ident(*F.q))
                        F.q++;
                    size_t tn = (size_t)(F.q - t);
                    unsigned ty = 0;
                    for (unsigned tc = 0; tc < 6 && !ty; tc++)
                        if (tn == lens[tc] && memcmp(t, names[tc], tn) == 0)
                            ty = tc + 1;
                    if (!ty || !grow(A, &A->prog, (void **)&p->vtypes, &A->cap_vtypes, (uint64_t)p->nvtypes + 2, 1))
                        goto undo;
                    p->vtypes[p->nvtypes++] = (uint8_t)ty;
                    in->list_len++;
                    if (fast_char(&F, ')'))
                        break;
                    if (!fast_comma(&F))
                        goto undo;
                }
            }
            if (!fast_delim(&F))
                goto undo;
            v = in->list_len;
            break;
        }
        default:
            goto undo;
        }
        in->a[k] = (uint32_t)v;
    }
    /* nothing but blanks before the comment or the line end */
    const char *q = skip_spaces(F.q, end), *next;
    if (q < end && *q == ';') { /* the lister's comment column */
        set_encoding(p, in);
        p->ninsns++;
        return next_line(q, end);
    }
    while (q < end && (*q == ' ' || *q == '\t' || *q == '\r'))
        q++;
    if (q >= end)
        next = end;
    else if (*q == '\n')
        next = q + 1;
    else if (*q == ';')
        next = next_line(q, end);
    else
        goto undo;
    set_encoding(p, in);
    p->ninsns++;
    return next;
undo:
    p->nargs = nargs0;
    p->nvtypes = nvtypes0;
    A->nstrs = nstrs0;
    A->nfixups = nfixups0;
    A->strbytes.len = strbytes0;
    return NULL;
}

/* Lines of the code section in the lister's form, taken one after another
 * in one loop (no call per line): instructions through the fast lane,
 * lone labels, blank and comment-only lines.  Returns where the first line
 * it leaves to the general path starts (A->line counts the lines before
 * it), or the end; *st is set when a label is defined twice. */
static FAST_LOOP const char *code_lines(asmb *A, const char *s, gsvm_status *st)
{
    const char *end = A->text_end;
    while (s < end) {
        /* the lister's 4-space indent in one compare, else a scan */
        const char *first = end - s > 4 && memcmp(s, "    ", 4) == 0 && s[4] != ' ' ? s + 4 : skip_spaces(s, end);
        A->line++;
        if (first == end)
            return end;
        if (*first == '\n') { /* blank */
            s = first + 1;
            continue;
        }
        if (*first == ';') { /* only a comment */
            s = next_line(first, end);
            continue;
        }
        if (*first != '.' && (char_class[(uint8_t)*first] & CC_IDSTART)) {
            const char *next = fast_insn(A, s, first);
            if (next) {
                s = next;
                continue;
            }
            /* "L0014:" alone on its line, as the lister writes labels */
            const char *q = first + 1;
            while (q < end && is_ident(*q))
                q++;
            if (q < end && *q == ':') {
                /* the lister ends the line right there */
                const char *nl = end - q >= 2 && q[1] == '\n' ? q + 1 : memchr(q, '\n', (size_t)(end - q));
                const char *le = nl ? nl : end;
                if (is_blank_to_comment(q + 1, le)) {
                    token t = {first, (uint32_t)(q - first), (uint32_t)(first - s + 1), TK_IDENT};
                    if ((*st = label_add(A, &t, A->p->ninsns)) != GSVM_OK)
                        return s;
                    s = nl ? nl + 1 : end;
                    continue;
                }
            }
        }
        A->line--; /* the general path counts it */
        return s;
    }
    return s;
}

/* The end of a directive or pool line once its last item was read at q:
 * blanks, then a comment or the line end.  Where the next line starts, or
 * NULL when something else follows. */
static const char *fast_line_end(const char *q, const char *end)
{
    q = skip_spaces(q, end);
    while (q < end && (*q == ' ' || *q == '\t' || *q == '\r'))
        q++;
    if (q >= end)
        return end;
    if (*q == '\n')
        return q + 1;
    return *q == ';' ? next_line(q, end) : NULL;
}

/* ".import NAME ARGC" (and " long"), as the lister writes it: a bare
 * name, a decimal count.  Adds the import as dir_import does and returns
 * where the next line starts; NULL (nothing changed) for any other form,
 * which the general path then reads. */
static const char *fast_import(asmb *A, const char *line)
{
    gsvm_patho_program *p = A->p;
    const char *end = A->text_end, *q = line + 8;
    if (end - line < 9 || memcmp(line, ".import ", 8) != 0 || !(char_class[(uint8_t)*q] & CC_IDSTART))
        return NULL;
    const char *name = q;
    while (q < end && is_ident(*q))
        q++;
    size_t nlen = (size_t)(q - name);
    if (nlen > 0x7FFF || q >= end || *q != ' ')
        return NULL;
    fast_state F = {q + 1, end, line};
    uint64_t argc;
    if (!fast_uint(&F, &argc) || argc > UINT32_MAX)
        return NULL;
    q = F.q;
    bool long_prefix = end - q >= 5 && memcmp(q, " long", 5) == 0 && (end - q == 5 || !is_ident(q[5]));
    const char *next = fast_line_end(long_prefix ? q + 5 : q, end);
    if (!next ||
        !grow(A, &A->prog, (void **)&p->imports, &A->cap_imports, (uint64_t)p->nimports + 1, sizeof *p->imports))
        return NULL;
    gsvm_patho_import *im = &p->imports[p->nimports];
    memset(im, 0, sizeof *im);
    token t = {name, (uint32_t)nlen, (uint32_t)(name - line + 1), TK_IDENT};
    if (parse_name(A, &t, &im->name) != GSVM_OK)
        return NULL;
    p->nimports++;
    im->argc = (uint32_t)argc;
    im->name.long_prefix = long_prefix;
    A->sec = SEC_NONE;
    return next;
}

/* A pool line `W "text"` or `A "text"` as the lister writes it (after
 * blanks).  Returns where the next line starts, with *st the result of
 * decoding the text into the pool (as pool_item would: the same token,
 * the same error); NULL (nothing changed) for any other form. */
static const char *fast_pool_item(asmb *A, const char *line, gsvm_status *st)
{
    const char *end = A->text_end, *q = skip_spaces(line, end);
    if (end - q < 3 || (q[0] != 'W' && q[0] != 'A') || q[1] != ' ' || q[2] != '"')
        return NULL;
    const char *t = q + 2, *e = string_token_end(t, end);
    if (!e)
        return NULL;
    const char *next = fast_line_end(e + 1, end);
    if (!next)
        return NULL;
    token tok = {t, (uint32_t)(e + 1 - t), (uint32_t)(t - line + 1), TK_STR};
    *st = decode_string(A, &tok, q[0] == 'W', true, &A->pool);
    return next;
}

/* ---- resolution ---------------------------------------------------------- */

static gsvm_status resolve(asmb *A)
{
    gsvm_patho_program *p = A->p;
    for (uint32_t f = 0; f < A->nfixups; f++) {
        fixup *x = &A->fixups[f];
        int64_t t = label_find(A, x->name, x->name_len);
        if (t < 0)
            return gsvm_error_at_line(A->err, GSVM_ERR_INPUT, A->file, x->line, x->col,
                                      "undefined label '%.*s'", (int)x->name_len, x->name);
        switch (x->kind) {
        case FIX_ENTRY: p->run_op = (uint32_t)t; break;
        case FIX_INSN: p->insns[x->a].a[x->b] = (uint32_t)t; break;
        case FIX_TASK_EVENT: p->tasks[x->a].events[x->b].op = (uint32_t)t; break;
        default: p->events[x->a].op = (uint32_t)t; break;
        }
    }
    size_t search_budget = 64u * 1024 * 1024;
    for (uint32_t s = 0; s < A->nstrs; s++) {
        strref *r = &A->strs[s];
        uint32_t *slot = &p->insns[r->insn].a[r->slot];
        const uint8_t *bytes = A->strbytes.data + r->at;
        if (r->has_offset && (uint64_t)*slot + r->nbytes <= A->pool.len &&
            memcmp(A->pool.data + *slot, bytes, r->nbytes) == 0)
            continue; /* the offset holds the text: keep it (the exact bytes) */
        /* No offset, or the pool changed (an edited string moves the ones
         * after it): the text decides. */
        /* find the text (a tail of a longer string will do) or append it.
         * The search scans the pool, so its total work is bounded: past the
         * budget (only reached by listings with tens of thousands of new
         * strings) the text is appended without looking — still correct. */
        uint32_t found = UINT32_MAX;
        if (search_budget >= A->pool.len) {
            search_budget -= A->pool.len;
            const uint8_t *d = A->pool.data;
            size_t len = A->pool.len;
            for (size_t at = 0; at + r->nbytes <= len;) {
                const uint8_t *hit = memchr(d + at, bytes[0], len - r->nbytes + 1 - at);
                if (!hit)
                    break;
                at = (size_t)(hit - d);
                if (memcmp(hit, bytes, r->nbytes) == 0 && (!r->wide || at % 2 == 0)) {
                    found = (uint32_t)at;
                    break;
                }
                at++;
            }
        }
        if (found == UINT32_MAX) {
            found = (uint32_t)A->pool.len;
            gsvm_buf_append(&A->pool, bytes, r->nbytes);
            if (A->pool.oom)
                return nomem(A);
        }
        *slot = found;
    }
    return GSVM_OK;
}

/* *arr when it is set, else one zeroed element (from the block when it
 * has room); false on out-of-memory. */
static bool empty_array(asmb *A, void **arr, size_t elem)
{
    if (*arr)
        return true;
    void *q = region_take(&A->prog, elem);
    if (q)
        memset(q, 0, elem);
    else
        q = calloc(1, elem);
    *arr = q;
    return q != NULL;
}

static void asmb_free(asmb *A)
{
    gsvm_buf_free(&A->pool);
    free_unless_in(&A->scratch, A->labels);
    free_unless_in(&A->scratch, A->label_hash);
    free_unless_in(&A->scratch, A->fixups);
    gsvm_buf_free(&A->strbytes);
    gsvm_buf_free(&A->types);
    free_unless_in(&A->scratch, A->strs);
    patho_import_index_free(&A->imports);
    free(A->cap_task_events);
    free(A->scratch.base);
}

static gsvm_status one_line(asmb *A, const line_toks *L)
{
    const token *t = &L->t[0];
    if (t->kind == TK_END)
        return GSVM_OK;
    gsvm_patho_program *p = A->p;
    if (t->kind == TK_IDENT && t->s[0] == '.') {
        if (tok_is(t, ".layout")) {
            gsvm_patho_layout l;
            char tmp[16] = {0};
            const token *v = &L->t[1];
            if (v->kind != TK_IDENT && v->kind != TK_NUM)
                return fail_at(A, v->col, "expected alpha or hd");
            memcpy(tmp, v->s, v->n < 15 ? v->n : 15);
            if (!gsvm_patho_layout_parse(tmp, &l) || l == GSVM_PATHO_LAYOUT_AUTO)
                return fail_at(A, v->col, "unknown layout '%s' (alpha or hd)", tmp);
            if (A->layout_override == GSVM_PATHO_LAYOUT_AUTO) {
                if (l != p->layout && p->ninsns)
                    A->recode = true; /* codes and sizes set so far are stale */
                p->layout = l;
            }
            A->layout_seen = true;
            return end_of_line(A, L, 2);
        }
        if (tok_is(t, ".pool")) {
            A->sec = SEC_POOL;
            return end_of_line(A, L, 1);
        }
        if (tok_is(t, ".code")) {
            A->sec = SEC_CODE;
            return end_of_line(A, L, 1);
        }
        A->sec = SEC_NONE;
        if (tok_is(t, ".global"))
            return dir_global(A, L);
        if (tok_is(t, ".import"))
            return dir_import(A, L);
        if (tok_is(t, ".task"))
            return dir_task(A, L);
        if (tok_is(t, ".on"))
            return dir_event(A, L, true);
        if (tok_is(t, ".event"))
            return dir_event(A, L, false);
        if (tok_is(t, ".entry")) {
            int64_t v;
            gsvm_status st = want_int(A, &L->t[1], 0, UINT32_MAX, &v, "a task number");
            if (st != GSVM_OK)
                return st;
            p->run_task = (uint32_t)v;
            if ((st = parse_target(A, &L->t[2], FIX_ENTRY, 0, 0, &p->run_op)) != GSVM_OK)
                return st;
            return end_of_line(A, L, 3);
        }
        return fail_at(A, t->col, "unknown directive '%.*s'", (int)t->n, t->s);
    }
    if (A->sec == SEC_POOL)
        return pool_item(A, L);
    if (A->sec != SEC_CODE)
        return fail_at(A, t->col, "instruction or label outside .code");
    if (t->kind == TK_IDENT && tok_is(&L->t[1], ":")) {
        gsvm_status st = label_add(A, t, p->ninsns);
        if (st != GSVM_OK)
            return st;
        if (L->t[2].kind == TK_END)
            return GSVM_OK;
        /* "label: Instr ..." on one line: the rest of the tokens */
        line_toks rest; /* a view of L's tokens (its own inline array unused) */
        rest.t = L->t + 2;
        rest.n = L->n - 2;
        rest.cap = L->cap - 2;
        return instruction(A, &rest);
    }
    if (t->kind != TK_IDENT)
        return fail_at(A, t->col, "expected an instruction");
    return instruction(A, L);
}

gsvm_status gsvm_patho_asm(const char *text, size_t len, const char *file,
                           gsvm_patho_layout layout, gsvm_patho_program **out, gsvm_error *err)
{
    gsvm_error_clear(err);
    *out = NULL;
    asmb A;
    memset(&A, 0, sizeof A);
    A.file = file;
    A.err = err;
    A.layout_override = layout;
    A.text_end = text + len;
    gsvm_buf_init(&A.pool);
    gsvm_buf_init(&A.strbytes);
    gsvm_patho_program *p = A.p = calloc(1, sizeof *p);
    line_toks toks, *L = &toks;
    L->n = 0;
    L->cap = (int)(sizeof L->first / sizeof L->first[0]);
    L->t = L->first;
    if (!p)
        return gsvm_error_set(err, GSVM_ERR_NOMEM, file, "out of memory");
    p->layout = layout == GSVM_PATHO_LAYOUT_AUTO ? GSVM_PATHO_LAYOUT_HD : layout;
    /* One block for the program's names, type lists and arrays, one for
     * the assembler's own arrays, sized from the text: a listing of the
     * corpus holds an instruction per ~70 bytes (~56 in dense code), a
     * call argument per ~300, a PushV type, a label or a jump per ~500, a
     * pool string per ~750.  What does not fit goes to malloc, and no
     * block at all is fine too. */
    size_t estimate = len < ((size_t)1 << 30) ? len : (size_t)1 << 30;
    p->block_size = estimate + 4096;
    p->block = malloc(p->block_size);
    if (!p->block)
        p->block_size = 0;
    A.prog.base = p->block;
    A.prog.size = p->block_size;
    A.scratch.size = estimate / 4 + 4096;
    A.scratch.base = malloc(A.scratch.size);
    if (!A.scratch.base)
        A.scratch.size = 0;
    gsvm_status st = GSVM_OK;
    /* the pool and the operand strings together take well under a
     * sixteenth of a listing's text: room for them up front too */
    gsvm_buf_reserve(&A.pool, len / 32 < 65536 ? len / 32 : 65536);
    gsvm_buf_reserve(&A.strbytes, len / 32 < 65536 ? len / 32 : 65536);
    /* the arrays near their final sizes instead of doubling up to them */
    if (!grow(&A, &A.prog, (void **)&p->insns, &A.cap_insns, estimate / 56 + 1, sizeof *p->insns) ||
        !grow(&A, &A.prog, (void **)&p->args, &A.cap_args, estimate / 256 + 1, sizeof *p->args) ||
        !grow(&A, &A.prog, (void **)&p->vtypes, &A.cap_vtypes, estimate / 256 + 1, 1) ||
        !grow(&A, &A.scratch, (void **)&A.labels, &A.cap_labels, estimate / 512 + 1, sizeof *A.labels) ||
        !grow(&A, &A.scratch, (void **)&A.fixups, &A.cap_fixups, estimate / 400 + 1, sizeof *A.fixups) ||
        !grow(&A, &A.scratch, (void **)&A.strs, &A.cap_strs, estimate / 640 + 1, sizeof *A.strs))
        st = GSVM_ERR_NOMEM;
    op_table_init(&A);
    const char *s = text, *end = text + len;
    while (s < end && st == GSVM_OK) {
        if (A.sec == SEC_CODE) {
            /* code lines as the lister writes them, one after another */
            s = code_lines(&A, s, &st);
            if (s >= end || st != GSVM_OK)
                break;
        }
        A.line++;
        if (A.sec != SEC_CODE) {
            /* imports and pool strings as the lister writes them */
            const char *next = *s == '.' ? fast_import(&A, s)
                               : A.sec == SEC_POOL ? fast_pool_item(&A, s, &st) : NULL;
            if (next) {
                s = next;
                continue;
            }
        }
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *le = nl ? nl : end;
        long bad_col;
        const char *why;
        if (!tokenize(s, le, L, &bad_col, &why))
            st = fail_at(&A, bad_col, "%s", why);
        else
            st = one_line(&A, L);
        s = nl ? nl + 1 : end;
    }
    if (L->t != L->first)
        free(L->t);
    if (st == GSVM_OK)
        st = resolve(&A);
    if (st == GSVM_OK && A.pool.len > UINT32_MAX / 2)
        st = gsvm_error_set(err, GSVM_ERR_INPUT, file, "pool too large");
    if (st == GSVM_OK) {
        /* the pool buffer becomes the program's pool (no copy) */
        size_t plen;
        p->pool = gsvm_buf_take(&A.pool, &plen);
        p->pool_size = (uint32_t)plen;
        if (!p->pool && !(p->pool = malloc(1)))
            st = nomem(&A);
    }
    /* arrays never allocated (empty sections) must still be valid pointers */
    if (st == GSVM_OK && (!empty_array(&A, (void **)&p->globals, sizeof *p->globals) ||
                          !empty_array(&A, (void **)&p->imports, sizeof *p->imports) ||
                          !empty_array(&A, (void **)&p->tasks, sizeof *p->tasks) ||
                          !empty_array(&A, (void **)&p->events, sizeof *p->events) ||
                          !empty_array(&A, (void **)&p->insns, sizeof *p->insns) ||
                          !empty_array(&A, (void **)&p->args, sizeof *p->args) ||
                          !empty_array(&A, (void **)&p->vtypes, 1)))
        st = nomem(&A);
    for (uint32_t t = 0; st == GSVM_OK && t < p->ntasks; t++)
        if (!empty_array(&A, (void **)&p->tasks[t].events, sizeof *p->tasks[t].events))
            st = nomem(&A);
    asmb_free(&A);
    if (st == GSVM_OK)
        st = A.recode ? gsvm_patho_finish(p, err) : patho_finish_offsets(p, err);
    if (st != GSVM_OK) {
        gsvm_patho_free(p);
        return st;
    }
    *out = p;
    return GSVM_OK;
}
