/* Native string functions.  Indexes count characters (Unicode code points
 * of the UTF-8 text), negative indexes count from the end where SL allows
 * them.  Second Life's Mono counts UTF-16 units, so for characters beyond
 * U+FFFF (emoji) SL's indexes differ by one per such character; gsvm counts
 * whole characters, which is what a script author expects. */
#include <string.h>

#include "lsl/lib.h"

static const char *sdata(const lsl_value *v) { return lsl_str_data(v); }
static size_t slen(const lsl_value *v) { return lsl_str_len(v); }

gsvm_status lsl_lib_llStringLength(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return lsl_ret_int(ret, (int32_t)lsl_utf8_count(sdata(&a[0]), slen(&a[0])));
}

/* Appends the characters of the selected intervals (inverted = the rest). */
static gsvm_status substring(lsl_call_ctx *ctx, const lsl_value *src, int32_t start, int32_t end,
                             bool remove, lsl_value *ret)
{
    const char *s = sdata(src);
    size_t len = slen(src);
    int64_t n = (int64_t)lsl_utf8_count(s, len);
    int64_t iv[2][2];
    int k = lsl_range_select(n, start, end, iv);
    gsvm_buf b;
    gsvm_buf_init(&b);
    if (!remove) {
        for (int i = 0; i < k; i++) {
            size_t from = lsl_utf8_offset(s, len, (size_t)iv[i][0]);
            size_t to = lsl_utf8_offset(s, len, (size_t)iv[i][1]);
            gsvm_buf_append(&b, s + from, to - from);
        }
    } else {
        int64_t pos = 0;
        for (int i = 0; i <= k; i++) {
            int64_t stop = i < k ? iv[i][0] : n;
            size_t from = lsl_utf8_offset(s, len, (size_t)pos), to = lsl_utf8_offset(s, len, (size_t)stop);
            gsvm_buf_append(&b, s + from, to - from);
            if (i < k)
                pos = iv[i][1];
        }
    }
    return lsl_ret_buf(ctx, LSL_TYPE_STRING, &b, ret);
}

gsvm_status lsl_lib_llGetSubString(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return substring(ctx, &a[0], a[1].u.i, a[2].u.i, false, ret);
}

gsvm_status lsl_lib_llDeleteSubString(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return substring(ctx, &a[0], a[1].u.i, a[2].u.i, true, ret);
}

gsvm_status lsl_lib_llInsertString(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* SL does not support negative positions here; gsvm clamps the position
     * into [0, length] (a negative one inserts at the front, a position past
     * the end appends). */
    const char *d = sdata(&a[0]);
    size_t dl = slen(&a[0]);
    int32_t pos = a[1].u.i < 0 ? 0 : a[1].u.i;
    size_t at = lsl_utf8_offset(d, dl, (size_t)pos);
    gsvm_buf b;
    gsvm_buf_init(&b);
    gsvm_buf_append(&b, d, at);
    gsvm_buf_append(&b, sdata(&a[2]), slen(&a[2]));
    gsvm_buf_append(&b, d + at, dl - at);
    return lsl_ret_buf(ctx, LSL_TYPE_STRING, &b, ret);
}

/* Byte offset of the first occurrence of p in s at or after `from`, or -1. */
static long long find_bytes(const char *s, size_t sl, const char *p, size_t pl, size_t from)
{
    if (pl == 0)
        return (long long)from;
    for (size_t i = from; i + pl <= sl; i++)
        if (s[i] == p[0] && memcmp(s + i, p, pl) == 0)
            return (long long)i;
    return -1;
}

gsvm_status lsl_lib_llSubStringIndex(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    const char *s = sdata(&a[0]);
    long long at = find_bytes(s, slen(&a[0]), sdata(&a[1]), slen(&a[1]), 0);
    return lsl_ret_int(ret, at < 0 ? -1 : (int32_t)lsl_utf8_count(s, (size_t)at));
}

/* Simple case mapping for ASCII, Latin-1, Greek and Cyrillic (Mono maps all
 * of Unicode; characters outside these blocks are left unchanged). */
