/* LSL values as text: parsing numbers, vectors and rotations from strings
 * as LSL casts do, formatting floats and values, and the casts. */
#include "lsl/value.h"

#include "base/decimal.h"
#include "lsl/lib_math.h"

#include <ctype.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- number parsing ------------------------------------------------------ */

/* The rules below are Second Life's (Mono) as observed by its users and
 * recorded in the LSL wiki and in LSL-PyOptimizer's test-checked models. */

int32_t lsl_float_to_int(float f)
{
    /* Mono's conversion yields the "integer indefinite" 0x80000000 for NaN
     * and out-of-range values; scripts observe exactly that. */
    if (!(f >= -2147483648.0f && f < 2147483648.0f))
        return INT32_MIN;
    return (int32_t)f;
}

static bool is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

static size_t skip_space(const char *s, size_t len, size_t i)
{
    while (i < len && is_ws(s[i]))
        i++;
    return i;
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

int32_t lsl_string_to_int(const char *s, size_t len)
{
    /* Either "0x" + hex digits at the very start (no space, no sign), or
     * optional white space, an optional sign and decimal digits; whatever
     * follows is ignored, no digits give 0.  A magnitude beyond 4294967295
     * gives -1; otherwise the value wraps to 32 bits ("4294967295" is -1,
     * "2147483648" is -2147483648). */
    uint64_t mag = 0;
    bool neg = false, over = false;
    size_t i = 0;
    if (len >= 3 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') && hexval((unsigned char)s[2]) >= 0) {
        for (i = 2; i < len && hexval((unsigned char)s[i]) >= 0; i++) {
            mag = mag * 16 + (uint64_t)hexval((unsigned char)s[i]);
            if (mag > 0xFFFFFFFFu) {
                over = true;
                mag = 0xFFFFFFFFu;
            }
        }
    } else {
        i = skip_space(s, len, 0);
        if (i < len && (s[i] == '+' || s[i] == '-'))
            neg = s[i++] == '-';
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
            mag = mag * 10 + (uint64_t)(s[i] - '0');
            if (mag > 0xFFFFFFFFu) {
                over = true;
                mag = 0xFFFFFFFFu;
            }
        }
    }
    if (over)
        return -1;
    uint32_t u = (uint32_t)mag;
    if (neg)
        u = 0u - u;
    return (int32_t)u;
}

static bool word_at(const char *s, size_t len, size_t i, const char *w)
{
    size_t n = strlen(w);
    if (len - i < n)
        return false;
    for (size_t k = 0; k < n; k++)
        if (tolower((unsigned char)s[i + k]) != w[k])
            return false;
    return true;
}

static size_t scan_digits(const char *s, size_t len, size_t i, bool hex)
{
    while (i < len && (hex ? hexval((unsigned char)s[i]) >= 0 : (s[i] >= '0' && s[i] <= '9')))
        i++;
    return i;
}

/* Past an exponent at s[e] marked by `mark` (either case: 'e', or 'p' in
 * hex floats) with an optional sign and at least one digit; e itself when
 * there is none. */
static size_t scan_exponent(const char *s, size_t len, size_t e, char mark)
{
    if (e >= len || (s[e] | 0x20) != mark)
        return e;
    size_t k = e + 1;
    if (k < len && (s[k] == '+' || s[k] == '-'))
        k++;
    size_t m = scan_digits(s, len, k, false);
    return m > k ? m : e;
}

/* The end of the number that starts at s[i] (after optional white space and
 * sign): decimal with optional fraction and exponent, C99 hex float, "inf"
 * or "nan" (in vectors, "infinity" or an "inf" not followed by 'i').
 * Returns i itself when there is no number. */
static size_t scan_number(const char *s, size_t len, size_t i, bool in_vector)
{
    size_t start = i;
    i = skip_space(s, len, i);
    if (i < len && (s[i] == '+' || s[i] == '-'))
        i++;
    if (i + 1 < len && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
        size_t j = i + 2, d = scan_digits(s, len, j, true);
        size_t e = d;
        if (d > j) {
            if (d < len && s[d] == '.')
                e = scan_digits(s, len, d + 1, true);
        } else if (d < len && s[d] == '.' && scan_digits(s, len, d + 1, true) > d + 1) {
            e = scan_digits(s, len, d + 1, true);
        } else {
            e = 0;
        }
        if (e)
            return scan_exponent(s, len, e, 'p');
        /* "0x" without hex digits: fall through to read the "0" */
    }
    size_t d = scan_digits(s, len, i, false), e;
    if (d > i) {
        e = d < len && s[d] == '.' ? scan_digits(s, len, d + 1, false) : d;
    } else if (d < len && s[d] == '.' && scan_digits(s, len, d + 1, false) > d + 1) {
        e = scan_digits(s, len, d + 1, false);
    } else {
        if (in_vector && word_at(s, len, i, "infinity"))
            return i + 8;
        if (word_at(s, len, i, "inf") && !(in_vector && i + 3 < len && (s[i + 3] == 'i' || s[i + 3] == 'I')))
            return i + 3;
        if (word_at(s, len, i, "nan"))
            return i + 3;
        return start;
    }
    return scan_exponent(s, len, e, 'e');
}

