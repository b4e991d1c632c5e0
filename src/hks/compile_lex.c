/* The compiler's lexer: Lua 5.1 tokens, plus HavokScript's reserved words
 * (hstructure, hmake, hdelete), Black Ops 3's << >> & | and the light
 * userdata / 64-bit integer literals 0x...hi and 0x...hl.  Every token keeps
 * its line and column for messages. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/compile.h"

/* ---- allocation ---- */
/* The arena: what lives as long as the compile (interned strings, function
 * states) is cut from 64 kB blocks and freed with them, block by block. */
typedef struct hc_arena_blk {
    struct hc_arena_blk *next;
    max_align_t data[];
} hc_arena_blk;

void *hc_arena(hc_compiler *C, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    if ((size_t)(C->aend - C->apos) < n) {
        size_t size = n > 65536 / 2 ? n : 65536 - sizeof(hc_arena_blk);
        hc_arena_blk *b = malloc(sizeof *b + size);
        if (!b)
            hc_error_at(C, C->t.line, C->t.col, "out of memory");
        b->next = C->arena;
        C->arena = b;
        C->apos = (char *)b->data;
        C->aend = C->apos + size;
    }
    void *p = C->apos;
    C->apos += n;
    return p;
}

void hc_arena_free(hc_compiler *C)
{
    for (hc_arena_blk *b = C->arena, *nx; b; b = nx) {
        nx = b->next;
        free(b);
    }
    C->arena = NULL;
    C->apos = C->aend = NULL;
}

void *hc_alloc(hc_compiler *C, size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p)
        hc_error_at(C, C->t.line, C->t.col, "out of memory");
    return p;
}

/* Grows a malloc'd array to hold `need` elements (the caller owns it; the
 * new elements are not cleared: every user writes each one it adds). */
void *hc_grow(hc_compiler *C, void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t n = *cap ? *cap : 16;
    while (n < need)
        n *= 2;
    void *q = realloc(p, n * elem);
    if (!q)
        hc_error_at(C, C->t.line, C->t.col, "out of memory");
    *cap = n;
    return q;
}

_Noreturn void hc_error_at(hc_compiler *C, int line, int col, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    gsvm_error_at_line(C->err, GSVM_ERR_INPUT, C->file, line, col, "%s", msg);
    longjmp(C->fail, 1);
}

/* ---- strings ---- */
/* Eight bytes a step: names and string literals are most of what the
 * compiler reads, and each is hashed once. */
static uint32_t str_hash(const char *s, size_t len)
{
    uint64_t h = len * 0x9E3779B97F4A7C15ull, w;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    w = 0;
    memcpy(&w, s + i, len - i);
    h = (h ^ w) * 0xff51afd7ed558ccdull;
    return (uint32_t)(h ^ (h >> 32));
}

const hc_str *hc_intern(hc_compiler *C, const char *s, size_t len)
{
    uint32_t h = str_hash(s, len);
    if (C->strcap) {
        for (hc_str *e = C->strtab[h & (C->strcap - 1)]; e; e = e->next)
            if (e->hash == h && e->len == len && memcmp(e->data, s, len) == 0)
                return e;
    }
    if (C->nstr + 1 > C->strcap / 2) {
        size_t ncap = C->strcap ? C->strcap * 2 : 256;
        hc_str **nt = calloc(ncap, sizeof *nt);
        if (!nt)
            hc_error_at(C, C->t.line, C->t.col, "out of memory");
        for (size_t i = 0; i < C->strcap; i++)
            for (hc_str *e = C->strtab[i], *nx; e; e = nx) {
                nx = e->next;
                e->next = nt[e->hash & (ncap - 1)];
                nt[e->hash & (ncap - 1)] = e;
            }
        free(C->strtab);
        C->strtab = nt;
        C->strcap = ncap;
    }
    hc_str *e = hc_arena(C, sizeof *e + len + 1);
    e->hash = h;
    e->reserved = 0;
    e->len = len;
    memcpy(e->data, s, len);
    e->data[len] = 0;
    e->next = C->strtab[h & (C->strcap - 1)];
    C->strtab[h & (C->strcap - 1)] = e;
    C->nstr++;
    return e;
}

/* ---- the scanner ---- */
static const char *const reserved[] = {
    "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "if", "in",
    "local", "nil", "not", "or", "repeat", "return", "then", "true", "until", "while",
    "hstructure", "hmake", "hdelete"};
static const uint8_t reserved_len[] = {3, 5, 2, 4, 6, 3, 5, 3, 8, 2, 2, 5, 3, 3, 2, 6, 6,
                                       4, 4, 5, 5, 10, 5, 7};

