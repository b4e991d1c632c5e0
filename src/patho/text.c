#include "patho/text.h"

#include "base/decimal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEX_ROW(h)                                                                          \
    {h, '0'}, {h, '1'}, {h, '2'}, {h, '3'}, {h, '4'}, {h, '5'}, {h, '6'}, {h, '7'}, {h, '8'}, \
        {h, '9'}, {h, 'a'}, {h, 'b'}, {h, 'c'}, {h, 'd'}, {h, 'e'}, {h, 'f'}
const char patho_hex_pairs[256][2] = {
    HEX_ROW('0'), HEX_ROW('1'), HEX_ROW('2'), HEX_ROW('3'), HEX_ROW('4'), HEX_ROW('5'),
    HEX_ROW('6'), HEX_ROW('7'), HEX_ROW('8'), HEX_ROW('9'), HEX_ROW('a'), HEX_ROW('b'),
    HEX_ROW('c'), HEX_ROW('d'), HEX_ROW('e'), HEX_ROW('f'),
};
#undef HEX_ROW

bool patho_parse_float_exact(const char *s, size_t n, float *out)
{
#if FLT_EVAL_METHOD == 0
    /* [+-]digits[.digits] whose digits, without the point, make an integer
     * m <= 2^24 with at most 10 decimals: m and 10^d are then both exact
     * floats, and IEEE division rounds their quotient correctly, so
     * m / 10^d is exactly what strtof would return (Clinger's fast path).
     * Covers nearly every literal in the scripts without strtof's cost. */
    static const float pow10f[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f,
                                   1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
    const char *e = s + n;
    bool neg = false;
    if (s < e && (*s == '-' || *s == '+'))
        neg = *s++ == '-';
    uint32_t m = 0;
    int digits = 0, decimals = -1;
    for (; s < e; s++) {
        if (*s == '.' && decimals < 0) {
            decimals = 0;
            continue;
        }
        unsigned d = (unsigned)(*s - '0');
        if (d > 9 || m > (1u << 24) / 10)
            return false;
        m = m * 10 + d;
        digits++;
        if (decimals >= 0 && ++decimals > 10)
            return false;
    }
    if (!digits || m > (1u << 24))
        return false;
    float f = (float)m / pow10f[decimals < 0 ? 0 : decimals];
    *out = neg ? -f : f;
    return true;
#else
    (void)s;
    (void)n;
    (void)out;
    return false;
#endif
}

float patho_parse_float(const char *s, size_t n, bool *ok)
{
    float f;
    if (patho_parse_float_exact(s, n, &f)) {
        *ok = true;
        return f;
    }
    char tmp[64];
    if (n >= sizeof tmp) {
        *ok = false;
        return 0;
    }
    memcpy(tmp, s, n);
    tmp[n] = 0;
    char *end;
    f = strtof(tmp, &end);
    *ok = !*end && end != tmp;
    return f;
}

void patho_put_float(gsvm_buf *b, uint32_t bits)
{
    float f = gsvm_patho_f32(bits);
    if (!isfinite(f)) {
        gsvm_buf_printf(b, "f32:0x%08x", bits);
        return;
    }
    if (f > -1e7f && f < 1e7f && f == (float)(int32_t)f && !(f == 0 && (bits >> 31))) {
        /* whole numbers (most literals in scripts): no formatting loop */
        patho_put_d(b, (int32_t)f);
        pb_put(b, ".0", 2);
        return;
    }
    /* few decimals (0.5, 0.05, 12.25): written directly and checked by
     * reading back, the same text the loop below would find, far cheaper.
     * Up to 8 decimals (f * 10^8 is still exact in a double) when |f| >=
     * 0.001, where %g would not switch to an exponent either. */
    if (f > -1e7f && f < 1e7f) {
        double scale = 1;
        int maxd = (f >= 1e-3f || f <= -1e-3f) ? 8 : 4;
        for (int d = 1; d <= maxd; d++) {
            scale *= 10;
            double m = (double)f * scale;
            /* m is exact: a tie rounds up (away from zero) with up to 4
             * decimals, as ever, and to even beyond, as %g below does */
            double am = m < 0 ? -m : m, fl = floor(am), fr = am - fl;
            long long ai = (long long)fl + (fr > 0.5 || (fr == 0.5 && (d <= 4 || ((long long)fl & 1))));
            long long mi = m < 0 ? -ai : ai;
            if (mi == 0 || (mi % 10) == 0)
                continue; /* a shorter form was already tried, or too small */
#if FLT_EVAL_METHOD == 0
            /* the text would have at most 2^24 as its digits: it then reads
             * back as (float)ai / 10^d (patho_parse_float_exact), so a
             * candidate that misses is dropped without being written */
            static const float pow10f[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f,
                                           1e5f, 1e6f, 1e7f, 1e8f};
            if (ai <= (1 << 24)) {
                float back = (float)ai / pow10f[d];
                if (gsvm_patho_f32_bits(mi < 0 ? -back : back) != bits)
                    continue;
            }
#endif
            /* "-ip.fp" with fp as exactly d digits, written by hand */
            char num[32];
            int len = 0;
            unsigned long long a = (unsigned long long)(mi < 0 ? -mi : mi);
            unsigned long long ip = a / (unsigned long long)scale, fp = a % (unsigned long long)scale;
            if (mi < 0)
                num[len++] = '-';
            len = (int)(gsvm_decimal_u64(num + len, ip) - num);
            num[len++] = '.';
            for (int k = d - 1; k >= 0; k--, fp /= 10)
                num[len + k] = (char)('0' + fp % 10);
            len += d;
            bool ok;
            float back = patho_parse_float(num, (size_t)len, &ok);
            if (ok && gsvm_patho_f32_bits(back) == bits) {
                pb_put(b, num, (size_t)len);
                return;
            }
        }
    }
    char tmp[48];
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, (double)f);
        if (gsvm_patho_f32_bits(strtof(tmp, NULL)) == bits)
            break;
    }
    /* Keep a float visibly a float: "1" -> "1.0". */
    if (!strpbrk(tmp, ".eEn"))
        strcat(tmp, ".0");
    pb_puts(b, tmp);
}