/* The value of s[from, to) (a span scan_number accepted), via strtod. */
static double number_value(const char *s, size_t from, size_t to)
{
    char tmp[128];
    char *buf = tmp;
    size_t n = to - from;
    if (n >= sizeof tmp) {
        buf = malloc(n + 1);
        if (!buf)
            return 0.0;
    }
    memcpy(buf, s + from, n);
    buf[n] = 0;
    double d = strtod(buf, NULL);
    if (buf != tmp)
        free(buf);
    return d;
}

float lsl_string_to_float(const char *s, size_t len)
{
    size_t end = scan_number(s, len, 0, false);
    if (end == 0)
        return 0.0f;
    /* subnormals are kept: (float)"1.4e-45" is the smallest one, as in SL */
    return (float)number_value(s, 0, end);
}

/* "<a, b, c[, d]>": '<' first, then n numbers each followed by ',' except
 * the last (after which anything may follow, even nothing). */
static bool parse_tuple(const char *s, size_t len, float *out, int n)
{
    if (len == 0 || s[0] != '<')
        return false;
    size_t i = 1;
    for (int k = 0; k < n; k++) {
        size_t end = scan_number(s, len, i, true);
        if (end == i)
            return false;
        out[k] = (float)number_value(s, i, end);
        i = end;
        if (k < n - 1) {
            if (i >= len || s[i] != ',')
                return false;
            i++;
        }
    }
    return true;
}

bool lsl_string_to_vector(const char *s, size_t len, float out[3])
{
    if (parse_tuple(s, len, out, 3))
        return true;
    out[0] = out[1] = out[2] = 0;
    return false;
}

bool lsl_string_to_rotation(const char *s, size_t len, float out[4])
{
    if (parse_tuple(s, len, out, 4))
        return true;
    out[0] = out[1] = out[2] = 0;
    out[3] = 1;
    return false;
}

/* ---- text ---------------------------------------------------------------- */

void lsl_format_float(gsvm_buf *b, float f, int dp)
{
    /* Mono's float text: at most 7 significant digits, then zeros up to
     * `dp` decimals (123456.789 -> "123456.800000"); a negative number
     * that rounds to zero prints without its sign, and so does -0.0
     * (Second Life prints "0.000000" for it). */
    if (isnan(f)) {
        gsvm_buf_puts(b, "NaN");
        return;
    }
    if (isinf(f)) {
        gsvm_buf_puts(b, f < 0 ? "-Infinity" : "Infinity");
        return;
    }
    if (dp < 0)
        dp = 0;
    if (dp > 20)
        dp = 20;
    if (f == 0.0f) {
        gsvm_buf_printf(b, "%.*f", dp, 0.0);
        return;
    }
    char s[96];
    snprintf(s, sizeof s, "%.*f", dp + 7, fabs((double)f));
    bool neg = f < 0;
    size_t dot = strcspn(s, ".");
    size_t n = strlen(s);
    size_t i = 0;
    while (i < n && (s[i] == '0' || s[i] == '.'))
        i++;
    if (i == n || i > dot + (size_t)dp) {
        /* nothing significant within dp decimals: 0 (unsigned) or, when
         * the next digit rounds up, one unit in the last place */
        if (i < n && s[dot + 1 + dp] >= '5') {
            gsvm_buf_puts(b, neg ? "-0." : "0.");
            for (int k = 1; k < dp; k++)
                gsvm_buf_putc(b, '0');
            gsvm_buf_putc(b, '1');
        } else {
            gsvm_buf_printf(b, "%.*f", dp, 0.0);
        }
        return;
    }
    int digits = 0;
    while (digits < 7) {
        if (i >= dot + 1 + (size_t)dp)
            break;
        if (i == dot)
            i++;
        i++;
        digits++;
    }
    char r[96];
    size_t rl = i;
    memcpy(r, s, rl);
    r[rl] = 0;
    char next = i == dot ? s[i + 1] : s[i];
    bool carry_out = false;
    if (next >= '5') {
        size_t ci = rl;
        bool carry = true;
        while (carry && ci-- > 0) {
            if (r[ci] == '.')
                continue;
            if (r[ci] == '9') {
                r[ci] = '0';
            } else {
                r[ci]++;
                carry = false;
            }
        }
        carry_out = carry;
    }
    if (neg)
        gsvm_buf_putc(b, '-');
    if (carry_out)
        gsvm_buf_putc(b, '1');
    gsvm_buf_append(b, r, rl);
    if (i <= dot) {
        for (size_t k = i; k < dot; k++)
            gsvm_buf_putc(b, '0');
        gsvm_buf_putc(b, '.');
        for (int k = 0; k < dp; k++)
            gsvm_buf_putc(b, '0');
    } else {
        for (size_t k = i; k < dot + 1 + (size_t)dp; k++)
            gsvm_buf_putc(b, '0');
    }
}