const char *hc_token_text(hc_compiler *C, int tok, char *buf, size_t n)
{
    (void)C;
    static const char *const other[] = {"..", "...", "==", ">=", "<=", "~=", "<<", ">>",
                                        "<number>", "<number>", "<number>", "<name>",
                                        "<string>", "<eof>"};
    if (tok < 257) {
        if (isprint(tok))
            snprintf(buf, n, "%c", tok);
        else
            snprintf(buf, n, "char(%d)", tok);
        return buf;
    }
    if (tok <= TK_HDELETE)
        return reserved[tok - TK_AND];
    return other[tok - TK_CONCAT];
}

static void sbuf_reset(hc_compiler *C) { C->sbuflen = 0; }
static void sbuf_add(hc_compiler *C, int c)
{
    if (C->sbuflen + 2 > C->sbufcap)
        C->sbuf = hc_grow(C, C->sbuf, &C->sbufcap, C->sbuflen + 2, 1);
    C->sbuf[C->sbuflen++] = (char)c;
}

static int cur(hc_compiler *C) { return C->p < C->end ? (uint8_t)*C->p : -1; }
static int peekc(hc_compiler *C, size_t i) { return C->p + i < C->end ? (uint8_t)C->p[i] : -1; }

static bool is_newline(int c) { return c == '\n' || c == '\r'; }
/* ASCII classes, as Lua 5.1 has them in the C locale (no ctype calls) */
static bool is_digit(int c) { return (unsigned)(c - '0') < 10; }
static bool is_alpha(int c) { return (unsigned)((c | 32) - 'a') < 26 || c == '_'; }
static bool is_alnum(int c) { return is_alpha(c) || is_digit(c); }

/* Skips one newline sequence (\n, \r, \n\r or \r\n) and counts the line. */
static void newline(hc_compiler *C)
{
    int old = cur(C);
    C->p++;
    if (is_newline(cur(C)) && cur(C) != old)
        C->p++;
    if (C->line >= 0x7fffffff - 1)
        hc_error_at(C, C->line, 1, "chunk has too many lines");
    C->line++;
    C->linestart = C->p;
}

static int column_of(hc_compiler *C, const char *at) { return (int)(at - C->linestart) + 1; }

/* "near" text of the token being scanned (from `start` to the scanner). */
_Noreturn static void lex_error(hc_compiler *C, const char *msg, const char *start, int line,
                                int col)
{
    size_t n = (size_t)(C->p - start);
    if (n > 60)
        n = 60;
    if (n == 0)
        hc_error_at(C, line, col, "%s near '<eof>'", msg);
    hc_error_at(C, line, col, "%s near '%.*s'", msg, (int)n, start);
}

/* [=*[ ... ]=*]: returns the level, or -1 when the brackets do not open one. */
static int long_bracket_level(hc_compiler *C)
{
    size_t i = 1;
    int lvl = 0;
    while (peekc(C, i) == '=')
        i++, lvl++;
    return peekc(C, i) == '[' ? lvl : -1;
}

static void read_long(hc_compiler *C, int lvl, bool keep, const char *start, int line, int col)
{
    C->p += (size_t)lvl + 2;
    if (is_newline(cur(C)))
        newline(C);
    for (;;) {
        int c = cur(C);
        if (c < 0)
            lex_error(C, keep ? "unfinished long string" : "unfinished long comment", start,
                      line, col);
        if (c == ']') {
            size_t i = 1;
            int l = 0;
            while (peekc(C, i) == '=')
                i++, l++;
            if (l == lvl && peekc(C, i) == ']') {
                C->p += i + 1;
                return;
            }
            if (keep)
                sbuf_add(C, c);
            C->p++;
        } else if (c == '[' && long_bracket_level(C) == lvl && lvl == 0 && peekc(C, 1) == '[') {
            /* Lua 5.1 refuses a nested [[ in a level-0 long string */
            C->p += 2;
            lex_error(C, "nesting of [[...]] is deprecated", start, line, col);
        } else if (is_newline(c)) {
            if (keep)
                sbuf_add(C, '\n');
            newline(C);
        } else {
            if (keep)
                sbuf_add(C, c);
            C->p++;
        }
    }
}