uint32_t patho_pool_string_size(const uint8_t *pool, uint32_t size, uint32_t off, bool wide)
{
    if (off >= size)
        return 0;
    if (wide) {
        for (uint32_t i = off; i + 1 < size; i += 2)
            if (pool[i] == 0 && pool[i + 1] == 0)
                return i + 2 - off;
        return 0;
    }
    const uint8_t *z = memchr(pool + off, 0, size - off);
    return z ? (uint32_t)(z - (pool + off)) + 1 : 0;
}

static void put_char(gsvm_buf *b, unsigned c, bool wide)
{
    switch (c) {
    case '"': pb_puts(b, "\\\""); return;
    case '\\': pb_puts(b, "\\\\"); return;
    case '\n': pb_puts(b, "\\n"); return;
    case '\t': pb_puts(b, "\\t"); return;
    case '\r': pb_puts(b, "\\r"); return;
    }
    if (c >= 0x20 && c < 0x7F) {
        pb_putc(b, (char)c);
    } else {
        pb_put(b, wide ? "\\u" : "\\x", 2);
        patho_put_hex(b, c, wide ? 4 : 2);
    }
}

/* Printable ASCII that stands for itself in a quoted literal. */
static const uint8_t plain_char[256] = {
#define P4(c) [c] = 1, [c + 1] = 1, [c + 2] = 1, [c + 3] = 1
    [0x20] = 1, [0x21] = 1, /* not 0x22 '"' */ [0x23] = 1, P4(0x24), P4(0x28), P4(0x2C),
    P4(0x30), P4(0x34), P4(0x38), P4(0x3C), P4(0x40), P4(0x44), P4(0x48), P4(0x4C), P4(0x50),
    P4(0x54), P4(0x58), /* not 0x5C '\\' */ [0x5D] = 1, [0x5E] = 1, [0x5F] = 1, P4(0x60),
    P4(0x64), P4(0x68), P4(0x6C), P4(0x70), P4(0x74), P4(0x78), [0x7C] = 1, [0x7D] = 1, [0x7E] = 1,
#undef P4
};

/* The common case of patho_put_pool_string in one pass: a string of
 * plain characters (no escapes) ending within the next 256 units, copied
 * as it is scanned.  Returns false, having written nothing, otherwise. */
