/* Native list functions: element access and conversion, slicing with SL's
 * index rules, search, parsing and joining.  Sorting and statistics are in
 * lib_list_sort.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lsl/lib.h"

static size_t llen(const lsl_value *v) { return lsl_list_len(v); }
static const lsl_value *litems(const lsl_value *v) { return lsl_list_items(v); }

/* The element at an SL index (negative from the end), or NULL. */
static const lsl_value *element(const lsl_value *list, int32_t index)
{
    int64_t i = lsl_index((int64_t)llen(list), index);
    return i < 0 ? NULL : &litems(list)[i];
}

/* A new list from a slice of items (retained). */
static gsvm_status ret_items(lsl_call_ctx *ctx, const lsl_value *items, size_t n, lsl_value *ret)
{
    return lsl_list_new(ctx->heap, items, n, ret, ctx->err);
}

/* Collects values into a growable array before building a list. */
typedef struct vec {
    lsl_value *items;
    size_t n, cap;
    bool oom;
} vec;

static void vec_push(vec *v, const lsl_value *x)
{
    if (v->oom)
        return;
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 16;
        lsl_value *p = realloc(v->items, cap * sizeof *p);
        if (!p) {
            v->oom = true;
            return;
        }
        v->items = p;
        v->cap = cap;
    }
    v->items[v->n++] = *x; /* borrowed or owned: see vec_finish */
}

/* Frees the vector, releasing its values first when it owns them. */
static void vec_free(vec *v, bool owned)
{
    if (owned)
        for (size_t i = 0; i < v->n; i++)
            lsl_value_release(&v->items[i]);
    free(v->items);
}

/* Builds the list (retaining), then frees the vector (see vec_free). */
static gsvm_status vec_finish(lsl_call_ctx *ctx, vec *v, bool owned, lsl_value *ret)
{
    gsvm_status st = v->oom ? gsvm_error_set(ctx->err, GSVM_ERR_NOMEM, NULL, "out of memory")
                            : ret_items(ctx, v->items, v->n, ret);
    vec_free(v, owned);
    return st;
}

gsvm_status lsl_lib_llGetListLength(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return lsl_ret_int(ret, (int32_t)llen(&a[0]));
}

/* Conversions of llList2*: integer and float convert into each other,
 * strings are cast, other mismatches give the type's zero (tested against
 * SL by Pedro Oval's table on the wiki). */
gsvm_status lsl_lib_llList2Integer(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    const lsl_value *e = element(&a[0], a[1].u.i);
    if (!e)
        return lsl_ret_int(ret, 0);
    switch (e->type) {
    case LSL_TYPE_INTEGER: return lsl_ret_int(ret, e->u.i);
    case LSL_TYPE_FLOAT: return lsl_ret_int(ret, lsl_float_to_int(e->u.f));
    case LSL_TYPE_STRING: return lsl_ret_int(ret, lsl_string_to_int(lsl_str_data(e), lsl_str_len(e)));
    default: return lsl_ret_int(ret, 0);
    }
}

gsvm_status lsl_lib_llList2Float(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    const lsl_value *e = element(&a[0], a[1].u.i);
    if (!e)
        return lsl_ret_float(ret, 0);
    switch (e->type) {
    case LSL_TYPE_INTEGER: return lsl_ret_float(ret, (float)e->u.i);
    case LSL_TYPE_FLOAT: return lsl_ret_float(ret, e->u.f);
    case LSL_TYPE_STRING: return lsl_ret_float(ret, lsl_string_to_float(lsl_str_data(e), lsl_str_len(e)));
    default: return lsl_ret_float(ret, 0);
    }
}

static gsvm_status text_of(lsl_call_ctx *ctx, const lsl_value *e, lsl_type type, lsl_value *ret)
{
    if (e->type == LSL_TYPE_STRING || e->type == LSL_TYPE_KEY) {
        *ret = *e;
        ret->type = type;
        lsl_value_retain(ret);
        return GSVM_OK;
    }
    gsvm_buf b;
    gsvm_buf_init(&b);
    lsl_value_append_text(&b, e, true);
    return lsl_ret_buf(ctx, type, &b, ret);
}

gsvm_status lsl_lib_llList2String(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    const lsl_value *e = element(&a[0], a[1].u.i);
    if (!e) {
        lsl_set_empty(ret, LSL_TYPE_STRING);
        return GSVM_OK;
    }
    return text_of(ctx, e, LSL_TYPE_STRING, ret);
}