static void read_string(hc_compiler *C, int delim, const char *start, int line, int col)
{
    C->p++;
    for (;;) {
        int c = cur(C);
        if (c < 0)
            lex_error(C, "unfinished string", start, line, col);
        if (is_newline(c))
            lex_error(C, "unfinished string", start, line, col);
        if (c == delim) {
            C->p++;
            return;
        }
        if (c != '\\') {
            sbuf_add(C, c);
            C->p++;
            continue;
        }
        C->p++;
        c = cur(C);
        switch (c) {
        case 'a': sbuf_add(C, '\a'); C->p++; break;
        case 'b': sbuf_add(C, '\b'); C->p++; break;
        case 'f': sbuf_add(C, '\f'); C->p++; break;
        case 'n': sbuf_add(C, '\n'); C->p++; break;
        case 'r': sbuf_add(C, '\r'); C->p++; break;
        case 't': sbuf_add(C, '\t'); C->p++; break;
        case 'v': sbuf_add(C, '\v'); C->p++; break;
        case '\n':
        case '\r':
            sbuf_add(C, '\n');
            newline(C);
            break;
        case -1: lex_error(C, "unfinished string", start, line, col);
        default:
            if (!is_digit(c)) {
                sbuf_add(C, c); /* \\ \" \' and any other character stand for themselves */
                C->p++;
            } else {
                int v = 0;
                for (int i = 0; i < 3 && is_digit(cur(C)); i++, C->p++)
                    v = v * 10 + (cur(C) - '0');
                if (v > 255)
                    lex_error(C, "escape sequence too large", start, line, col);
                sbuf_add(C, v);
            }
        }
    }
}

/* A numeral as Lua 5.1 reads it: digits, dots, exponents and any letters,
 * then converted; HKS adds the hi / hl suffixes on hexadecimal numerals. */
static void read_number(hc_compiler *C, hc_token *t, const char *start)
{
    while (is_alnum(cur(C)) || cur(C) == '.' ||
           ((cur(C) == '+' || cur(C) == '-') && (C->p[-1] == 'e' || C->p[-1] == 'E')))
        C->p++;
    size_t n = (size_t)(C->p - start);
    if (n <= 16) {
        /* Plain decimals, the common case, without strtod: with at most 15
         * digits, the digits and the power of ten are exact doubles, so one
         * division rounds as strtod does. */
        static const double pow10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
                                       1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
        uint64_t u = 0;
        size_t i = 0, dot = n;
        for (; i < n; i++) {
            if (is_digit(start[i]))
                u = u * 10 + (uint64_t)(start[i] - '0');
            else if (start[i] == '.' && dot == n)
                dot = i;
            else
                break;
        }
        if (i == n && (dot < n || n <= 15)) {
            t->tok = TK_NUMBER;
            t->num = dot < n ? (double)u / pow10[n - 1 - dot] : (double)u;
            return;
        }
    }
    char buf[128];
    if (n >= sizeof buf)
        lex_error(C, "malformed number", start, t->line, t->col);
    memcpy(buf, start, n);
    buf[n] = 0;
    bool hex = n > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X');
    if (hex && n > 4 && (buf[n - 2] == 'h' || buf[n - 2] == 'H')) {
        int suf = tolower((unsigned char)buf[n - 1]);
        if (suf == 'i' || suf == 'l') {
            uint64_t v = 0;
            size_t digits = n - 4;
            if (digits > 16)
                lex_error(C, "malformed number (too many hexadecimal digits)", start, t->line,
                          t->col);
            for (size_t i = 2; i < n - 2; i++) {
                int d = tolower((unsigned char)buf[i]);
                if (!isxdigit(d))
                    lex_error(C, "malformed number", start, t->line, t->col);
                v = v << 4 | (uint64_t)(isdigit(d) ? d - '0' : d - 'a' + 10);
            }
            if (suf == 'i') {
                if (digits > 8)
                    lex_error(C, "malformed number (a light userdata literal has at most 8 "
                                 "hexadecimal digits)",
                              start, t->line, t->col);
                t->tok = TK_LUD;
            } else {
                t->tok = TK_UI64;
            }
            t->bits = v;
            return;
        }
    }
    char *e;
    double v;
    if (hex) {
        uint64_t u = 0;
        size_t i = 2;
        for (; i < n && isxdigit((unsigned char)buf[i]); i++) {
            int d = tolower((unsigned char)buf[i]);
            u = u * 16 + (uint64_t)(isdigit(d) ? d - '0' : d - 'a' + 10);
        }
        if (i != n || n == 2)
            lex_error(C, "malformed number", start, t->line, t->col);
        /* strtoul's result as Lua 5.1 keeps it: an unsigned long */
        v = (double)u;
    } else {
        v = strtod(buf, &e);
        if (*e || e == buf)
            lex_error(C, "malformed number", start, t->line, t->col);
    }
    t->tok = TK_NUMBER;
    t->num = v;
}

static void set_string(hc_token *t, int tok, const hc_str *s)
{
    t->tok = tok;
    t->str = s;
    t->s = s->data;
    t->len = s->len;
}

