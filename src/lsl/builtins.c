/* The builtin tables expanded from builtins.def, lookups, argument checks,
 * the func-id -> native dispatch, and the library's shared helpers. */
#include "lsl/builtins.h"

#include <string.h>

#include "lsl/lib.h"

static const lsl_builtin builtin_table[] = {
#define LSL_FUNCTION(name, id, ret, argtypes, argnames, sleep, energy, flags) \
    {#name, id, LSL_TYPE_##ret, (uint8_t)(sizeof(argtypes) - 1), argtypes, argnames, sleep, energy, flags},
#include "lsl/builtins.def"
};
#define BUILTIN_COUNT (sizeof builtin_table / sizeof builtin_table[0])

/* Constant names are stringized (#name), never expanded: some of them (EOF)
 * are also C macros. */
static const lsl_constant constant_table[] = {
#define LSL_CONST_INTEGER(name, value, flags) {#name, LSL_TYPE_INTEGER, value, {0, 0, 0, 0}, NULL, 0, flags},
#define LSL_CONST_FLOAT(name, value, flags) {#name, LSL_TYPE_FLOAT, 0, {value, 0, 0, 0}, NULL, 0, flags},
#define LSL_CONST_STRING(name, literal, length, flags) {#name, LSL_TYPE_STRING, 0, {0, 0, 0, 0}, literal, length, flags},
#define LSL_CONST_VECTOR(name, x, y, z, flags) {#name, LSL_TYPE_VECTOR, 0, {x, y, z, 0}, NULL, 0, flags},
#define LSL_CONST_ROTATION(name, x, y, z, s, flags) {#name, LSL_TYPE_ROTATION, 0, {x, y, z, s}, NULL, 0, flags},
#include "lsl/builtins.def"
};
#define CONSTANT_COUNT (sizeof constant_table / sizeof constant_table[0])

static const lsl_event_def event_table[] = {
#define LSL_EVENT(name, index, argtypes, argnames) \
    {#name, index, (uint8_t)(sizeof(argtypes) - 1), argtypes, argnames},
#include "lsl/builtins.def"
};
#define EVENT_COUNT (sizeof event_table / sizeof event_table[0])

/* func-id -> native implementation, filled at compile time. */
static const lsl_native_fn native_by_id[LSL_ID_END_] = {
#define LSL_NATIVE_ENTRY(name) [LSL_ID_##name] = lsl_lib_##name,
    LSL_NATIVES(LSL_NATIVE_ENTRY)
#undef LSL_NATIVE_ENTRY
};

/* func-id -> its row of builtin_table, also at compile time: the positions
 * come from the same expansion as the table. */
enum {
#define LSL_FUNCTION(name, ...) LSL_POS_##name,
#include "lsl/builtins.def"
    LSL_POS_END_
};
static const lsl_builtin *const builtin_index[LSL_ID_END_] = {
#define LSL_FUNCTION(name, ...) [LSL_ID_##name] = &builtin_table[LSL_POS_##name],
#include "lsl/builtins.def"
};

const lsl_builtin *const *lsl_builtin_index(void)
{
    return builtin_index;
}

const lsl_native_fn *lsl_native_index(void)
{
    return native_by_id;
}

const lsl_builtin *lsl_builtins(size_t *count)
{
    *count = BUILTIN_COUNT;
    return builtin_table;
}

const lsl_constant *lsl_constants(size_t *count)
{
    *count = CONSTANT_COUNT;
    return constant_table;
}

const lsl_event_def *lsl_events(size_t *count)
{
    *count = EVENT_COUNT;
    return event_table;
}

const lsl_builtin *lsl_builtin_by_id(int32_t id)
{
    size_t lo = 0, hi = BUILTIN_COUNT;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (builtin_table[mid].id == id)
            return &builtin_table[mid];
        if (builtin_table[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int name_cmp(const char *table_name, const char *name, size_t len)
{
    int c = strncmp(table_name, name, len);
    if (c)
        return c;
    return table_name[len] ? 1 : 0;
}

const lsl_builtin *lsl_builtin_by_name(const char *name, size_t len)
{
    /* The table is in func-id order; a compiler resolves each name once. */
    for (size_t i = 0; i < BUILTIN_COUNT; i++)
        if (name_cmp(builtin_table[i].name, name, len) == 0)
            return &builtin_table[i];
    return NULL;
}

#define BSEARCH_BY_NAME(table, count, name, len)                        \
    do {                                                                \
        size_t lo = 0, hi = (count);                                    \
        while (lo < hi) {                                               \
            size_t mid = lo + (hi - lo) / 2;                            \
            int c = name_cmp((table)[mid].name, (name), (len));         \
            if (c == 0)                                                 \
                return &(table)[mid];                                   \
            if (c < 0)                                                  \
                lo = mid + 1;                                           \
            else                                                        \
                hi = mid;                                               \
        }                                                               \
        return NULL;                                                    \
    } while (0)

const lsl_constant *lsl_constant_by_name(const char *name, size_t len)
{
    BSEARCH_BY_NAME(constant_table, CONSTANT_COUNT, name, len);
}

const lsl_event_def *lsl_event_by_name(const char *name, size_t len)
{
    BSEARCH_BY_NAME(event_table, EVENT_COUNT, name, len);
}

lsl_type lsl_type_from_letter(char c)
{
    switch (c) {
    case 'i': return LSL_TYPE_INTEGER;
    case 'f': return LSL_TYPE_FLOAT;
    case 's': return LSL_TYPE_STRING;
    case 'k': return LSL_TYPE_KEY;
    case 'v': return LSL_TYPE_VECTOR;
    case 'r': return LSL_TYPE_ROTATION;
    case 'l': return LSL_TYPE_LIST;
    default: return LSL_TYPE_VOID;
    }
}

lsl_native_fn lsl_builtin_native(const lsl_builtin *b)
{
    if (!b || b->id < 0 || b->id >= LSL_ID_END_)
        return NULL;
    return native_by_id[b->id];
}

gsvm_status lsl_builtin_check_args(const lsl_builtin *b, const lsl_value *args, size_t n,
                                   gsvm_error *err)
{
    if (n != b->nargs)
        return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "%s takes %u argument%s, not %zu", b->name,
                              (unsigned)b->nargs, b->nargs == 1 ? "" : "s", n);
    for (size_t i = 0; i < n; i++) {
        lsl_type want = lsl_type_from_letter(b->argtypes[i]), got = args[i].type;
        bool stringish = (want == LSL_TYPE_STRING || want == LSL_TYPE_KEY) &&
                         (got == LSL_TYPE_STRING || got == LSL_TYPE_KEY);
        if (got != want && !stringish)
            return gsvm_error_set(err, GSVM_ERR_USAGE, NULL, "%s argument %zu must be %s, not %s",
                                  b->name, i + 1, lsl_type_name(want), lsl_type_name(got));
    }
    return GSVM_OK;
}

gsvm_status lsl_builtin_call(const lsl_builtin *b, lsl_call_ctx *ctx, const lsl_value *args,
                             size_t n, lsl_value *ret)
{
    *ret = lsl_empty(LSL_TYPE_VOID);
    lsl_native_fn fn = lsl_builtin_native(b);
    if (!fn)
        return gsvm_error_set(ctx->err, GSVM_ERR_USAGE, NULL, "%s has no native implementation",
                              b ? b->name : "(null)");
    gsvm_status st = lsl_builtin_check_args(b, args, n, ctx->err);
    if (st)
        return st;
    st = fn(ctx, args, ret);
    if (st)
        *ret = lsl_empty(b->ret);
    return st;
}

lsl_value lsl_builtin_default_result(const lsl_builtin *b)
{
    switch (b->ret) {
    case LSL_TYPE_ROTATION: return lsl_rotation(0, 0, 0, 1);
    default: return lsl_empty(b->ret);
    }
}

gsvm_status lsl_constant_value(lsl_heap *h, const lsl_constant *c, lsl_value *out, gsvm_error *err)
{
    switch (c->type) {
    case LSL_TYPE_INTEGER: *out = lsl_int(c->i); return GSVM_OK;
    case LSL_TYPE_FLOAT: *out = lsl_float(c->v[0]); return GSVM_OK;
    case LSL_TYPE_VECTOR: *out = lsl_vector(c->v[0], c->v[1], c->v[2]); return GSVM_OK;
    case LSL_TYPE_ROTATION: *out = lsl_rotation(c->v[0], c->v[1], c->v[2], c->v[3]); return GSVM_OK;
    default: return lsl_string_new(h, LSL_TYPE_STRING, c->str, c->len, out, err);
    }
}

/* ---- library state ------------------------------------------------------- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

void lsl_lib_state_init(lsl_lib_state *st, uint64_t seed)
{
    uint64_t x = seed;
    st->rng[0] = splitmix64(&x);
    st->rng[1] = splitmix64(&x);
    if (!st->rng[0] && !st->rng[1])
        st->rng[1] = 1;
    st->key_seed = splitmix64(&x);
    st->key_seq = 0;
}

double lsl_lib_random(lsl_lib_state *st)
{
    /* xoroshiro128+; the top 53 bits make a double in [0, 1). */
    uint64_t s0 = st->rng[0], s1 = st->rng[1];
    uint64_t r = s0 + s1;
    s1 ^= s0;
    st->rng[0] = ((s0 << 24) | (s0 >> 40)) ^ s1 ^ (s1 << 16);
    st->rng[1] = (s1 << 37) | (s1 >> 27);
    return (double)(r >> 11) * (1.0 / 9007199254740992.0);
}

/* ---- helpers shared by lib_*.c ------------------------------------------- */

gsvm_status lsl_lib_raise(lsl_call_ctx *ctx, const char *message)
{
    return gsvm_error_set(ctx->err, GSVM_ERR_FAULT, NULL, "%s", message);
}

size_t lsl_lib_text_budget(const lsl_call_ctx *ctx)
{
    size_t budget = LSL_MAX_STRING_BYTES;
    const lsl_heap *h = ctx->heap;
    if (h && h->limit) {
        size_t used = h->used + h->extra;
        size_t room = used >= h->limit ? 0 : h->limit - used;
        size_t bytes = room <= LSL_MEM_STRING_HEADER ? 0 : 2 * (room - LSL_MEM_STRING_HEADER) + 3;
        if (bytes < budget)
            budget = bytes;
    }
    return budget;
}

gsvm_status lsl_lib_too_long(lsl_call_ctx *ctx)
{
    if (lsl_lib_text_budget(ctx) < LSL_MAX_STRING_BYTES)
        return lsl_lib_raise(ctx, "Stack-Heap Collision");
    return gsvm_error_set(ctx->err, GSVM_ERR_LIMIT, NULL, "string exceeds the %u-byte bound",
                          LSL_MAX_STRING_BYTES);
}

gsvm_status lsl_ret_str(lsl_call_ctx *ctx, lsl_type type, const char *s, size_t len, lsl_value *ret)
{
    return lsl_string_new(ctx->heap, type, s, len, ret, ctx->err);
}

gsvm_status lsl_ret_buf(lsl_call_ctx *ctx, lsl_type type, gsvm_buf *b, lsl_value *ret)
{
    return lsl_string_from_buf(ctx->heap, type, b, ret, ctx->err);
}

static size_t seq_len(unsigned char c)
{
    return c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 : (c & 0xF8) == 0xF0 ? 4 : 0;
}

size_t lsl_utf8_next(const char *s, size_t len, size_t i)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = seq_len(p[i]);
    if (n == 0 || i + n > len)
        return i + 1;
    for (size_t k = 1; k < n; k++)
        if ((p[i + k] & 0xC0) != 0x80)
            return i + 1;
    return i + n;
}

size_t lsl_utf8_count(const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i = lsl_utf8_next(s, len, i))
        n++;
    return n;
}

size_t lsl_utf8_offset(const char *s, size_t len, size_t n)
{
    size_t i = 0;
    while (n > 0 && i < len) {
        i = lsl_utf8_next(s, len, i);
        n--;
    }
    return i;
}

uint32_t lsl_utf8_decode(const char *s, size_t len, size_t i)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = lsl_utf8_next(s, len, i) - i;
    switch (n) {
    case 1: return p[i] < 0x80 ? p[i] : 0xFFFD;
    case 2: return ((uint32_t)(p[i] & 0x1F) << 6) | (p[i + 1] & 0x3F);
    case 3: return ((uint32_t)(p[i] & 0x0F) << 12) | ((uint32_t)(p[i + 1] & 0x3F) << 6) | (p[i + 2] & 0x3F);
    default:
        return ((uint32_t)(p[i] & 0x07) << 18) | ((uint32_t)(p[i + 1] & 0x3F) << 12) |
               ((uint32_t)(p[i + 2] & 0x3F) << 6) | (p[i + 3] & 0x3F);
    }
}