void lsl_format_float_c(gsvm_buf *b, float f)
{
    char s[64];
    snprintf(s, sizeof s, "%.6f", (double)f);
    /* "-0.000000" (negative zero or a tiny negative): Second Life prints
     * zero unsigned in every float-to-string conversion */
    gsvm_buf_puts(b, strcmp(s, "-0.000000") == 0 ? s + 1 : s);
}

/* The decimal text of i, as "%d" writes it, into out (no NUL); returns its
 * length. */
static size_t int_text(int32_t i, char out[12])
{
    char *o = out;
    if (i < 0)
        *o++ = '-';
    return (size_t)(gsvm_decimal_u32(o, i < 0 ? 0u - (uint32_t)i : (uint32_t)i) - out);
}

void lsl_value_append_text(gsvm_buf *b, const lsl_value *v, bool list_style)
{
    int d = list_style ? 6 : 5;
    switch (v->type) {
    case LSL_TYPE_INTEGER: {
        char t[12];
        gsvm_buf_append(b, t, int_text(v->u.i, t));
        break;
    }
    case LSL_TYPE_FLOAT: lsl_format_float(b, v->u.f, 6); break;
    case LSL_TYPE_STRING:
    case LSL_TYPE_KEY: gsvm_buf_append(b, lsl_str_data(v), lsl_str_len(v)); break;
    case LSL_TYPE_VECTOR:
    case LSL_TYPE_ROTATION: {
        int n = v->type == LSL_TYPE_VECTOR ? 3 : 4;
        gsvm_buf_putc(b, '<');
        for (int k = 0; k < n; k++) {
            if (k)
                gsvm_buf_puts(b, ", ");
            lsl_format_float(b, v->u.v[k], d);
        }
        gsvm_buf_putc(b, '>');
        break;
    }
    case LSL_TYPE_LIST:
        for (size_t i = 0; i < lsl_list_len(v); i++)
            lsl_value_append_text(b, &v->u.l->items[i], true);
        break;
    default: break;
    }
}

/* ---- casts --------------------------------------------------------------- */

bool lsl_cast_allowed(lsl_type from, lsl_type to)
{
    if (from == LSL_TYPE_VOID || to == LSL_TYPE_VOID)
        return false;
    if (from == to || to == LSL_TYPE_STRING || to == LSL_TYPE_LIST)
        return true;
    switch (to) {
    case LSL_TYPE_INTEGER:
    case LSL_TYPE_FLOAT:
        return from == LSL_TYPE_INTEGER || from == LSL_TYPE_FLOAT || from == LSL_TYPE_STRING;
    case LSL_TYPE_KEY:
    case LSL_TYPE_VECTOR:
    case LSL_TYPE_ROTATION:
        return from == LSL_TYPE_STRING;
    default: return false;
    }
}

gsvm_status lsl_value_cast(lsl_heap *h, const lsl_value *v, lsl_type to, lsl_value *out,
                           gsvm_error *err)
{
    if (!lsl_cast_allowed(v->type, to))
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "cannot cast %s to %s",
                              lsl_type_name(v->type), lsl_type_name(to));
    if (v->type == to) {
        *out = *v;
        lsl_value_retain(out);
        return GSVM_OK;
    }
    bool text = v->type == LSL_TYPE_STRING || v->type == LSL_TYPE_KEY;
    const char *s = text ? lsl_str_data(v) : "";
    size_t n = text ? lsl_str_len(v) : 0;
    switch (to) {
    case LSL_TYPE_INTEGER:
        *out = lsl_int(v->type == LSL_TYPE_FLOAT ? lsl_float_to_int(v->u.f) : lsl_string_to_int(s, n));
        return GSVM_OK;
    case LSL_TYPE_FLOAT:
        *out = lsl_float(v->type == LSL_TYPE_INTEGER ? (float)v->u.i : lsl_string_to_float(s, n));
        return GSVM_OK;
    case LSL_TYPE_VECTOR: {
        float c[3];
        lsl_string_to_vector(s, n, c);
        *out = lsl_vector(c[0], c[1], c[2]);
        return GSVM_OK;
    }
    case LSL_TYPE_ROTATION: {
        float c[4];
        lsl_string_to_rotation(s, n, c);
        *out = lsl_rotation(c[0], c[1], c[2], c[3]);
        return GSVM_OK;
    }
    case LSL_TYPE_KEY:
        *out = *v;
        out->type = LSL_TYPE_KEY;
        lsl_value_retain(out);
        return GSVM_OK;
    case LSL_TYPE_STRING:
        if (v->type == LSL_TYPE_KEY) {
            *out = *v;
            out->type = LSL_TYPE_STRING;
            lsl_value_retain(out);
            return GSVM_OK;
        } else if (v->type == LSL_TYPE_INTEGER) {
            char t[12];
            return lsl_string_new(h, LSL_TYPE_STRING, t, int_text(v->u.i, t), out, err);
        } else {
            gsvm_buf b;
            gsvm_buf_init(&b);
            lsl_value_append_text(&b, v, false);
            return lsl_string_from_buf(h, LSL_TYPE_STRING, &b, out, err);
        }
    case LSL_TYPE_LIST:
        return lsl_list_new(h, v, 1, out, err);
    default:
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "cannot cast to %s", lsl_type_name(to));
    }
}