static void scan(hc_compiler *C, hc_token *t)
{
    for (;;) {
        int c = cur(C);
        t->line = C->line;
        t->col = column_of(C, C->p);
        const char *start = C->p;
        switch (c) {
        case -1: t->tok = TK_EOS; return;
        case '\n':
        case '\r': newline(C); continue;
        case ' ':
        case '\t':
        case '\v':
        case '\f':
            do
                C->p++;
            while (C->p < C->end && (*C->p == ' ' || *C->p == '\t'));
            continue;
        case '-':
            if (peekc(C, 1) != '-') {
                C->p++;
                t->tok = '-';
                return;
            }
            C->p += 2;
            if (cur(C) == '[') {
                int lvl = long_bracket_level(C);
                if (lvl >= 0) {
                    read_long(C, lvl, false, start, t->line, t->col);
                    continue;
                }
            }
            while (cur(C) >= 0 && !is_newline(cur(C)))
                C->p++;
            continue;
        case '[': {
            int lvl = long_bracket_level(C);
            if (lvl < 0) {
                C->p++;
                t->tok = '[';
                return;
            }
            sbuf_reset(C);
            read_long(C, lvl, true, start, t->line, t->col);
            set_string(t, TK_STRING, hc_intern(C, C->sbuf ? C->sbuf : "", C->sbuflen));
            return;
        }
        case '=':
            C->p++;
            if (cur(C) == '=') {
                C->p++;
                t->tok = TK_EQ;
            } else
                t->tok = '=';
            return;
        case '<':
            C->p++;
            if (cur(C) == '=') {
                C->p++;
                t->tok = TK_LE;
            } else if (cur(C) == '<' && C->bitops) {
                C->p++;
                t->tok = TK_SHL;
            } else
                t->tok = '<';
            return;
        case '>':
            C->p++;
            if (cur(C) == '=') {
                C->p++;
                t->tok = TK_GE;
            } else if (cur(C) == '>' && C->bitops) {
                C->p++;
                t->tok = TK_SHR;
            } else
                t->tok = '>';
            return;
        case '~':
            C->p++;
            if (cur(C) == '=') {
                C->p++;
                t->tok = TK_NE;
            } else
                t->tok = '~';
            return;
        case '"':
        case '\'': {
            /* without escapes, the string is the source's own bytes */
            const char *q = C->p + 1;
            while (q < C->end && *q != c && *q != '\\' && !is_newline(*q))
                q++;
            if (q < C->end && *q == c) {
                C->p = q + 1;
                set_string(t, TK_STRING, hc_intern(C, start + 1, (size_t)(q - start - 1)));
                return;
            }
            sbuf_reset(C);
            read_string(C, c, start, t->line, t->col);
            set_string(t, TK_STRING, hc_intern(C, C->sbuf ? C->sbuf : "", C->sbuflen));
            return;
        }
        case '.':
            if (peekc(C, 1) == '.') {
                if (peekc(C, 2) == '.') {
                    C->p += 3;
                    t->tok = TK_DOTS;
                } else {
                    C->p += 2;
                    t->tok = TK_CONCAT;
                }
                return;
            }
            if (!is_digit(peekc(C, 1))) {
                C->p++;
                t->tok = '.';
                return;
            }
            read_number(C, t, start);
            return;
        default:
            if (is_digit(c)) {
                read_number(C, t, start);
                return;
            }
            if (is_alpha(c)) {
                do
                    C->p++;
                while (C->p < C->end && is_alnum((uint8_t)*C->p));
                /* reserved words are interned with their token (hc_lex_init) */
                set_string(t, TK_NAME, hc_intern(C, start, (size_t)(C->p - start)));
                if (t->str->reserved)
                    t->tok = t->str->reserved;
                return;
            }
            C->p++;
            t->tok = c;
            return;
        }
    }
}

void hc_lex_init(hc_compiler *C)
{
    /* hdelete is reserved in Ghosts only */
    int nres = TK_HDELETE - TK_AND + (C->ghosts_delete ? 1 : 0);
    for (int i = 0; i < nres; i++)
        ((hc_str *)hc_intern(C, reserved[i], reserved_len[i]))->reserved = TK_AND + i;
    C->p = C->src;
    C->line = 1;
    C->linestart = C->src;
    C->lastline = 1;
    /* a first line starting with # is a shell line: skip it */
    if (cur(C) == '#')
        while (cur(C) >= 0 && !is_newline(cur(C)))
            C->p++;
    scan(C, &C->t);
}

void hc_next(hc_compiler *C)
{
    C->lastline = C->line;
    C->prevline = C->t.line;
    C->prevcol = C->t.col;
    if (C->have_ahead) {
        C->t = C->ahead;
        C->have_ahead = false;
    } else {
        scan(C, &C->t);
    }
}

int hc_lookahead(hc_compiler *C)
{
    if (!C->have_ahead) {
        scan(C, &C->ahead);
        C->have_ahead = true;
    }
    return C->ahead.tok;
}