void lsl_utf8_put(gsvm_buf *b, uint32_t cp)
{
    if (cp < 0x80) {
        gsvm_buf_putc(b, (int)cp);
    } else if (cp < 0x800) {
        gsvm_buf_putc(b, (int)(0xC0 | (cp >> 6)));
        gsvm_buf_putc(b, (int)(0x80 | (cp & 0x3F)));
    } else if (cp < 0x10000) {
        gsvm_buf_putc(b, (int)(0xE0 | (cp >> 12)));
        gsvm_buf_putc(b, (int)(0x80 | ((cp >> 6) & 0x3F)));
        gsvm_buf_putc(b, (int)(0x80 | (cp & 0x3F)));
    } else {
        gsvm_buf_putc(b, (int)(0xF0 | (cp >> 18)));
        gsvm_buf_putc(b, (int)(0x80 | ((cp >> 12) & 0x3F)));
        gsvm_buf_putc(b, (int)(0x80 | ((cp >> 6) & 0x3F)));
        gsvm_buf_putc(b, (int)(0x80 | (cp & 0x3F)));
    }
}

void lsl_utf8_sanitize(gsvm_buf *out, const uint8_t *s, size_t n)
{
    /* Mono's conversion of bytes to a string: well-formed UTF-8 passes (lead
     * bytes C2..F4; E0 needs A0..BF next, ED 80..9F, F0 90..BF, F4 80..8F);
     * every byte of a broken sequence, and every other byte >= 0x80,
     * becomes '?'; the text ends at the first NUL. */
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c == 0)
            return;
        if (c < 0x80) {
            gsvm_buf_putc(out, c);
            i++;
            continue;
        }
        size_t need = c >= 0xC2 && c <= 0xDF ? 1 : c >= 0xE0 && c <= 0xEF ? 2 : c >= 0xF0 && c <= 0xF4 ? 3 : 0;
        if (need == 0) {
            gsvm_buf_putc(out, '?');
            i++;
            continue;
        }
        size_t k = 1;
        while (k <= need && i + k < n) {
            uint8_t d = s[i + k];
            bool ok = d >= 0x80 && d < 0xC0;
            if (ok && k == 1)
                ok = !(c == 0xE0 && d < 0xA0) && !(c == 0xED && d >= 0xA0) && !(c == 0xF0 && d < 0x90) &&
                     !(c == 0xF4 && d >= 0x90);
            if (!ok)
                break;
            k++;
        }
        if (k == need + 1) {
            gsvm_buf_append(out, s + i, k);
        } else {
            for (size_t q = 0; q < k; q++)
                gsvm_buf_putc(out, '?');
        }
        i += k;
    }
}

