#include "lsl/lexer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lsl/arena.h"

static const char *const tok_names[T_COUNT] = {
    [T_EOF] = "end of file", [T_IDENT] = "identifier", [T_INT_LIT] = "integer literal",
    [T_FLOAT_LIT] = "float literal", [T_STRING_LIT] = "string literal",
    [T_INTEGER] = "'integer'", [T_FLOAT] = "'float'", [T_STRING] = "'string'", [T_KEY] = "'key'",
    [T_VECTOR] = "'vector'", [T_ROTATION] = "'rotation'", [T_LIST] = "'list'",
    [T_DEFAULT] = "'default'", [T_STATE] = "'state'", [T_JUMP] = "'jump'",
    [T_RETURN] = "'return'", [T_IF] = "'if'", [T_ELSE] = "'else'", [T_FOR] = "'for'",
    [T_DO] = "'do'", [T_WHILE] = "'while'", [T_PRINT] = "'print'", [T_LPAREN] = "'('", [T_RPAREN] = "')'",
    [T_LBRACE] = "'{'", [T_RBRACE] = "'}'", [T_LBRACKET] = "'['", [T_RBRACKET] = "']'",
    [T_COMMA] = "','", [T_SEMI] = "';'", [T_DOT] = "'.'", [T_AT] = "'@'", [T_PLUS] = "'+'",
    [T_MINUS] = "'-'", [T_STAR] = "'*'", [T_SLASH] = "'/'", [T_PERCENT] = "'%'",
    [T_ASSIGN] = "'='", [T_PLUS_ASSIGN] = "'+='", [T_MINUS_ASSIGN] = "'-='",
    [T_STAR_ASSIGN] = "'*='", [T_SLASH_ASSIGN] = "'/='", [T_PERCENT_ASSIGN] = "'%='",
    [T_EQ] = "'=='", [T_NE] = "'!='", [T_LT] = "'<'", [T_GT] = "'>'", [T_LE] = "'<='",
    [T_GE] = "'>='", [T_AND_AND] = "'&&'", [T_OR_OR] = "'||'", [T_NOT] = "'!'",
    [T_TILDE] = "'~'", [T_AMP] = "'&'", [T_PIPE] = "'|'", [T_CARET] = "'^'", [T_SHL] = "'<<'",
    [T_SHR] = "'>>'", [T_INC] = "'++'", [T_DEC] = "'--'",
};

const char *lsl_tok_name(lsl_tok kind)
{
    return kind < T_COUNT && tok_names[kind] ? tok_names[kind] : "token";
}

static const struct {
    const char *word;
    lsl_tok kind;
} keywords[] = {
    {"integer", T_INTEGER}, {"float", T_FLOAT},     {"string", T_STRING},
    {"key", T_KEY},         {"vector", T_VECTOR},   {"rotation", T_ROTATION},
    {"quaternion", T_ROTATION}, {"list", T_LIST},   {"default", T_DEFAULT},
    {"state", T_STATE},     {"jump", T_JUMP},       {"return", T_RETURN},
    {"if", T_IF},           {"else", T_ELSE},       {"for", T_FOR},
    {"do", T_DO},           {"while", T_WHILE},    {"print", T_PRINT},
};

void lsl_lexer_init(lsl_lexer *lx, const char *src, size_t len, const char *file,
                    lsl_arena *arena, gsvm_error *err)
{
    memset(lx, 0, sizeof *lx);
    lx->src = lx->p = lx->line_start = lx->col_at = src;
    lx->col = 1;
    lx->end = src + len;
    lx->line = 1;
    /* a UTF-8 byte-order mark some editors write is not part of the script */
    if (len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0)
        lx->p = lx->line_start = lx->col_at = src + 3;
    lx->file = file;
    lx->arena = arena;
    lx->err = err;
}

/* Columns count characters (UTF-8 code points), 1-based, as editors do. */
static long count_columns(const char *from, const char *to, long col)
{
    for (const char *c = from; c < to; c++)
        if (((unsigned char)*c & 0xC0) != 0x80)
            col++;
    return col;
}

static long column_of(const lsl_lexer *lx, const char *at)
{
    return count_columns(lx->line_start, at, 1);
}

/* The column of a token start: tokens only move forward, so counting on
 * from the previous token keeps a long single-line file linear. */
static long token_column(lsl_lexer *lx, const char *at)
{
    if (lx->col_at < lx->line_start || lx->col_at > at) {
        lx->col_at = lx->line_start;
        lx->col = 1;
    }
    lx->col = count_columns(lx->col_at, at, lx->col);
    lx->col_at = at;
    return lx->col;
}

const char *lsl_sl_error_prefix(const char *msg)
{
    static const char *const sl[] = {
        "Syntax error",
        "Name previously declared within scope",
        "Type mismatch",
        "Declaration requires a new scope -- use { and }",
        "out of memory",
    };
    for (size_t i = 0; i < sizeof sl / sizeof sl[0]; i++)
        if (strncmp(msg, sl[i], strlen(sl[i])) == 0)
            return "";
    return "Syntax error: ";
}