static bool put_plain_string(gsvm_buf *b, const uint8_t *pool, uint32_t size, uint32_t off,
                             bool wide)
{
    enum { MAX_UNITS = 256 };
    if (!pb_room(b, MAX_UNITS + 2))
        return false;
    uint8_t *w0 = b->data + b->len, *w = w0;
    *w++ = '"';
    uint32_t i = off;
    if (wide) {
        uint32_t stop = size - off > 2 * MAX_UNITS + 1 ? off + 2 * MAX_UNITS + 1 : size;
        for (; i + 1 < stop && !pool[i + 1] && plain_char[pool[i]]; i += 2)
            *w++ = pool[i];
        if (!(i + 1 < stop && !pool[i] && !pool[i + 1]))
            return false;
    } else {
        uint32_t stop = size - off > MAX_UNITS ? off + MAX_UNITS : size;
        for (; i < stop && plain_char[pool[i]]; i++)
            *w++ = pool[i];
        if (!(i < stop && !pool[i]))
            return false;
    }
    *w++ = '"';
    b->len += (size_t)(w - w0);
    return true;
}

bool patho_put_pool_string(gsvm_buf *b, const uint8_t *pool, uint32_t size, uint32_t off,
                           bool wide)
{
    if (off < size && put_plain_string(b, pool, size, off, wide))
        return true;
    uint32_t n = patho_pool_string_size(pool, size, off, wide);
    if (!n)
        return false;
    pb_putc(b, '"');
    if (wide)
        for (uint32_t i = off; i + 2 < off + n; i += 2)
            put_char(b, (unsigned)pool[i] | (unsigned)pool[i + 1] << 8, true);
    else
        for (uint32_t i = off; i + 1 < off + n; i++)
            put_char(b, pool[i], false);
    pb_putc(b, '"');
    return true;
}

/* [A-Za-z0-9_]: 1; [A-Za-z_] (may start a bare name): 3 */
static const uint8_t name_char[256] = {
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
    ['8'] = 1, ['9'] = 1, ['_'] = 3,
    ['A'] = 3, ['B'] = 3, ['C'] = 3, ['D'] = 3, ['E'] = 3, ['F'] = 3, ['G'] = 3, ['H'] = 3,
    ['I'] = 3, ['J'] = 3, ['K'] = 3, ['L'] = 3, ['M'] = 3, ['N'] = 3, ['O'] = 3, ['P'] = 3,
    ['Q'] = 3, ['R'] = 3, ['S'] = 3, ['T'] = 3, ['U'] = 3, ['V'] = 3, ['W'] = 3, ['X'] = 3,
    ['Y'] = 3, ['Z'] = 3,
    ['a'] = 3, ['b'] = 3, ['c'] = 3, ['d'] = 3, ['e'] = 3, ['f'] = 3, ['g'] = 3, ['h'] = 3,
    ['i'] = 3, ['j'] = 3, ['k'] = 3, ['l'] = 3, ['m'] = 3, ['n'] = 3, ['o'] = 3, ['p'] = 3,
    ['q'] = 3, ['r'] = 3, ['s'] = 3, ['t'] = 3, ['u'] = 3, ['v'] = 3, ['w'] = 3, ['x'] = 3,
    ['y'] = 3, ['z'] = 3,
};

bool patho_name_is_bare(const char *s, uint32_t len)
{
    if (len == 0 || name_char[(uint8_t)s[0]] != 3)
        return false;
    for (uint32_t i = 1; i < len; i++)
        if (!name_char[(uint8_t)s[i]])
            return false;
    return true;
}

void patho_put_name(gsvm_buf *b, const char *s, uint32_t len)
{
    if (patho_name_is_bare(s, len))
        pb_put(b, s, len);
    else
        patho_put_quoted(b, s, len);
}

void patho_put_quoted(gsvm_buf *b, const char *s, uint32_t len)
{
    pb_putc(b, '"');
    for (uint32_t i = 0; i < len; i++)
        put_char(b, (uint8_t)s[i], false);
    pb_putc(b, '"');
}

/* The type names with ", " before them, so a list is one fixed-size copy
 * per type (10 bytes from the start, or from the name for the first). */
static const struct {
    char text[12];
    uint8_t len;
} type_words[7] = {
    {"", 0}, {", bool", 6}, {", int", 5}, {", float", 7}, {", string", 8}, {", object", 8}, {", cvector", 9},
};

