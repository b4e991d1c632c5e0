/* The decompiler's leaf text: constants that read back to the same bits,
 * names and field keys, and expressions with their precedence (so that
 * parentheses appear only where Lua 5.1 needs them). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hks/decompile.h"

dx dx_make(int prec, const char *fmt, ...)
{
    dx e = {NULL, prec};
    va_list ap;
    va_start(ap, fmt);
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    e.s = malloc((size_t)n + 1);
    if (e.s)
        vsnprintf(e.s, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return e;
}

dx dx_take(int prec, gsvm_buf *b)
{
    dx e = {NULL, prec};
    gsvm_buf_cstr(b);
    size_t len;
    e.s = (char *)gsvm_buf_take(b, &len);
    if (!e.s)
        e.s = calloc(1, 1);
    return e;
}

void dx_free(dx *e)
{
    free(e->s);
    e->s = NULL;
}

const char *dx_str(const dx *e)
{
    return e->s ? e->s : "nil";
}

/* e's text, in parentheses when its precedence is below `min`. */
dx dx_wrap(dx e, int min)
{
    if (e.prec >= min)
        return e;
    dx w = dx_make(DX_ATOM, "(%s)", dx_str(&e));
    dx_free(&e);
    return w;
}

bool dx_is_name(const char *s, size_t n)
{
    static const char *const kw[] = {"and",   "break", "do",     "else", "elseif", "end",
                                     "false", "for",   "function", "if", "in",     "local",
                                     "nil",   "not",   "or",     "repeat", "return", "then",
                                     "true",  "until", "while"};
    if (n == 0 || n > 200)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        bool alpha = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_';
        if (!alpha && !(i > 0 && ch >= '0' && ch <= '9'))
            return false;
    }
    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
        if (kw[i][0] == s[0] && strlen(kw[i]) == n && memcmp(kw[i], s, n) == 0)
            return false;
    return true;
}

void dx_put_string(gsvm_buf *b, const char *s, size_t n)
{
    gsvm_buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        switch (ch) {
        case '"': gsvm_buf_puts(b, "\\\""); break;
        case '\\': gsvm_buf_puts(b, "\\\\"); break;
        case '\n': gsvm_buf_puts(b, "\\n"); break;
        case '\r': gsvm_buf_puts(b, "\\r"); break;
        case '\t': gsvm_buf_puts(b, "\\t"); break;
        default:
            if (ch < 32 || ch >= 127) {
                /* three digits, so that a digit after it is not read into it */
                gsvm_buf_printf(b, "\\%03u", ch);
            } else {
                gsvm_buf_putc(b, ch);
            }
        }
    }
    gsvm_buf_putc(b, '"');
}

/* A number that reads back to the same bits: integers as integers, the rest
 * with the fewest digits that round-trip through the chunk's number type
 * (a float32 chunk's constant is read as a double, then rounded to float). */
static dx number_text(double v, bool f32)
{
    if (v != v)
        return dx_make(DX_ATOM, "(0/0)");
    if (isinf(v))
        /* a literal past the largest double: the constant itself (1 / 0
         * would be a division, as the compiler does not fold it) */
        return v > 0 ? dx_make(DX_ATOM, "1e999") : dx_make(DX_UNARY, "-1e999");
    if (v == 0 && signbit(v))
        return dx_make(DX_ATOM, "(-0)");
    int prec = v < 0 ? DX_UNARY : DX_ATOM;
    if (v == floor(v) && fabs(v) < 1e15)
        return dx_make(prec, "%.0f", v);
    char tmp[64];
    for (int digits = 1; digits <= 17; digits++) {
        snprintf(tmp, sizeof tmp, "%.*g", digits, v);
        double back = strtod(tmp, NULL);
        if (f32 ? (float)back == (float)v : back == v)
            break;
    }
    return dx_make(prec, "%s", tmp);
}

dx dx_const(const gsvm_hks_chunk *c, const gsvm_hks_const *k)
{
    switch (k->type) {
    case GSVM_HKS_K_NIL: return dx_make(DX_ATOM, "nil");
    case GSVM_HKS_K_BOOL: return dx_make(DX_ATOM, k->b ? "true" : "false");
    case GSVM_HKS_K_LUD: return dx_make(DX_ATOM, "0x%llxhi", (unsigned long long)k->bits);
    case GSVM_HKS_K_UI64: return dx_make(DX_ATOM, "0x%llxhl", (unsigned long long)k->bits);
    case GSVM_HKS_K_NUMBER:
        if (c->size_number == 4) {
            uint32_t w = (uint32_t)k->bits;
            float fv;
            memcpy(&fv, &w, 4);
            return number_text((double)fv, true);
        } else {
            double dv;
            memcpy(&dv, &k->bits, 8);
            return number_text(dv, false);
        }
    case GSVM_HKS_K_STRING: {
        gsvm_buf b;
        gsvm_buf_init(&b);
        /* the stored size counts the string's NUL */
        size_t n = k->s.size ? (size_t)k->s.size - 1 : 0;
        dx_put_string(&b, k->s.data ? k->s.data : "", n);
        return dx_take(DX_ATOM, &b);
    }
    default: return dx_make(DX_ATOM, "nil");
    }
}

/* `base.name` when the key is a string that is a name, else `base[key]`. */
dx dx_index(dx base, const gsvm_hks_const *key, dx keytext)
{
    base = dx_wrap(base, DX_PREFIX);
    dx e;
    if (key && key->type == GSVM_HKS_K_STRING && key->s.size > 1 &&
        dx_is_name(key->s.data, (size_t)key->s.size - 1))
        e = dx_make(DX_PREFIX, "%s.%s", dx_str(&base), key->s.data);
    else
        e = dx_make(DX_PREFIX, "%s[%s]", dx_str(&base), dx_str(&keytext));
    dx_free(&base);
    dx_free(&keytext);
    return e;
}

/* Binary operators: left-associative except .. and ^. */
dx dx_binary(dx a, const char *op, int prec, dx b)
{
    bool right = prec == DX_CONCAT || prec == DX_POW;
    a = dx_wrap(a, right ? prec + 1 : prec);
    b = dx_wrap(b, right ? prec : prec + 1);
    dx e = dx_make(prec, "%s %s %s", dx_str(&a), op, dx_str(&b));
    dx_free(&a);
    dx_free(&b);
    return e;
}

dx dx_unary(const char *op, dx a)
{
    a = dx_wrap(a, DX_UNARY);
    /* "- -x" must not become the comment "--x" */
    bool space = op[0] == 'n' || (op[0] == '-' && a.s && a.s[0] == '-');
    dx e = dx_make(DX_UNARY, "%s%s%s", op, space ? " " : "", dx_str(&a));
    dx_free(&a);
    return e;
}

dx dx_not(dx a)
{
    /* in a condition, not (not x) has the truth of x (conditions are the
     * only place the decompiler negates) */
    if (a.s && strncmp(a.s, "not ", 4) == 0 && a.prec == DX_UNARY) {
        dx e = dx_make(DX_UNARY, "%s", a.s + 4);
        dx_free(&a);
        return e;
    }
    return dx_unary("not", a);
}