static bool lex_error(lsl_lexer *lx, const char *at, long line, const char *line_start,
                      const char *fmt, const char *arg)
{
    const char *saved = lx->line_start;
    lx->line_start = line_start;
    long col = column_of(lx, at);
    lx->line_start = saved;
    char msg[300];
    snprintf(msg, sizeof msg, fmt, arg);
    gsvm_error_at_line(lx->err, GSVM_ERR_INPUT, lx->file, line, col, "%s%s", lsl_sl_error_prefix(msg), msg);
    return false;
}

static void newline(lsl_lexer *lx, const char *after)
{
    lx->line++;
    lx->line_start = after;
}

/* Length of a valid UTF-8 sequence at p (at most `left` bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, size_t left)
{
    unsigned c = p[0];
    size_t n;
    unsigned min;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) n = 2, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF) n = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4) n = 4, min = 0x10000;
    else return 0;
    if (n > left)
        return 0;
    unsigned v = c & (0x7F >> n);
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (p[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    return n;
}

static bool skip_space(lsl_lexer *lx)
{
    for (;;) {
        const char *p = lx->p;
        if (p >= lx->end)
            return true;
        if (*p == '\n') {
            lx->p++;
            newline(lx, lx->p);
        } else if (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\f' || *p == '\v') {
            lx->p++;
        } else if (*p == '/' && p + 1 < lx->end && p[1] == '/') {
            while (lx->p < lx->end && *lx->p != '\n')
                lx->p++;
        } else if (*p == '/' && p + 1 < lx->end && p[1] == '*') {
            long line = lx->line;
            const char *ls = lx->line_start;
            lx->p += 2;
            for (;;) {
                if (lx->p + 1 >= lx->end)
                    return lex_error(lx, p, line, ls, "%sunterminated /* comment", "");
                if (lx->p[0] == '*' && lx->p[1] == '/') {
                    lx->p += 2;
                    break;
                }
                if (*lx->p == '\n')
                    newline(lx, lx->p + 1);
                lx->p++;
            }
        } else {
            return true;
        }
    }
}

static bool is_ident_start(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_ident(int c) { return is_ident_start(c) || is_digit(c); }

static bool lex_number(lsl_lexer *lx, lsl_token *tok)
{
    const char *p = lx->p, *end = lx->end;
    if (p + 1 < end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        const char *q = p + 2;
        uint64_t v = 0;
        bool any = false, big = false;
        for (; q < end; q++) {
            int c = *q, d;
            if (is_digit(c)) d = c - '0';
            else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
            else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
            else break;
            any = true;
            v = v * 16 + (uint64_t)d;
            if (v > UINT32_MAX)
                big = true, v &= 0xFFFFFFFFu;
        }
        if (!any)
            return lex_error(lx, p, lx->line, lx->line_start, "%shexadecimal literal has no digits", "");
        tok->kind = T_INT_LIT;
        /* LSL keeps hexadecimal literals to their low 32 bits. */
        tok->ival = big ? -1 : (int32_t)(uint32_t)v;
        lx->p = q;
        return true;
    }
    const char *q = p;
    while (q < end && is_digit(*q))
        q++;
    bool is_float = false;
    if (q < end && *q == '.') {
        is_float = true;
        q++;
        while (q < end && is_digit(*q))
            q++;
    }
    if (q < end && (*q == 'e' || *q == 'E')) {
        const char *e = q + 1;
        if (e < end && (*e == '+' || *e == '-'))
            e++;
        if (e < end && is_digit(*e)) {
            is_float = true;
            q = e;
            while (q < end && is_digit(*q))
                q++;
        }
    }
    char buf[512];
    size_t n = (size_t)(q - p);
    if (n >= sizeof buf)
        return lex_error(lx, p, lx->line, lx->line_start, "%snumber literal is too long", "");
    memcpy(buf, p, n);
    buf[n] = 0;
    if (is_float) {
        if (q < end && (*q == 'f' || *q == 'F'))
            q++;
        tok->kind = T_FLOAT_LIT;
        tok->fval = strtod(buf, NULL);
    } else {
        uint64_t v = 0;
        bool big = false;
        for (size_t i = 0; i < n; i++) {
            v = v * 10 + (uint64_t)(buf[i] - '0');
            if (v > UINT32_MAX) {
                big = true;
                v = 0;
            }
        }
        tok->kind = T_INT_LIT;
        /* Decimal literals past 32 bits become -1, as in LSL; up to 2^32-1
         * they wrap, so -2147483648 can be written. */
        tok->ival = big ? -1 : (int32_t)(uint32_t)v;
    }
    if (q < end && is_ident(*q))
        return lex_error(lx, q, lx->line, lx->line_start, "unexpected '%s' after a number",
                         (char[2]){*q, 0});
    lx->p = q;
    return true;
}

