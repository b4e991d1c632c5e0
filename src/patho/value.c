/* Typed values of the Pathologic VM and the operators over them.  See
 * value.h for the type rules. */
#include "patho/value.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- construction ----------------------------------------------------- */

gsvm_patho_value gsvm_patho_bool(bool b)
{
    gsvm_patho_value v;
    memset(&v, 0, sizeof v);
    v.type = GSVM_PATHO_BOOL;
    v.as.b = b;
    return v;
}

gsvm_patho_value gsvm_patho_int(int32_t i)
{
    gsvm_patho_value v;
    memset(&v, 0, sizeof v);
    v.type = GSVM_PATHO_INT;
    v.as.i = i;
    return v;
}

gsvm_patho_value gsvm_patho_float(float f)
{
    gsvm_patho_value v;
    memset(&v, 0, sizeof v);
    v.type = GSVM_PATHO_FLOAT;
    v.as.f = f;
    return v;
}

gsvm_patho_value gsvm_patho_object(uint32_t handle)
{
    gsvm_patho_value v;
    memset(&v, 0, sizeof v);
    v.type = GSVM_PATHO_OBJECT;
    v.as.object = handle;
    return v;
}

gsvm_patho_value gsvm_patho_cvector(float x, float y, float z)
{
    gsvm_patho_value v;
    memset(&v, 0, sizeof v);
    v.type = GSVM_PATHO_CVECTOR;
    v.as.v[0] = x;
    v.as.v[1] = y;
    v.as.v[2] = z;
    return v;
}

bool gsvm_patho_value_default(gsvm_patho_value *out, int type)
{
    memset(out, 0, sizeof *out);
    if (type < GSVM_PATHO_BOOL || type > GSVM_PATHO_CVECTOR) {
        out->type = GSVM_PATHO_BOOL;
        return false;
    }
    out->type = (uint8_t)type;
    return true;
}

void gsvm_patho_value_free(gsvm_patho_value *v)
{
    if (v->type == GSVM_PATHO_STRING)
        free(v->as.s.units);
    memset(v, 0, sizeof *v);
    v->type = GSVM_PATHO_BOOL;
}

/* A string value owning a copy of `len` units. */
static gsvm_status make_string(gsvm_patho_value *out, const uint16_t *units, size_t len)
{
    memset(out, 0, sizeof *out);
    out->type = GSVM_PATHO_STRING;
    if (len > GSVM_PATHO_MAX_STRING)
        return GSVM_ERR_LIMIT;
    if (len) {
        out->as.s.units = malloc(len * sizeof(uint16_t));
        if (!out->as.s.units) {
            out->type = GSVM_PATHO_BOOL;
            return GSVM_ERR_NOMEM;
        }
        memcpy(out->as.s.units, units, len * sizeof(uint16_t));
    }
    out->as.s.len = (uint32_t)len;
    return GSVM_OK;
}

gsvm_status gsvm_patho_value_copy(gsvm_patho_value *out, const gsvm_patho_value *src)
{
    if (src->type == GSVM_PATHO_STRING)
        return make_string(out, src->as.s.units, src->as.s.len);
    *out = *src;
    return GSVM_OK;
}

/* A type's name for messages ("?" for a byte that is no type). */
static const char *tname(int type)
{
    const char *n = gsvm_patho_type_name((unsigned)type);
    return n ? n : "?";
}

/* ---- UTF-8 <-> UTF-16 -------------------------------------------------- */

/* Decodes one UTF-8 sequence at s[*i] (bounded by n); U+FFFD for bad bytes. */
static uint32_t utf8_next(const unsigned char *s, size_t n, size_t *i)
{
    unsigned c = s[*i];
    size_t need;
    uint32_t cp, min;
    if (c < 0x80) {
        (*i)++;
        return c;
    } else if ((c & 0xE0) == 0xC0) {
        need = 1, cp = c & 0x1F, min = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
        need = 2, cp = c & 0x0F, min = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
        need = 3, cp = c & 0x07, min = 0x10000;
    } else {
        (*i)++;
        return 0xFFFD;
    }
    if (n - *i <= need) { /* not enough bytes left */
        (*i)++;
        return 0xFFFD;
    }
    for (size_t k = 1; k <= need; k++) {
        unsigned cc = s[*i + k];
        if ((cc & 0xC0) != 0x80) {
            (*i)++;
            return 0xFFFD;
        }
        cp = (cp << 6) | (cc & 0x3F);
    }
    *i += need + 1;
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0xFFFD;
    return cp;
}