int lsl_range_select(int64_t len, int32_t start, int32_t end, int64_t iv[2][2])
{
    int64_t s = start < 0 ? start + len : start;
    int64_t e = end < 0 ? end + len : end;
    int n = 0;
    if (s <= e) {
        int64_t a = s < 0 ? 0 : s, b = e + 1 > len ? len : e + 1;
        if (a < b) {
            iv[n][0] = a;
            iv[n][1] = b;
            n++;
        }
    } else {
        if (e >= 0) {
            iv[n][0] = 0;
            iv[n][1] = e + 1 > len ? len : e + 1;
            n++;
        }
        if (s < len) {
            int64_t a = s < 0 ? 0 : s;
            if (n && a < iv[0][1])
                a = iv[0][1]; /* never select a position twice */
            if (a < len) {
                iv[n][0] = a;
                iv[n][1] = len;
                n++;
            }
        }
    }
    return n;
}

int64_t lsl_index(int64_t len, int32_t index)
{
    int64_t i = index < 0 ? index + len : index;
    return i >= 0 && i < len ? i : -1;
}

static const char b64_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void lsl_base64_encode(gsvm_buf *b, const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16;
        if (i + 1 < len) v |= (uint32_t)data[i + 1] << 8;
        if (i + 2 < len) v |= data[i + 2];
        gsvm_buf_putc(b, b64_alphabet[(v >> 18) & 63]);
        gsvm_buf_putc(b, b64_alphabet[(v >> 12) & 63]);
        gsvm_buf_putc(b, i + 1 < len ? b64_alphabet[(v >> 6) & 63] : '=');
        gsvm_buf_putc(b, i + 2 < len ? b64_alphabet[v & 63] : '=');
    }
}

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

void lsl_base64_decode(gsvm_buf *b, const char *s, size_t len)
{
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; i++) {
        int v = b64_value((unsigned char)s[i]);
        if (v < 0)
            break;
        acc = (acc << 6) | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            gsvm_buf_putc(b, (int)((acc >> bits) & 0xFF));
        }
    }
}