static uint32_t to_upper(uint32_t c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 0xE0 && c <= 0xFE && c != 0xF7) ||
        (c >= 0x3B1 && c <= 0x3CB && c != 0x3C2) || (c >= 0x430 && c <= 0x44F))
        return c - 0x20;
    if (c == 0xFF)
        return 0x178;
    if (c == 0x3C2)
        return 0x3A3;
    if (c >= 0x450 && c <= 0x45F)
        return c - 0x50;
    return c;
}

static uint32_t to_lower(uint32_t c)
{
    if ((c >= 'A' && c <= 'Z') || (c >= 0xC0 && c <= 0xDE && c != 0xD7) ||
        (c >= 0x391 && c <= 0x3AB && c != 0x3A2) || (c >= 0x410 && c <= 0x42F))
        return c + 0x20;
    if (c == 0x178)
        return 0xFF;
    if (c >= 0x400 && c <= 0x40F)
        return c + 0x50;
    return c;
}

static gsvm_status map_case(lsl_call_ctx *ctx, const lsl_value *src, bool upper, lsl_value *ret)
{
    const char *s = sdata(src);
    size_t len = slen(src);
    gsvm_buf b;
    gsvm_buf_init(&b);
    for (size_t i = 0; i < len;) {
        size_t next = lsl_utf8_next(s, len, i);
        uint32_t c = lsl_utf8_decode(s, len, i);
        if (c == 0xFFFD && next == i + 1 && (unsigned char)s[i] >= 0x80)
            gsvm_buf_append(&b, s + i, 1); /* keep a stray byte as it is */
        else
            lsl_utf8_put(&b, upper ? to_upper(c) : to_lower(c));
        i = next;
    }
    return lsl_ret_buf(ctx, LSL_TYPE_STRING, &b, ret);
}

gsvm_status lsl_lib_llToUpper(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret) { return map_case(ctx, &a[0], true, ret); }
gsvm_status lsl_lib_llToLower(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret) { return map_case(ctx, &a[0], false, ret); }

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

gsvm_status lsl_lib_llStringTrim(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* STRING_TRIM_HEAD = 1, STRING_TRIM_TAIL = 2, STRING_TRIM = 3; trims
     * ASCII white space (space, tab, newline, CR, VT, FF). */
    const char *s = sdata(&a[0]);
    size_t from = 0, to = slen(&a[0]);
    if (a[1].u.i & 1)
        while (from < to && is_space(s[from]))
            from++;
    if (a[1].u.i & 2)
        while (to > from && is_space(s[to - 1]))
            to--;
    return lsl_ret_str(ctx, LSL_TYPE_STRING, s + from, to - from, ret);
}

gsvm_status lsl_lib_llEscapeURL(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Every byte other than A-Z a-z 0-9 becomes %XX (upper-case hex). */
    const unsigned char *s = (const unsigned char *)sdata(&a[0]);
    size_t len = slen(&a[0]);
    gsvm_buf b;
    gsvm_buf_init(&b);
    for (size_t i = 0; i < len; i++) {
        unsigned c = s[i];
        if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            gsvm_buf_putc(&b, (int)c);
        else
            gsvm_buf_printf(&b, "%%%02X", c);
    }
    return lsl_ret_buf(ctx, LSL_TYPE_STRING, &b, ret);
}