static bool lex_string(lsl_lexer *lx, lsl_token *tok)
{
    const char *start = lx->p;
    long line = lx->line;
    const char *ls = lx->line_start;
    const char *p = start + 1;
    size_t cap = 16, len = 0;
    /* Decoded text is never longer than the source text (\t aside). */
    for (const char *q = p; q < lx->end && *q != '"'; q++) {
        if (*q == '\\' && q + 1 < lx->end)
            q++;
        cap += 4;
    }
    char *out = lsl_arena_alloc(lx->arena, cap);
    if (!out)
        return lex_error(lx, start, line, ls, "%sout of memory", "");
    for (;;) {
        if (p >= lx->end)
            return lex_error(lx, start, line, ls, "%sunterminated string literal", "");
        unsigned char c = (unsigned char)*p;
        if (c == '"')
            break;
        if (c == '\\') {
            if (p + 1 >= lx->end)
                return lex_error(lx, start, line, ls, "%sunterminated string literal", "");
            char e = p[1];
            if ((unsigned char)e >= 0x80) {
                p += 1; /* a backslash before a non-ASCII character: keep the character */
                continue;
            }
            p += 2;
            if (e == 'n') {
                out[len++] = '\n';
            } else if (e == 't') {
                memcpy(out + len, "    ", 4); /* LSL turns \t into four spaces */
                len += 4;
            } else {
                if (e == '\n')
                    newline(lx, p);
                out[len++] = e; /* \" \\ and any other escaped character */
            }
            continue;
        }
        size_t n = utf8_len((const unsigned char *)p, (size_t)(lx->end - p));
        if (n == 0) {
            lx->p = p;
            return lex_error(lx, p, lx->line, lx->line_start, "%sinvalid UTF-8 in string literal", "");
        }
        if (c == '\n')
            newline(lx, p + 1);
        memcpy(out + len, p, n);
        len += n;
        p += n;
    }
    tok->kind = T_STRING_LIT;
    tok->sval = out;
    tok->slen = len;
    lx->p = p + 1;
    return true;
}

bool lsl_lexer_next(lsl_lexer *lx, lsl_token *tok)
{
again:
    memset(tok, 0, sizeof *tok);
    if (!skip_space(lx))
        return false;
    tok->start = lx->p;
    tok->line = lx->line;
    tok->col = token_column(lx, lx->p);
    if (lx->p >= lx->end) {
        tok->kind = T_EOF;
        return true;
    }
    const char *p = lx->p;
    char c = *p;
    char n1 = p + 1 < lx->end ? p[1] : 0;
    bool ok = true;
    if (is_ident_start(c)) {
        const char *q = p;
        while (q < lx->end && is_ident(*q))
            q++;
        tok->kind = T_IDENT;
        size_t n = (size_t)(q - p);
        for (size_t i = 0; i < sizeof keywords / sizeof keywords[0]; i++)
            if (strlen(keywords[i].word) == n && memcmp(keywords[i].word, p, n) == 0)
                tok->kind = keywords[i].kind;
        lx->p = q;
    } else if (is_digit(c) || (c == '.' && is_digit(n1))) {
        ok = lex_number(lx, tok);
    } else if (c == '"') {
        ok = lex_string(lx, tok);
    } else {
        static const struct {
            const char *text;
            lsl_tok kind;
        } ops[] = {
            {"<<", T_SHL}, {">>", T_SHR}, {"<=", T_LE}, {">=", T_GE}, {"==", T_EQ}, {"!=", T_NE},
            {"&&", T_AND_AND}, {"||", T_OR_OR}, {"++", T_INC}, {"--", T_DEC},
            {"+=", T_PLUS_ASSIGN}, {"-=", T_MINUS_ASSIGN}, {"*=", T_STAR_ASSIGN},
            {"/=", T_SLASH_ASSIGN}, {"%=", T_PERCENT_ASSIGN},
            {"(", T_LPAREN}, {")", T_RPAREN}, {"{", T_LBRACE}, {"}", T_RBRACE}, {"[", T_LBRACKET},
            {"]", T_RBRACKET}, {",", T_COMMA}, {";", T_SEMI}, {".", T_DOT}, {"@", T_AT},
            {"+", T_PLUS}, {"-", T_MINUS}, {"*", T_STAR}, {"/", T_SLASH}, {"%", T_PERCENT},
            {"=", T_ASSIGN}, {"<", T_LT}, {">", T_GT}, {"!", T_NOT}, {"~", T_TILDE},
            {"&", T_AMP}, {"|", T_PIPE}, {"^", T_CARET},
        };
        size_t i;
        for (i = 0; i < sizeof ops / sizeof ops[0]; i++) {
            size_t n = strlen(ops[i].text);
            if ((size_t)(lx->end - p) >= n && memcmp(ops[i].text, p, n) == 0) {
                tok->kind = ops[i].kind;
                lx->p = p + n;
                break;
            }
        }
        if (i == sizeof ops / sizeof ops[0]) {
            /* Second Life's lexer ignores a character it has no token for
             * (a stray `\\`, `$`, `'`, `#` or non-ASCII text between tokens):
             * skip it (a whole UTF-8 sequence) and scan on. */
            size_t n = utf8_len((const unsigned char *)p, (size_t)(lx->end - p));
            lx->p = p + (n ? n : 1);
            goto again;
        }
    }
    tok->len = (size_t)(lx->p - tok->start);
    return ok;
}