gsvm_status lsl_lib_llList2Key(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    const lsl_value *e = element(&a[0], a[1].u.i);
    if (!e || (e->type != LSL_TYPE_STRING && e->type != LSL_TYPE_KEY)) {
        lsl_set_empty(ret, LSL_TYPE_KEY);
        return GSVM_OK;
    }
    return text_of(ctx, e, LSL_TYPE_KEY, ret);
}

gsvm_status lsl_lib_llList2Vector(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    const lsl_value *e = element(&a[0], a[1].u.i);
    *ret = e && e->type == LSL_TYPE_VECTOR ? *e : lsl_vector(0, 0, 0);
    return GSVM_OK;
}

gsvm_status lsl_lib_llList2Rot(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    const lsl_value *e = element(&a[0], a[1].u.i);
    *ret = e && e->type == LSL_TYPE_ROTATION ? *e : lsl_rotation(0, 0, 0, 1);
    return GSVM_OK;
}

gsvm_status lsl_lib_llGetListEntryType(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    const lsl_value *e = element(&a[0], a[1].u.i);
    return lsl_ret_int(ret, e ? (int32_t)e->type : 0 /* TYPE_INVALID */);
}

/* Selected (or, with `remove`, unselected) elements of an SL range. */
static gsvm_status slice(lsl_call_ctx *ctx, const lsl_value *src, int32_t start, int32_t end,
                         bool remove, lsl_value *ret)
{
    size_t n = llen(src);
    int64_t iv[2][2];
    int k = lsl_range_select((int64_t)n, start, end, iv);
    vec v = {0};
    const lsl_value *it = litems(src);
    if (!remove) {
        for (int i = 0; i < k; i++)
            for (int64_t j = iv[i][0]; j < iv[i][1]; j++)
                vec_push(&v, &it[j]);
    } else {
        int64_t pos = 0;
        for (int i = 0; i <= k; i++) {
            int64_t stop = i < k ? iv[i][0] : (int64_t)n;
            for (int64_t j = pos; j < stop; j++)
                vec_push(&v, &it[j]);
            if (i < k)
                pos = iv[i][1];
        }
    }
    return vec_finish(ctx, &v, false, ret);
}

gsvm_status lsl_lib_llList2List(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return slice(ctx, &a[0], a[1].u.i, a[2].u.i, false, ret);
}

gsvm_status lsl_lib_llDeleteSubList(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return slice(ctx, &a[0], a[1].u.i, a[2].u.i, true, ret);
}

static gsvm_status join(lsl_call_ctx *ctx, const lsl_value *list, const char *sep, size_t seplen,
                        lsl_value *ret)
{
    gsvm_buf b;
    gsvm_buf_init(&b);
    size_t budget = lsl_lib_text_budget(ctx);
    for (size_t i = 0; i < llen(list); i++) {
        if (i)
            gsvm_buf_append(&b, sep, seplen);
        lsl_value_append_text(&b, &litems(list)[i], true);
        if (b.len > budget) {
            gsvm_buf_free(&b);
            return lsl_lib_too_long(ctx);
        }
    }
    return lsl_ret_buf(ctx, LSL_TYPE_STRING, &b, ret);
}

gsvm_status lsl_lib_llDumpList2String(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return join(ctx, &a[0], lsl_str_data(&a[1]), lsl_str_len(&a[1]), ret);
}