static int hexdig(unsigned char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

gsvm_status lsl_lib_llUnescapeURL(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Second Life's decoder, quirks included: "%" takes the next two
     * characters as hex digits, a non-hex digit counting as 0 (so "%zz" is
     * a NUL, which ends the text); a "%" as the second character emits the
     * first digit's value and is skipped; a "%" with fewer than two
     * characters after it ends the text.  "+" stays "+".  The bytes are then
     * read as UTF-8, malformed sequences becoming '?'. */
    const unsigned char *s = (const unsigned char *)sdata(&a[0]);
    size_t len = slen(&a[0]), i = 0;
    gsvm_buf raw, out;
    gsvm_buf_init(&raw);
    gsvm_buf_init(&out);
    while (i < len) {
        unsigned char c = s[i++];
        if (c != '%') {
            gsvm_buf_putc(&raw, c);
            continue;
        }
        if (i >= len)
            break;
        int d1 = hexdig(s[i++]);
        if (i >= len)
            break;
        int v = d1 >= 0 ? d1 << 4 : 0;
        if (s[i] == '%') {
            gsvm_buf_putc(&raw, v);
            i++;
            continue;
        }
        int d2 = hexdig(s[i++]);
        gsvm_buf_putc(&raw, v + (d2 >= 0 ? d2 : 0));
    }
    lsl_utf8_sanitize(&out, raw.data, raw.len);
    gsvm_buf_free(&raw);
    return lsl_ret_buf(ctx, LSL_TYPE_STRING, &out, ret);
}

gsvm_status lsl_lib_llChar(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* 0 (and negatives) give ""; surrogates and values beyond U+10FFFF give
     * U+FFFD, the replacement character. */
    int32_t c = a[0].u.i;
    if (c <= 0)
        return lsl_ret_str(ctx, LSL_TYPE_STRING, "", 0, ret);
    gsvm_buf b;
    gsvm_buf_init(&b);
    lsl_utf8_put(&b, (c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF ? 0xFFFD : (uint32_t)c);
    return lsl_ret_buf(ctx, LSL_TYPE_STRING, &b, ret);
}

gsvm_status lsl_lib_llOrd(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* The code point at a character index (negative from the end); 0 when
     * out of range. */
    const char *s = sdata(&a[0]);
    size_t len = slen(&a[0]);
    int64_t i = lsl_index((int64_t)lsl_utf8_count(s, len), a[1].u.i);
    if (i < 0)
        return lsl_ret_int(ret, 0);
    return lsl_ret_int(ret, (int32_t)lsl_utf8_decode(s, len, lsl_utf8_offset(s, len, (size_t)i)));
}

gsvm_status lsl_lib_llReplaceSubString(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* count 0 replaces every occurrence, count > 0 the first count from the
     * left, count < 0 the last -count from the right; matches never overlap.
     * An empty pattern changes nothing. */
    const char *s = sdata(&a[0]), *p = sdata(&a[1]), *r = sdata(&a[2]);
    size_t sl = slen(&a[0]), pl = slen(&a[1]), rl = slen(&a[2]);
    int32_t count = a[3].u.i;
    if (pl == 0) {
        *ret = a[0];
        lsl_value_retain(ret);
        return GSVM_OK;
    }
    /* positions of all non-overlapping matches from the left */
    size_t total = 0;
    for (long long at = find_bytes(s, sl, p, pl, 0); at >= 0; at = find_bytes(s, sl, p, pl, (size_t)at + pl))
        total++;
    size_t first = 0, last = total; /* replace matches with ordinal in [first, last) */
    if (count > 0 && (size_t)count < total)
        last = (size_t)count;
    else if (count < 0 && (size_t)(-(int64_t)count) < total)
        first = total - (size_t)(-(int64_t)count);
    if (rl > pl) { /* refuse before building what cannot fit */
        size_t budget = lsl_lib_text_budget(ctx), replaced = last - first;
        if (sl > budget || replaced > (budget - sl) / (rl - pl))
            return lsl_lib_too_long(ctx);
    }
    gsvm_buf b;
    gsvm_buf_init(&b);
    size_t pos = 0, ord = 0;
    for (long long at = find_bytes(s, sl, p, pl, 0); at >= 0; at = find_bytes(s, sl, p, pl, (size_t)at + pl), ord++) {
        if (ord < first || ord >= last)
            continue;
        gsvm_buf_append(&b, s + pos, (size_t)at - pos);
        gsvm_buf_append(&b, r, rl);
        pos = (size_t)at + pl;
    }
    gsvm_buf_append(&b, s + pos, sl - pos);
    return lsl_ret_buf(ctx, LSL_TYPE_STRING, &b, ret);
}

gsvm_status lsl_lib_llHash(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* SDBM over the characters (code points): h = c + (h << 6) + (h << 16)
     * - h in 32 bits, as the wiki specifies; "" gives 0. */
    const char *s = sdata(&a[0]);
    size_t len = slen(&a[0]);
    uint32_t h = 0;
    for (size_t i = 0; i < len; i = lsl_utf8_next(s, len, i))
        h = lsl_utf8_decode(s, len, i) + (h << 6) + (h << 16) - h;
    return lsl_ret_int(ret, (int32_t)h);
}