gsvm_status gsvm_patho_string_utf8(gsvm_patho_value *out, const char *utf8, size_t len)
{
    const unsigned char *s = (const unsigned char *)utf8;
    /* At most one unit per byte. */
    uint16_t *units = malloc((len ? len : 1) * sizeof(uint16_t));
    if (!units) {
        gsvm_patho_value_default(out, GSVM_PATHO_STRING);
        return GSVM_ERR_NOMEM;
    }
    size_t n = 0, i = 0;
    while (i < len) {
        uint32_t cp = utf8_next(s, len, &i);
        if (cp >= 0x10000) {
            cp -= 0x10000;
            units[n++] = (uint16_t)(0xD800 + (cp >> 10));
            units[n++] = (uint16_t)(0xDC00 + (cp & 0x3FF));
        } else {
            units[n++] = (uint16_t)cp;
        }
    }
    gsvm_status st = make_string(out, units, n);
    free(units);
    if (st != GSVM_OK)
        gsvm_patho_value_default(out, GSVM_PATHO_STRING);
    return st;
}

char *gsvm_patho_string_to_utf8(const gsvm_patho_value *v, size_t *len)
{
    if (v->type != GSVM_PATHO_STRING)
        return NULL;
    const uint16_t *u = v->as.s.units;
    size_t n = v->as.s.len;
    char *out = malloc(n * 3 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t cp = u[i];
        if (cp >= 0xD800 && cp <= 0xDBFF && i + 1 < n && u[i + 1] >= 0xDC00 && u[i + 1] <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (u[i + 1] - 0xDC00);
            i++;
        } else if (cp >= 0xD800 && cp <= 0xDFFF) {
            cp = 0xFFFD;
        }
        if (cp < 0x80) {
            out[o++] = (char)cp;
        } else if (cp < 0x800) {
            out[o++] = (char)(0xC0 | (cp >> 6));
            out[o++] = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out[o++] = (char)(0xE0 | (cp >> 12));
            out[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (cp & 0x3F));
        } else {
            /* A surrogate pair is two units, so four bytes still fit in 3*n. */
            out[o++] = (char)(0xF0 | (cp >> 18));
            out[o++] = (char)(0x80 | ((cp >> 12) & 0x3F));
            out[o++] = (char)(0x80 | ((cp >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    out[o] = 0;
    if (len)
        *len = o;
    return out;
}

/* ---- numbers ------------------------------------------------------------ */

int32_t patho_float_to_int(float f)
{
    if (isnan(f))
        return 0;
    if (f >= 2147483647.0f)
        return INT32_MAX;
    if (f <= -2147483648.0f)
        return INT32_MIN;
    return (int32_t)f;
}

void patho_format_float(float f, char *buf, size_t size)
{
    if (isnan(f)) {
        snprintf(buf, size, "nan");
        return;
    }
    if (isinf(f)) {
        snprintf(buf, size, f < 0 ? "-inf" : "inf");
        return;
    }
    /* The fewest significant digits that read back as the same float ... */
    char sci[32];
    int prec = 1;
    for (; prec <= 9; prec++) {
        snprintf(sci, sizeof sci, "%.*e", prec - 1, (double)f);
        if (strtof(sci, NULL) == f)
            break;
    }
    /* ... laid out like Python's repr: plain between 1e-4 and 1e16. */
    char digits[16];
    int nd = 0, exp = 0;
    const char *p = sci;
    bool neg = *p == '-';
    if (neg)
        p++;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9' && nd < 15)
            digits[nd++] = *p;
    if (*p == 'e')
        exp = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    digits[nd] = 0;
    char out[64];
    size_t o = 0;
    if (neg)
        out[o++] = '-';
    if (exp >= -5 && exp < 16) {
        if (exp < 0) {
            out[o++] = '0';
            out[o++] = '.';
            for (int i = 0; i < -exp - 1; i++)
                out[o++] = '0';
            for (int i = 0; i < nd; i++)
                out[o++] = digits[i];
        } else {
            for (int i = 0; i <= exp; i++)
                out[o++] = i < nd ? digits[i] : '0';
            out[o++] = '.';
            if (nd > exp + 1)
                for (int i = exp + 1; i < nd; i++)
                    out[o++] = digits[i];
            else
                out[o++] = '0';
        }
        out[o] = 0;
    } else {
        out[o++] = digits[0];
        if (nd > 1) {
            out[o++] = '.';
            for (int i = 1; i < nd; i++)
                out[o++] = digits[i];
        }
        snprintf(out + o, sizeof out - o, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    }
    snprintf(buf, size, "%s", out);
}

static bool is_number(const gsvm_patho_value *v)
{
    return v->type == GSVM_PATHO_BOOL || v->type == GSVM_PATHO_INT || v->type == GSVM_PATHO_FLOAT;
}

static float as_float(const gsvm_patho_value *v)
{
    switch (v->type) {
    case GSVM_PATHO_BOOL: return v->as.b ? 1.0f : 0.0f;
    case GSVM_PATHO_INT: return (float)v->as.i;
    case GSVM_PATHO_FLOAT: return v->as.f;
    default: return 0.0f;
    }
}

static int32_t as_int(const gsvm_patho_value *v)
{
    switch (v->type) {
    case GSVM_PATHO_BOOL: return v->as.b ? 1 : 0;
    case GSVM_PATHO_INT: return v->as.i;
    case GSVM_PATHO_FLOAT: return patho_float_to_int(v->as.f);
    default: return 0;
    }
}

bool patho_value_truth(const gsvm_patho_value *v, bool *out)
{
    switch (v->type) {
    case GSVM_PATHO_BOOL: *out = v->as.b; return true;
    case GSVM_PATHO_INT: *out = v->as.i != 0; return true;
    case GSVM_PATHO_FLOAT: *out = v->as.f != 0.0f; return true;
    default: return false;
    }
}

/* ---- assignment (the destination's Set) -------------------------------- */

gsvm_status gsvm_patho_value_assign(gsvm_patho_value *dst, const gsvm_patho_value *src, char *msg,
                                    size_t msg_size)
{
    if (dst == src)
        return GSVM_OK;
    switch (dst->type) {
    case GSVM_PATHO_BOOL:
        if (is_number(src)) {
            bool b = false;
            patho_value_truth(src, &b);
            dst->as.b = b;
            return GSVM_OK;
        }
        break;
    case GSVM_PATHO_INT:
        if (is_number(src)) {
            dst->as.i = as_int(src);
            return GSVM_OK;
        }
        break;
    case GSVM_PATHO_FLOAT:
        if (is_number(src)) {
            dst->as.f = as_float(src);
            return GSVM_OK;
        }
        break;
    case GSVM_PATHO_STRING:
        if (src->type == GSVM_PATHO_STRING) {
            gsvm_patho_value copy;
            gsvm_status st = make_string(&copy, src->as.s.units, src->as.s.len);
            if (st != GSVM_OK) {
                if (msg)
                    snprintf(msg, msg_size, "Out of memory");
                return st;
            }
            free(dst->as.s.units);
            *dst = copy;
            return GSVM_OK;
        }
        break;
    case GSVM_PATHO_OBJECT:
        if (src->type == GSVM_PATHO_OBJECT) {
            dst->as.object = src->as.object;
            return GSVM_OK;
        }
        break;
    case GSVM_PATHO_CVECTOR:
        if (src->type == GSVM_PATHO_CVECTOR) {
            memcpy(dst->as.v, src->as.v, sizeof dst->as.v);
            return GSVM_OK;
        }
        break;
    default:
        break;
    }
    if (msg)
        snprintf(msg, msg_size, "Type mismatch: cannot assign %s to %s",
                 tname(src->type), tname(dst->type));
    return GSVM_ERR_FAULT;
}

/* ---- operators ---------------------------------------------------------- */

const char *patho_binop_symbol(patho_binop op)
{
    static const char *const names[] = {"+", "-", "*", "/", "%", "&", "|", "^",
                                        "==", "!=", "<", ">", "<=", ">=", "Pow"};
    return (unsigned)op < sizeof names / sizeof names[0] ? names[op] : "?";
}

const char *patho_unop_name(patho_unop op)
{
    static const char *const names[] = {"NullEq", "NullNeq", "Neg", "Not", "Sqrt",
                                        "Sin",    "Cos",     "ASin", "CString"};
    return (unsigned)op < sizeof names / sizeof names[0] ? names[op] : "?";
}

static gsvm_status mismatch2(patho_binop op, const gsvm_patho_value *a, const gsvm_patho_value *b,
                             char *msg, size_t msg_size)
{
    snprintf(msg, msg_size, "Type mismatch in '%s' (%s, %s)", patho_binop_symbol(op),
             tname(a->type), tname(b->type));
    return GSVM_ERR_FAULT;
}

/* The text a value contributes to string concatenation, as UTF-16 units
 * appended to `out` (at most GSVM_PATHO_MAX_STRING + 1 units are kept). */
static size_t text_of(const gsvm_patho_value *v, uint16_t *out, size_t cap)
{
    char tmp[64];
    switch (v->type) {
    case GSVM_PATHO_STRING: {
        size_t n = v->as.s.len < cap ? v->as.s.len : cap;
        if (n)
            memcpy(out, v->as.s.units, n * sizeof(uint16_t));
        return n;
    }
    case GSVM_PATHO_BOOL: snprintf(tmp, sizeof tmp, "%s", v->as.b ? "true" : "false"); break;
    case GSVM_PATHO_INT: snprintf(tmp, sizeof tmp, "%d", (int)v->as.i); break;
    case GSVM_PATHO_FLOAT: patho_format_float(v->as.f, tmp, sizeof tmp); break;
    default: tmp[0] = 0; break;
    }
    size_t n = 0;
    for (; tmp[n] && n < cap; n++)
        out[n] = (uint16_t)(unsigned char)tmp[n];
    return n;
}

static gsvm_status concat(const gsvm_patho_value *a, const gsvm_patho_value *b,
                          gsvm_patho_value *out, char *msg, size_t msg_size)
{
    size_t cap = GSVM_PATHO_MAX_STRING + 1;
    uint16_t *buf = malloc(cap * sizeof(uint16_t));
    if (!buf) {
        snprintf(msg, msg_size, "Out of memory");
        return GSVM_ERR_NOMEM;
    }
    size_t n = text_of(a, buf, cap);
    n += text_of(b, buf + n, cap - n);
    gsvm_status st = GSVM_OK;
    if (n > GSVM_PATHO_MAX_STRING) {
        snprintf(msg, msg_size, "String too long (more than %u characters)", GSVM_PATHO_MAX_STRING);
        st = GSVM_ERR_LIMIT;
    } else {
        st = make_string(out, buf, n);
        if (st != GSVM_OK)
            snprintf(msg, msg_size, "Out of memory");
    }
    free(buf);
    return st;
}

static int compare_units(const gsvm_patho_value *a, const gsvm_patho_value *b)
{
    uint32_t n = a->as.s.len < b->as.s.len ? a->as.s.len : b->as.s.len;
    for (uint32_t i = 0; i < n; i++)
        if (a->as.s.units[i] != b->as.s.units[i])
            return a->as.s.units[i] < b->as.s.units[i] ? -1 : 1;
    return a->as.s.len == b->as.s.len ? 0 : (a->as.s.len < b->as.s.len ? -1 : 1);
}

/* Wrapping int arithmetic without undefined behaviour. */
static int32_t wrap(uint32_t u)
{
    return u <= INT32_MAX ? (int32_t)u : (int32_t)(u - 0x80000000u) - INT32_MAX - 1;
}

static gsvm_status number_op(patho_binop op, const gsvm_patho_value *a, const gsvm_patho_value *b,
                             gsvm_patho_value *out, char *msg, size_t msg_size)
{
    /* bool takes no part in arithmetic (only in logic and comparisons). */
    if (a->type == GSVM_PATHO_BOOL || b->type == GSVM_PATHO_BOOL)
        return mismatch2(op, a, b, msg, msg_size);
    if (a->type == GSVM_PATHO_INT && b->type == GSVM_PATHO_INT) {
        uint32_t x = (uint32_t)a->as.i, y = (uint32_t)b->as.i;
        switch (op) {
        case PATHO_ADD: *out = patho_mk_int(wrap(x + y)); return GSVM_OK;
        case PATHO_SUB: *out = patho_mk_int(wrap(x - y)); return GSVM_OK;
        case PATHO_MUL: *out = patho_mk_int(wrap(x * y)); return GSVM_OK;
        case PATHO_DIV:
        case PATHO_MOD:
            if (b->as.i == 0) {
                snprintf(msg, msg_size, "Division by zero");
                return GSVM_ERR_FAULT;
            }
            if (a->as.i == INT32_MIN && b->as.i == -1)
                *out = patho_mk_int(op == PATHO_DIV ? INT32_MIN : 0);
            else
                *out = patho_mk_int(op == PATHO_DIV ? a->as.i / b->as.i : a->as.i % b->as.i);
            return GSVM_OK;
        default: break;
        }
    }
    float x = as_float(a), y = as_float(b);
    switch (op) {
    case PATHO_ADD: *out = patho_mk_float(x + y); return GSVM_OK;
    case PATHO_SUB: *out = patho_mk_float(x - y); return GSVM_OK;
    case PATHO_MUL: *out = patho_mk_float(x * y); return GSVM_OK;
    case PATHO_DIV: *out = patho_mk_float(x / y); return GSVM_OK;
    case PATHO_MOD: *out = patho_mk_float(fmodf(x, y)); return GSVM_OK;
    case PATHO_POW: *out = patho_mk_float(powf(x, y)); return GSVM_OK;
    default: return mismatch2(op, a, b, msg, msg_size);
    }
}

static gsvm_status vector_op(patho_binop op, const gsvm_patho_value *a, const gsvm_patho_value *b,
                             gsvm_patho_value *out, char *msg, size_t msg_size)
{
    bool av = a->type == GSVM_PATHO_CVECTOR, bv = b->type == GSVM_PATHO_CVECTOR;
    const float *p = a->as.v, *q = b->as.v;
    if (av && bv) {
        switch (op) {
        case PATHO_ADD: *out = patho_mk_cvector(p[0] + q[0], p[1] + q[1], p[2] + q[2]); return GSVM_OK;
        case PATHO_SUB: *out = patho_mk_cvector(p[0] - q[0], p[1] - q[1], p[2] - q[2]); return GSVM_OK;
        case PATHO_OR: *out = patho_mk_float(p[0] * q[0] + p[1] * q[1] + p[2] * q[2]); return GSVM_OK;
        case PATHO_XOR:
            *out = patho_mk_cvector(p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2],
                                      p[0] * q[1] - p[1] * q[0]);
            return GSVM_OK;
        case PATHO_EQ:
        case PATHO_NEQ: {
            bool eq = p[0] == q[0] && p[1] == q[1] && p[2] == q[2];
            *out = patho_mk_bool(op == PATHO_EQ ? eq : !eq);
            return GSVM_OK;
        }
        default: break;
        }
    } else if (av && (b->type == GSVM_PATHO_INT || b->type == GSVM_PATHO_FLOAT)) {
        float s = as_float(b);
        if (op == PATHO_MUL) {
            *out = patho_mk_cvector(p[0] * s, p[1] * s, p[2] * s);
            return GSVM_OK;
        }
        if (op == PATHO_DIV) {
            *out = patho_mk_cvector(p[0] / s, p[1] / s, p[2] / s);
            return GSVM_OK;
        }
    } else if (bv && (a->type == GSVM_PATHO_INT || a->type == GSVM_PATHO_FLOAT) && op == PATHO_MUL) {
        float s = as_float(a);
        *out = patho_mk_cvector(q[0] * s, q[1] * s, q[2] * s);
        return GSVM_OK;
    }
    return mismatch2(op, a, b, msg, msg_size);
}

gsvm_status patho_binop_apply(patho_binop op, const gsvm_patho_value *a, const gsvm_patho_value *b,
                              gsvm_patho_value *out, char *msg, size_t msg_size)
{
    /* The common case first: int with int. */
    if (a->type == GSVM_PATHO_INT && b->type == GSVM_PATHO_INT) {
        int32_t x = a->as.i, y = b->as.i;
        switch (op) {
        case PATHO_ADD: *out = patho_mk_int(wrap((uint32_t)x + (uint32_t)y)); return GSVM_OK;
        case PATHO_SUB: *out = patho_mk_int(wrap((uint32_t)x - (uint32_t)y)); return GSVM_OK;
        case PATHO_LT: *out = patho_mk_bool(x < y); return GSVM_OK;
        case PATHO_GT: *out = patho_mk_bool(x > y); return GSVM_OK;
        case PATHO_LE: *out = patho_mk_bool(x <= y); return GSVM_OK;
        case PATHO_GE: *out = patho_mk_bool(x >= y); return GSVM_OK;
        case PATHO_EQ: *out = patho_mk_bool(x == y); return GSVM_OK;
        case PATHO_NEQ: *out = patho_mk_bool(x != y); return GSVM_OK;
        default: break;
        }
    }
    bool an = is_number(a), bn = is_number(b);
    if (a->type == GSVM_PATHO_CVECTOR || b->type == GSVM_PATHO_CVECTOR)
        return vector_op(op, a, b, out, msg, msg_size);
    switch (op) {
    case PATHO_ADD:
        if ((a->type == GSVM_PATHO_STRING && (bn || b->type == GSVM_PATHO_STRING)) ||
            (b->type == GSVM_PATHO_STRING && an))
            return concat(a, b, out, msg, msg_size);
        /* fall through */
    case PATHO_SUB:
    case PATHO_MUL:
    case PATHO_DIV:
    case PATHO_MOD:
    case PATHO_POW:
        if (an && bn)
            return number_op(op, a, b, out, msg, msg_size);
        break;
    case PATHO_AND:
    case PATHO_OR:
    case PATHO_XOR:
        if (a->type == GSVM_PATHO_BOOL && b->type == GSVM_PATHO_BOOL) {
            bool x = a->as.b, y = b->as.b;
            *out = patho_mk_bool(op == PATHO_AND ? (x && y) : op == PATHO_OR ? (x || y) : (x != y));
            return GSVM_OK;
        }
        if ((a->type == GSVM_PATHO_INT || a->type == GSVM_PATHO_BOOL) &&
            (b->type == GSVM_PATHO_INT || b->type == GSVM_PATHO_BOOL)) {
            uint32_t x = (uint32_t)as_int(a), y = (uint32_t)as_int(b);
            *out = patho_mk_int(wrap(op == PATHO_AND ? (x & y) : op == PATHO_OR ? (x | y) : (x ^ y)));
            return GSVM_OK;
        }
        break;
    case PATHO_EQ:
    case PATHO_NEQ: {
        bool eq;
        if (an && bn) {
            if (a->type == GSVM_PATHO_FLOAT || b->type == GSVM_PATHO_FLOAT)
                eq = as_float(a) == as_float(b);
            else
                eq = as_int(a) == as_int(b);
        } else if (a->type == GSVM_PATHO_STRING && b->type == GSVM_PATHO_STRING) {
            eq = compare_units(a, b) == 0;
        } else if (a->type == GSVM_PATHO_OBJECT && b->type == GSVM_PATHO_OBJECT) {
            eq = a->as.object == b->as.object;
        } else {
            break;
        }
        *out = patho_mk_bool(op == PATHO_EQ ? eq : !eq);
        return GSVM_OK;
    }
    case PATHO_LT:
    case PATHO_GT:
    case PATHO_LE:
    case PATHO_GE: {
        int c;
        if (an && bn) {
            if (a->type == GSVM_PATHO_FLOAT || b->type == GSVM_PATHO_FLOAT) {
                float x = as_float(a), y = as_float(b);
                if (x != x || y != y) { /* NaN: every ordering is false */
                    *out = patho_mk_bool(false);
                    return GSVM_OK;
                }
                c = x < y ? -1 : x > y ? 1 : 0;
            } else {
                int32_t x = as_int(a), y = as_int(b);
                c = x < y ? -1 : x > y ? 1 : 0;
            }
        } else if (a->type == GSVM_PATHO_STRING && b->type == GSVM_PATHO_STRING) {
            c = compare_units(a, b);
        } else {
            break;
        }
        bool r = op == PATHO_LT ? c < 0 : op == PATHO_GT ? c > 0 : op == PATHO_LE ? c <= 0 : c >= 0;
        *out = patho_mk_bool(r);
        return GSVM_OK;
    }
    }
    return mismatch2(op, a, b, msg, msg_size);
}

gsvm_status patho_unop_apply(patho_unop op, const gsvm_patho_value *a, gsvm_patho_value *out,
                             char *msg, size_t msg_size)
{
    switch (op) {
    case PATHO_NULLEQ:
    case PATHO_NULLNEQ:
        if (a->type == GSVM_PATHO_OBJECT) {
            bool null = a->as.object == 0;
            *out = patho_mk_bool(op == PATHO_NULLEQ ? null : !null);
            return GSVM_OK;
        }
        break;
    case PATHO_NEG:
        if (a->type == GSVM_PATHO_INT) {
            *out = patho_mk_int(wrap(0u - (uint32_t)a->as.i));
            return GSVM_OK;
        }
        if (a->type == GSVM_PATHO_FLOAT) {
            *out = patho_mk_float(-a->as.f);
            return GSVM_OK;
        }
        if (a->type == GSVM_PATHO_CVECTOR) {
            *out = patho_mk_cvector(-a->as.v[0], -a->as.v[1], -a->as.v[2]);
            return GSVM_OK;
        }
        break;
    case PATHO_NOT: {
        /* `!obj` is a null test: the 2005 compiler emits Not on an object
         * (HD quest_k4_01_cutscene), as JumpB tests one for `if (obj)`. */
        bool t;
        if (a->type == GSVM_PATHO_OBJECT) {
            *out = patho_mk_bool(a->as.object == 0);
            return GSVM_OK;
        }
        if (patho_value_truth(a, &t)) {
            *out = patho_mk_bool(!t);
            return GSVM_OK;
        }
        break;
    }
    case PATHO_SQRT:
    case PATHO_SIN:
    case PATHO_COS:
    case PATHO_ASIN:
        if (a->type == GSVM_PATHO_INT || a->type == GSVM_PATHO_FLOAT) {
            float x = as_float(a);
            float r = op == PATHO_SQRT ? sqrtf(x) : op == PATHO_SIN ? sinf(x)
                    : op == PATHO_COS  ? cosf(x)
                                       : asinf(x);
            *out = patho_mk_float(r);
            return GSVM_OK;
        }
        break;
    case PATHO_CSTRING:
        if (a->type == GSVM_PATHO_INT) {
            uint16_t unit = (uint16_t)((uint32_t)a->as.i & 0xFFFFu);
            gsvm_status st = make_string(out, &unit, 1);
            if (st != GSVM_OK)
                snprintf(msg, msg_size, "Out of memory");
            return st;
        }
        snprintf(msg, msg_size, "Type mismatch when converting to char-string");
        return GSVM_ERR_FAULT;
    }
    snprintf(msg, msg_size, "Type mismatch in '%s' (%s)", patho_unop_name(op),
             tname(a->type));
    return GSVM_ERR_FAULT;
}