void patho_put_type(gsvm_buf *b, uint8_t type)
{
    if (type >= 1 && type <= 6)
        pb_put(b, type_words[type].text + 2, type_words[type].len - 2u);
    else
        gsvm_buf_printf(b, "%u", type);
}

void patho_put_types(gsvm_buf *b, const uint8_t *types, uint32_t n)
{
    uint32_t i = 0;
    /* "(" and ", name" (10 bytes stored whole) a known type, ")": through
     * a cursor after one room check; an unknown code ends that */
    if (pb_room(b, 12 + 10 * (size_t)n)) {
        uint8_t *w = b->data + b->len;
        *w++ = '(';
        for (; i < n && types[i] >= 1 && types[i] <= 6; i++) {
            /* the first one without its ", " */
            memcpy(w, type_words[types[i]].text + (i ? 0 : 2), 10);
            w += type_words[types[i]].len - (i ? 0u : 2u);
        }
        if (i == n) {
            *w++ = ')';
            b->len = (size_t)(w - b->data);
            return;
        }
        i = 0; /* an unknown code: the general loop, from the start */
    }
    pb_putc(b, '(');
    for (; i < n; i++) {
        if (i)
            pb_put(b, ", ", 2);
        patho_put_type(b, types[i]);
    }
    pb_putc(b, ')');
}

uint32_t patho_pool_item(const uint8_t *pool, uint32_t size, uint32_t pos, unsigned ref,
                         bool *wide)
{
    const uint8_t *d = pool + pos;
    bool looks_wide = pos + 1 < size && d[0] != 0 && d[1] == 0;
    *wide = (ref & 1) || (!(ref & 2) && looks_wide);
    uint32_t n = patho_pool_string_size(pool, size, pos, *wide);
    if (!n) {
        *wide = !*wide;
        n = patho_pool_string_size(pool, size, pos, *wide);
    }
    return n;
}

void patho_put_u_any(gsvm_buf *b, uint32_t v)
{
    if (b->len + 11 <= b->cap || gsvm_buf_reserve(b, 10))
        b->len = (size_t)((uint8_t *)gsvm_decimal_u32((char *)b->data + b->len, v) - b->data);
}

void patho_put_d(gsvm_buf *b, int32_t v)
{
    if (v < 0) {
        pb_putc(b, '-');
        patho_put_u(b, (uint32_t)0 - (uint32_t)v);
    } else {
        patho_put_u(b, (uint32_t)v);
    }
}

void patho_put_hex(gsvm_buf *b, uint32_t v, int width)
{
    static const char digits[] = "0123456789abcdef";
    if (width == 4 && v < 0x10000 && (b->len + 5 <= b->cap || gsvm_buf_reserve(b, 4))) {
        /* the listing's index and offset columns */
        uint8_t *w = b->data + b->len;
        w[0] = (uint8_t)digits[v >> 12];
        w[1] = (uint8_t)digits[(v >> 8) & 15];
        w[2] = (uint8_t)digits[(v >> 4) & 15];
        w[3] = (uint8_t)digits[v & 15];
        b->len += 4;
        return;
    }
    /* digits needed, at least `width` (at most 8), written right to left
     * straight into the buffer */
    int n = 1;
    while (n < 8 && (v >> (4 * n)))
        n++;
    if (n < width)
        n = width < 8 ? width : 8;
    if (b->len + (size_t)n + 1 <= b->cap || gsvm_buf_reserve(b, (size_t)n)) {
        uint8_t *w = b->data + b->len;
        for (int i = n - 1; i >= 0; i--, v >>= 4)
            w[i] = (uint8_t)digits[v & 15];
        b->len += (size_t)n;
    }
}

void patho_pad(gsvm_buf *b, size_t line_start, size_t col)
{
    size_t used = b->len - line_start, n = used < col ? col - used : 1;
    /* 8 spaces at a time, possibly past n (the room is reserved), then cut */
    if (b->len + n + 8 <= b->cap || gsvm_buf_reserve(b, n + 8)) {
        uint8_t *w = b->data + b->len;
        const uint64_t spaces = 0x2020202020202020ull;
        for (size_t i = 0; i < n; i += 8)
            memcpy(w + i, &spaces, 8);
        b->len += n;
    }
}