gsvm_status lsl_lib_llList2CSV(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Elements joined by ", ".  Unlike every other conversion, floats (and
     * vector/rotation components) use plain 6-decimal C formatting here
     * (LSO's rule, kept by Mono for this function): 123456.789 ->
     * "123456.789062", and NaN/infinity print as C prints them. */
    gsvm_buf b;
    gsvm_buf_init(&b);
    size_t budget = lsl_lib_text_budget(ctx);
    for (size_t i = 0; i < llen(&a[0]); i++) {
        const lsl_value *e = &litems(&a[0])[i];
        if (b.len > budget) {
            gsvm_buf_free(&b);
            return lsl_lib_too_long(ctx);
        }
        if (i)
            gsvm_buf_puts(&b, ", ");
        if (e->type == LSL_TYPE_FLOAT) {
            lsl_format_float_c(&b, e->u.f);
        } else if (e->type == LSL_TYPE_VECTOR || e->type == LSL_TYPE_ROTATION) {
            int n = e->type == LSL_TYPE_VECTOR ? 3 : 4;
            gsvm_buf_putc(&b, '<');
            for (int k = 0; k < n; k++) {
                if (k)
                    gsvm_buf_puts(&b, ", ");
                lsl_format_float_c(&b, e->u.v[k]);
            }
            gsvm_buf_putc(&b, '>');
        } else {
            lsl_value_append_text(&b, e, true);
        }
    }
    return lsl_ret_buf(ctx, LSL_TYPE_STRING, &b, ret);
}

gsvm_status lsl_lib_llCSV2List(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Second Life's splitter: commas inside <...> (nesting counted) do not
     * split; ONE space right after a comma (and at the very start) is
     * dropped, other white space is kept; every element is a string.
     * "" gives [""]. */
    const char *s = lsl_str_data(&a[0]);
    size_t len = lsl_str_len(&a[0]);
    vec v = {0};
    gsvm_status st = GSVM_OK;
    int depth = 0;
    bool after_comma = true;
    size_t start = 0;
    for (size_t i = 0; i <= len && !st; i++) {
        bool end = i == len;
        char c = end ? 0 : s[i];
        if (!end && depth) {
            if (c == '<')
                depth++;
            else if (c == '>')
                depth--;
            continue;
        }
        if (!end && after_comma && c == ' ') {
            after_comma = false;
            start = i + 1;
            continue;
        }
        after_comma = false;
        if (end || c == ',') {
            lsl_value e;
            st = lsl_string_new(ctx->heap, LSL_TYPE_STRING, s + start, i - start, &e, ctx->err);
            if (!st)
                vec_push(&v, &e);
            after_comma = true;
            start = i + 1;
        } else if (c == '<') {
            depth++;
        }
    }
    if (st) {
        vec_free(&v, true);
        return st;
    }
    return vec_finish(ctx, &v, true, ret);
}

gsvm_status lsl_lib_llListRandomize(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Shuffles whole strides (Fisher-Yates on the script's seeded stream).
     * A stride < 1 counts as 1; a stride that does not divide the length
     * returns the list unchanged (as SL). */
    size_t n = llen(&a[0]);
    int64_t stride = a[1].u.i < 1 ? 1 : a[1].u.i;
    if (!ctx->state)
        return gsvm_error_set(ctx->err, GSVM_ERR_USAGE, NULL, "llListRandomize needs a library state");
    if (n == 0 || n % (size_t)stride != 0) {
        *ret = a[0];
        lsl_value_retain(ret);
        return GSVM_OK;
    }
    size_t groups = n / (size_t)stride;
    size_t *order = malloc(groups * sizeof *order);
    if (!order)
        return gsvm_error_set(ctx->err, GSVM_ERR_NOMEM, NULL, "out of memory");
    for (size_t i = 0; i < groups; i++)
        order[i] = i;
    for (size_t i = groups; i > 1; i--) {
        size_t j = (size_t)(lsl_lib_random(ctx->state) * (double)i);
        if (j >= i)
            j = i - 1;
        size_t t = order[i - 1];
        order[i - 1] = order[j];
        order[j] = t;
    }
    vec v = {0};
    for (size_t g = 0; g < groups; g++)
        for (int64_t k = 0; k < stride; k++)
            vec_push(&v, &litems(&a[0])[order[g] * (size_t)stride + (size_t)k]);
    free(order);
    return vec_finish(ctx, &v, false, ret);
}

/* Python-style slice bound: negative counts from the end, clamped. */
static int64_t py_bound(int64_t len, int64_t i)
{
    if (i < 0)
        i += len;
    return i < 0 ? 0 : i > len ? len : i;
}

static int64_t floor_div(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

gsvm_status lsl_lib_llList2ListStrided(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Second Life's rules: stride is |stride| (0 counts as 1); negative
     * indexes count from the end; an inverted range means the whole list;
     * start rounds up and end down to multiples of stride; then every
     * stride-th element from start through end. */
    int64_t n = (int64_t)llen(&a[0]);
    int64_t stride = a[3].u.i == 0 ? 1 : a[3].u.i < 0 ? -(int64_t)a[3].u.i : a[3].u.i;
    int64_t s = a[1].u.i, e = a[2].u.i;
    if (s < 0)
        s += n;
    if (e < 0)
        e += n;
    if (s > e) {
        s = 0;
        e = n - 1;
    }
    s = floor_div(s + stride - 1, stride) * stride;
    e = floor_div(e, stride) * stride;
    int64_t from = py_bound(n, s), to = e + 1 == 0 ? 0 : py_bound(n, e + 1);
    vec v = {0};
    for (int64_t i = from; i < to; i += stride)
        vec_push(&v, &litems(&a[0])[i]);
    return vec_finish(ctx, &v, false, ret);
}

gsvm_status lsl_lib_llList2ListSlice(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* As the wiki's examples show ([0..6], 1, -1, 3, 1 gives [2, 5]): take
     * the range start..end as llList2List does (negative indexes, inverted
     * range = the two outer pieces), cut it into strides counted from its
     * own first element, and keep element slice_index of each stride
     * (negative counts from the stride's end; a short last stride may lack
     * it).  A stride < 1 counts as 1; a slice_index outside the stride
     * gives []. */
    size_t n = llen(&a[0]);
    int64_t stride = a[3].u.i < 1 ? 1 : a[3].u.i;
    int64_t slice_at = a[4].u.i < 0 ? a[4].u.i + stride : a[4].u.i;
    vec v = {0};
    if (slice_at >= 0 && slice_at < stride) {
        int64_t iv[2][2];
        int k = lsl_range_select((int64_t)n, a[1].u.i, a[2].u.i, iv);
        int64_t pos = 0; /* position within the selected range */
        for (int r = 0; r < k; r++)
            for (int64_t i = iv[r][0]; i < iv[r][1]; i++, pos++)
                if (pos % stride == slice_at)
                    vec_push(&v, &litems(&a[0])[i]);
    }
    return vec_finish(ctx, &v, false, ret);
}

gsvm_status lsl_lib_llListInsertList(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* A negative position counts from the end; positions are clamped into
     * [0, length]. */
    int64_t n = (int64_t)llen(&a[0]);
    int64_t at = a[2].u.i < 0 ? a[2].u.i + n : a[2].u.i;
    if (at < 0)
        at = 0;
    if (at > n)
        at = n;
    vec v = {0};
    for (int64_t i = 0; i < at; i++)
        vec_push(&v, &litems(&a[0])[i]);
    for (size_t i = 0; i < llen(&a[1]); i++)
        vec_push(&v, &litems(&a[1])[i]);
    for (int64_t i = at; i < n; i++)
        vec_push(&v, &litems(&a[0])[i]);
    return vec_finish(ctx, &v, false, ret);
}

/* List elements match when they have the same type and value (1 never
 * matches 1.0, nor "a" the key "a"); a NaN float matches a NaN float, but
 * vectors and rotations holding NaN never match. */
static bool same(const lsl_value *x, const lsl_value *y)
{
    if (x->type != y->type)
        return false;
    if (x->type == LSL_TYPE_FLOAT) /* here, and only here, NaN matches NaN */
        return x->u.f == y->u.f || (isnan(x->u.f) && isnan(y->u.f));
    return lsl_value_equal(x, y);
}

static bool match_at(const lsl_value *src, size_t n, const lsl_value *test, size_t m, size_t at)
{
    if (at + m > n)
        return false;
    for (size_t k = 0; k < m; k++)
        if (!same(&src[at + k], &test[k]))
            return false;
    return true;
}

gsvm_status lsl_lib_llListFindList(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* The first index where test occurs as a sub-list, -1 if none; an
     * empty test is found at 0. */
    size_t n = llen(&a[0]), m = llen(&a[1]);
    if (m == 0)
        return lsl_ret_int(ret, 0);
    for (size_t i = 0; i + m <= n; i++)
        if (match_at(litems(&a[0]), n, litems(&a[1]), m, i))
            return lsl_ret_int(ret, (int32_t)i);
    return lsl_ret_int(ret, -1);
}

gsvm_status lsl_lib_llListFindListNext(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* The index of occurrence number `instance` of test (0 = first;
     * negative counts from the last, -1 = last), -1 if there is no such
     * occurrence.  Occurrences may overlap.  An empty test is never found. */
    size_t n = llen(&a[0]), m = llen(&a[1]);
    int32_t inst = a[2].u.i;
    if (m == 0 || m > n)
        return lsl_ret_int(ret, -1);
    if (inst >= 0) {
        for (size_t i = 0; i + m <= n; i++)
            if (match_at(litems(&a[0]), n, litems(&a[1]), m, i) && inst-- == 0)
                return lsl_ret_int(ret, (int32_t)i);
    } else {
        for (size_t i = n - m + 1; i-- > 0;)
            if (match_at(litems(&a[0]), n, litems(&a[1]), m, i) && ++inst == 0)
                return lsl_ret_int(ret, (int32_t)i);
    }
    return lsl_ret_int(ret, -1);
}

/* The text of separators/spacers (non-strings converted as llList2String). */
typedef struct delim {
    gsvm_buf text;
    bool spacer;
} delim;

static gsvm_status parse(lsl_call_ctx *ctx, const lsl_value *a, bool keep_nulls, lsl_value *ret)
{
    /* At each position the first separator, then spacer, in list order that
     * matches there wins; separators are dropped, spacers kept as elements;
     * empty delimiters are ignored.  SL looks at only the first 8
     * separators and 8 spacers, and so does gsvm.  llParseString2List drops
     * empty elements, llParseStringKeepNulls keeps them. */
    enum { MAX_DELIMS = 8 };
    delim d[2 * MAX_DELIMS];
    size_t nd = 0;
    for (int kind = 0; kind < 2; kind++) {
        const lsl_value *list = &a[1 + kind];
        size_t count = llen(list) < MAX_DELIMS ? llen(list) : MAX_DELIMS;
        for (size_t i = 0; i < count; i++) {
            gsvm_buf_init(&d[nd].text);
            lsl_value_append_text(&d[nd].text, &litems(list)[i], true);
            d[nd].spacer = kind == 1;
            if (d[nd].text.len == 0)
                gsvm_buf_free(&d[nd].text);
            else
                nd++;
        }
    }
    /* the bytes a delimiter starts with: an ASCII byte that is none of
     * them is a character no delimiter matches at, stepped over at once */
    bool starts[256] = {false};
    for (size_t k = 0; k < nd; k++)
        starts[d[k].text.data[0]] = true;
    const char *s = lsl_str_data(&a[0]);
    const unsigned char *u = (const unsigned char *)s;
    size_t len = lsl_str_len(&a[0]);
    vec v = {0};
    gsvm_status st = GSVM_OK;
    size_t tok = 0, pos = 0;
    while (!st) {
        while (pos < len && u[pos] < 0x80 && !starts[u[pos]])
            pos++;
        size_t k = nd;
        if (pos < len)
            for (k = 0; k < nd; k++)
                if (d[k].text.data[0] == u[pos] && d[k].text.len <= len - pos &&
                    memcmp(s + pos, d[k].text.data, d[k].text.len) == 0)
                    break;
        bool at_end = pos >= len;
        if (k == nd && !at_end) {
            pos = lsl_utf8_next(s, len, pos);
            continue;
        }
        lsl_value e;
        if (pos > tok || keep_nulls) {
            st = lsl_string_new(ctx->heap, LSL_TYPE_STRING, s + tok, pos - tok, &e, ctx->err);
            if (!st)
                vec_push(&v, &e);
        }
        if (at_end)
            break;
        if (!st && d[k].spacer) {
            st = lsl_string_new(ctx->heap, LSL_TYPE_STRING, (const char *)d[k].text.data, d[k].text.len,
                                &e, ctx->err);
            if (!st)
                vec_push(&v, &e);
        }
        pos += d[k].text.len;
        tok = pos;
    }
    for (size_t i = 0; i < nd; i++)
        gsvm_buf_free(&d[i].text);
    if (st) {
        vec_free(&v, true);
        return st;
    }
    return vec_finish(ctx, &v, true, ret);
}

gsvm_status lsl_lib_llParseString2List(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return parse(ctx, a, false, ret);
}

gsvm_status lsl_lib_llParseStringKeepNulls(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return parse(ctx, a, true, ret);
}

gsvm_status lsl_lib_llListReplaceList(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Second Life's rules: start <= end (after negative indexes): the
     * elements before start, then src, then those after end; start > end:
     * the elements strictly between end and start, then src.  A start
     * before the beginning (start < -length) drops src. */
    const lsl_value *dest = &a[0];
    int64_t n = (int64_t)llen(dest);
    int64_t s = a[2].u.i, e = a[3].u.i;
    bool use_src = s >= -n;
    int64_t ns = s < 0 ? s + n : s, ne = e < 0 ? e + n : e;
    if (e == -1)
        e += n;
    vec v = {0};
    const lsl_value *it = litems(dest);
    if (ns > ne) {
        for (int64_t i = e + 1 == 0 ? 0 : py_bound(n, e + 1), to = py_bound(n, s); i < to; i++)
            vec_push(&v, &it[i]);
    } else {
        for (int64_t i = 0, to = py_bound(n, s); i < to; i++)
            vec_push(&v, &it[i]);
    }
    if (use_src)
        for (size_t i = 0; i < llen(&a[1]); i++)
            vec_push(&v, &litems(&a[1])[i]);
    if (ns <= ne)
        for (int64_t i = e + 1 == 0 ? 0 : py_bound(n, e + 1); i < n; i++)
            vec_push(&v, &it[i]);
    return vec_finish(ctx, &v, false, ret);
}