/* Hash of an import's (name, argc): the name 8 bytes a step (names are
 * a dozen bytes or more, a byte loop would be most of a lookup). */
static uint32_t import_hash(const gsvm_patho_import *im)
{
    const char *s = im->name.str;
    uint32_t len = im->name.len, i = 0;
    const uint64_t k = 0x9E3779B97F4A7C15ull;
    uint64_t h = ((uint64_t)len << 32 | im->argc) * k;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * k;
        h ^= h >> 29;
    }
    uint64_t tail = 0;
    if (len >= 8 && i < len) {
        memcpy(&tail, s + len - 8, 8); /* the last 8 bytes, overlapping */
    } else {
        for (; i < len; i++)
            tail = tail << 8 | (uint8_t)s[i];
    }
    h = (h ^ tail) * k;
    return (uint32_t)(h >> 32);
}

static bool import_same(const gsvm_patho_import *a, const gsvm_patho_import *b)
{
    return a->argc == b->argc && a->name.len == b->name.len &&
           memcmp(a->name.str, b->name.str, a->name.len) == 0;
}

uint8_t *patho_import_flags(const gsvm_patho_program *p)
{
    uint8_t *flags = calloc(p->nimports + 1, 1);
    uint32_t cap = 16;
    while (cap < 2 * (uint64_t)p->nimports)
        cap *= 2;
    /* the table on the stack for the usual few dozen imports */
    uint32_t local[256];
    uint32_t *table = cap <= 256 ? local : calloc(cap, sizeof *table);
    if (!flags || !table) {
        free(flags);
        if (table != local)
            free(table);
        return NULL;
    }
    if (table == local)
        memset(local, 0, cap * sizeof *local);
    for (uint32_t i = 0; i < p->nimports; i++) {
        const gsvm_patho_name *nm = &p->imports[i].name;
        if (patho_name_is_bare(nm->str, nm->len))
            flags[i] |= PATHO_IMPORT_BARE;
        uint32_t h = import_hash(&p->imports[i]) & (cap - 1);
        for (;; h = (h + 1) & (cap - 1)) {
            if (!table[h]) {
                table[h] = i + 1;
                break;
            }
            if (import_same(&p->imports[table[h] - 1], &p->imports[i])) {
                flags[table[h] - 1] |= PATHO_IMPORT_AMBIGUOUS;
                flags[i] |= PATHO_IMPORT_AMBIGUOUS;
                break;
            }
        }
    }
    if (table != local)
        free(table);
    return flags;
}

void patho_import_index_free(patho_import_index *x)
{
    if (x->table != x->local)
        free(x->table);
    x->table = NULL;
    x->cap = x->count = 0;
}

int64_t patho_import_find(patho_import_index *x, const gsvm_patho_program *p, const char *name,
                          uint32_t len, uint32_t argc)
{
    if (x->count != p->nimports || !x->table) {
        /* (re)build: imports may be declared as the listing goes */
        uint32_t cap = 16;
        while (cap < 2 * (uint64_t)p->nimports)
            cap *= 2;
        uint32_t *t = cap <= sizeof x->local / sizeof x->local[0] ? x->local : calloc(cap, sizeof *t);
        if (!t)
            return -2;
        if (t == x->local)
            memset(t, 0, cap * sizeof *t);
        if (x->table != x->local && x->table != t)
            free(x->table);
        x->table = t;
        x->cap = cap;
        x->count = p->nimports;
        for (uint32_t i = 0; i < p->nimports; i++) {
            uint32_t h = import_hash(&p->imports[i]) & (cap - 1);
            while (t[h] && !import_same(&p->imports[t[h] - 1], &p->imports[i]))
                h = (h + 1) & (cap - 1);
            if (!t[h])
                t[h] = i + 1; /* the first of equal imports wins */
        }
    }
    gsvm_patho_import key = {{(char *)name, len, 0}, argc};
    for (uint32_t h = import_hash(&key) & (x->cap - 1);; h = (h + 1) & (x->cap - 1)) {
        uint32_t v = x->table[h];
        if (!v)
            return -1;
        if (import_same(&p->imports[v - 1], &key))
            return v - 1;
    }
}
