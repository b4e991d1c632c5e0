/* Native list functions: element access and conversion, slicing with SL's
 * index rules, search, sort, parsing and joining. */
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
        *ret = lsl_empty(LSL_TYPE_STRING);
        return GSVM_OK;
    }
    return text_of(ctx, e, LSL_TYPE_STRING, ret);
}

gsvm_status lsl_lib_llList2Key(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    const lsl_value *e = element(&a[0], a[1].u.i);
    if (!e || (e->type != LSL_TYPE_STRING && e->type != LSL_TYPE_KEY)) {
        *ret = lsl_empty(LSL_TYPE_KEY);
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
    const char *s = lsl_str_data(&a[0]);
    size_t len = lsl_str_len(&a[0]);
    vec v = {0};
    gsvm_status st = GSVM_OK;
    size_t tok = 0, pos = 0;
    while (!st) {
        size_t k = nd;
        if (pos < len)
            for (k = 0; k < nd; k++)
                if (d[k].text.len <= len - pos && memcmp(s + pos, d[k].text.data, d[k].text.len) == 0)
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

/* Second Life's "a > b" for sorting: only elements of the same type
 * compare; vectors by squared length; rotations never; a NaN counts as
 * greater. */
static bool sort_gt(const lsl_value *x, const lsl_value *y)
{
    if (x->type != y->type)
        return false;
    switch (x->type) {
    case LSL_TYPE_INTEGER: return x->u.i > y->u.i;
    case LSL_TYPE_FLOAT: return !(x->u.f <= y->u.f);
    case LSL_TYPE_STRING:
    case LSL_TYPE_KEY: {
        /* UTF-8 byte order is code point order */
        size_t la = lsl_str_len(x), lb = lsl_str_len(y);
        int c = memcmp(lsl_str_data(x), lsl_str_data(y), la < lb ? la : lb);
        return c > 0 || (c == 0 && la > lb);
    }
    case LSL_TYPE_VECTOR: {
        double a = (double)x->u.v[0] * x->u.v[0] + (double)x->u.v[1] * x->u.v[1] + (double)x->u.v[2] * x->u.v[2];
        double b = (double)y->u.v[0] * y->u.v[0] + (double)y->u.v[1] * y->u.v[1] + (double)y->u.v[2] * y->u.v[2];
        return !(a <= b);
    }
    default: return false;
    }
}

/* Second Life's sort, exactly: for each stride group in turn, compare its
 * key element with that of every later group and swap the two groups when
 * "greater" (ascending == 1) or when NOT greater (any other value of
 * ascending).  Quadratic and not stable, but that is what scripts observe
 * (e.g. the order of equal keys when sorting descending, and that mixed
 * types are never reordered relative to each other by comparison).
 * Kept as the fallback for the inputs the fast path below cannot predict. */
static void sl_sort_exchange(const lsl_value *it, size_t stride, size_t key, size_t groups, int32_t ascending,
                             size_t *idx)
{
    for (size_t i = 0; i + 1 < groups; i++)
        for (size_t j = i + 1; j < groups; j++) {
            bool gt = sort_gt(&it[idx[i] * stride + key], &it[idx[j] * stride + key]);
            if (gt != (ascending != 1)) {
                size_t t = idx[i];
                idx[i] = idx[j];
                idx[j] = t;
            }
        }
}

/* True when "greater" is a strict weak order over these keys: all of one
 * type that compares (integer, float, string, key, vector) and no NaN. */
static bool sort_keys_ordered(const lsl_value *it, size_t stride, size_t key, size_t groups)
{
    lsl_type t = it[key].type;
    if (t != LSL_TYPE_INTEGER && t != LSL_TYPE_FLOAT && t != LSL_TYPE_STRING && t != LSL_TYPE_KEY &&
        t != LSL_TYPE_VECTOR)
        return false;
    for (size_t g = 0; g < groups; g++) {
        const lsl_value *e = &it[g * stride + key];
        if (e->type != t)
            return false;
        if (t == LSL_TYPE_FLOAT && isnan(e->u.f))
            return false;
        if (t == LSL_TYPE_VECTOR && (isnan(e->u.v[0]) || isnan(e->u.v[1]) || isnan(e->u.v[2])))
            return false;
    }
    return true;
}

/* Whether two elements are indistinguishable to a script (floats by bits,
 * so 0.0 and -0.0 differ). */
static bool same_value(const lsl_value *x, const lsl_value *y)
{
    if (x->type != y->type)
        return false;
    switch (x->type) {
    case LSL_TYPE_INTEGER: return x->u.i == y->u.i;
    case LSL_TYPE_FLOAT: return memcmp(&x->u.f, &y->u.f, sizeof x->u.f) == 0;
    case LSL_TYPE_VECTOR: return memcmp(x->u.v, y->u.v, 3 * sizeof x->u.v[0]) == 0;
    case LSL_TYPE_ROTATION: return memcmp(x->u.v, y->u.v, 4 * sizeof x->u.v[0]) == 0;
    case LSL_TYPE_STRING:
    case LSL_TYPE_KEY:
        return lsl_str_len(x) == lsl_str_len(y) &&
               memcmp(lsl_str_data(x), lsl_str_data(y), lsl_str_len(x)) == 0;
    default: return false;
    }
}

/* Stable merge sort of group indices: ascending by key when `up`, else
 * descending by key. */
static void merge_sort_groups(const lsl_value *it, size_t stride, size_t key, bool up, size_t *idx, size_t *tmp,
                              size_t n)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    merge_sort_groups(it, stride, key, up, idx, tmp, h);
    merge_sort_groups(it, stride, key, up, idx + h, tmp, n - h);
    const lsl_value *lk = &it[idx[h - 1] * stride + key], *rk = &it[idx[h] * stride + key];
    if (up ? !sort_gt(lk, rk) : !sort_gt(rk, lk))
        return; /* already in order */
    memcpy(tmp, idx, h * sizeof *idx);
    size_t i = 0, j = h, o = 0;
    while (i < h && j < n) {
        const lsl_value *a = &it[tmp[i] * stride + key], *b = &it[idx[j] * stride + key];
        /* the right one goes first only when it strictly precedes */
        if (up ? sort_gt(a, b) : sort_gt(b, a))
            idx[o++] = idx[j++];
        else
            idx[o++] = tmp[i++];
    }
    while (i < h)
        idx[o++] = tmp[i++];
}

/* An order-preserving unsigned image of an integer or (non-NaN) float
 * key; -0.0 maps like 0.0 because the two compare equal. */
static uint32_t radix_key(const lsl_value *e)
{
    if (e->type == LSL_TYPE_INTEGER)
        return (uint32_t)e->u.i ^ 0x80000000u;
    float f = e->u.f == 0 ? 0.0f : e->u.f;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b & 0x80000000u ? ~b : b | 0x80000000u;
}

/* Stable LSD radix sort of group indices by integer or float key,
 * ascending (equal keys keep index order); bytes that are the same in every
 * key cost no pass.  `tmp` holds 3 * groups entries. */
static void radix_sort_groups(const lsl_value *it, size_t stride, size_t key, size_t *idx, size_t *tmp,
                              size_t groups)
{
    uint32_t *keys = (uint32_t *)(void *)(tmp + groups), *keys2 = (uint32_t *)(void *)(tmp + 2 * groups);
    uint32_t all_and = 0xffffffffu, all_or = 0;
    for (size_t g = 0; g < groups; g++) {
        keys[g] = radix_key(&it[idx[g] * stride + key]);
        all_and &= keys[g];
        all_or |= keys[g];
    }
    for (unsigned shift = 0; shift < 32; shift += 8) {
        if ((((all_and ^ all_or) >> shift) & 0xffu) == 0)
            continue; /* this byte is the same in every key */
        size_t count[257] = {0};
        for (size_t g = 0; g < groups; g++)
            count[((keys[g] >> shift) & 0xffu) + 1]++;
        for (unsigned b = 0; b < 256; b++)
            count[b + 1] += count[b];
        for (size_t g = 0; g < groups; g++) {
            size_t o = count[(keys[g] >> shift) & 0xffu]++;
            tmp[o] = idx[g];
            keys2[o] = keys[g];
        }
        memcpy(idx, tmp, groups * sizeof *idx);
        memcpy(keys, keys2, groups * sizeof *keys);
    }
}

/* sl_sort_exchange, ascending, over integer ranks of the keys: the element
 * at i is the running candidate, swapped out whenever a later rank is
 * smaller. */
static void sl_sort_exchange_keys(uint32_t *keys, size_t *idx, size_t groups)
{
    for (size_t i = 0; i + 1 < groups; i++) {
        uint32_t c = keys[i];
        size_t ci = idx[i];
        for (size_t j = i + 1; j < groups; j++)
            if (c > keys[j]) {
                uint32_t t = keys[j];
                size_t ti = idx[j];
                keys[j] = c;
                idx[j] = ci;
                c = t;
                ci = ti;
            }
        keys[i] = c;
        idx[i] = ci;
    }
}

/* The first position >= from (and < hi) in the subtree `node` over
 * [lo, hi) of a min segment tree whose value is below c, or SIZE_MAX. */
static size_t seg_first_below(const uint32_t *t, size_t node, size_t lo, size_t hi, size_t from, uint32_t c)
{
    if (hi <= from || t[node] >= c)
        return SIZE_MAX;
    if (hi - lo == 1)
        return lo;
    size_t mid = lo + (hi - lo) / 2;
    size_t r = seg_first_below(t, 2 * node, lo, mid, from, c);
    return r != SIZE_MAX ? r : seg_first_below(t, 2 * node + 1, mid, hi, from, c);
}

static void seg_set(uint32_t *t, size_t size, size_t pos, uint32_t v)
{
    size_t node = size + pos;
    t[node] = v;
    for (node /= 2; node >= 1; node /= 2)
        t[node] = t[2 * node] < t[2 * node + 1] ? t[2 * node] : t[2 * node + 1];
}

/* sl_sort_exchange_keys, simulated: in a pass the candidate only changes
 * at the next position holding a smaller rank, which a min segment tree
 * finds in O(log n), and those (strictly decreasing) ranks are at most as
 * many as the distinct ranks.  False when out of memory. */
static bool sl_sort_exchange_keys_seg(uint32_t *keys, size_t *idx, size_t groups)
{
    size_t size = 1;
    while (size < groups)
        size *= 2;
    uint32_t *t = malloc(2 * size * sizeof *t);
    if (!t)
        return false;
    for (size_t i = 0; i < size; i++)
        t[size + i] = i < groups ? keys[i] : UINT32_MAX;
    for (size_t node = size - 1; node >= 1; node--)
        t[node] = t[2 * node] < t[2 * node + 1] ? t[2 * node] : t[2 * node + 1];
    for (size_t i = 0; i + 1 < groups; i++) {
        uint32_t c = keys[i];
        size_t ci = idx[i];
        for (size_t j = i + 1;; j++) {
            j = seg_first_below(t, 1, 0, size, j, c);
            if (j == SIZE_MAX)
                break;
            uint32_t tk = keys[j];
            size_t ti = idx[j];
            keys[j] = c;
            idx[j] = ci;
            seg_set(t, size, j, c);
            c = tk;
            ci = ti;
        }
        keys[i] = c;
        idx[i] = ci;
    }
    free(t);
    return true;
}

/* The exchange sort's result, fast, when the keys are in a strict weak
 * order; false (for the caller to run the exchange sort itself) otherwise.
 * With such an order every pass of the exchange sort moves a least
 * (ascending) or greatest key to the front, so the keys come out sorted.
 * Descending, a pass picks the LAST of the greatest keys, and the result is
 * exactly the stable descending sort of the reversed list: O(n log n).
 * Ascending, equal keys come out in an order that depends on the whole list:
 * the sorted result stands when the groups of every run of equal keys are
 * indistinguishable, else the exchange sort runs over the keys' ranks
 * (still quadratic, but a tight loop over integers). */
static bool sl_sort_fast(const lsl_value *it, size_t stride, size_t key, size_t groups, int32_t ascending,
                         size_t *idx, size_t *tmp)
{
    if (!sort_keys_ordered(it, stride, key, groups))
        return false;
    bool up = ascending == 1;
    lsl_type t = it[key].type;
    if (t == LSL_TYPE_INTEGER || t == LSL_TYPE_FLOAT) {
        /* ascending by (key, index), which read backwards is the
         * descending order by (key, index) */
        for (size_t g = 0; g < groups; g++)
            idx[g] = g;
        radix_sort_groups(it, stride, key, idx, tmp, groups);
        if (!up)
            for (size_t i = 0, j = groups - 1; i < j; i++, j--) {
                size_t x = idx[i];
                idx[i] = idx[j];
                idx[j] = x;
            }
    } else {
        for (size_t g = 0; g < groups; g++)
            idx[g] = up ? g : groups - 1 - g;
        merge_sort_groups(it, stride, key, up, idx, tmp, groups);
    }
    if (!up)
        return true;
    bool distinct_ties = false;
    for (size_t g = 0; g + 1 < groups && !distinct_ties; g++) {
        const lsl_value *x = &it[idx[g] * stride], *y = &it[idx[g + 1] * stride];
        if (sort_gt(&y[key], &x[key]))
            continue; /* a new run of keys */
        for (size_t k = 0; k < stride && !distinct_ties; k++)
            distinct_ties = !same_value(&x[k], &y[k]);
    }
    if (!distinct_ties)
        return true;
    /* the exchange sort itself, over each group's rank among the sorted
     * keys: the same comparisons, without the type dispatch */
    uint32_t *ranks = (uint32_t *)(void *)tmp, r = 0;
    ranks[idx[0]] = 0;
    for (size_t g = 1; g < groups; g++) {
        r += sort_gt(&it[idx[g] * stride + key], &it[idx[g - 1] * stride + key]);
        ranks[idx[g]] = r;
    }
    for (size_t g = 0; g < groups; g++)
        idx[g] = g;
    /* with few distinct keys among many groups, the simulation is far
     * cheaper than the quadratic loop */
    if (groups < 32 || (size_t)r * 16 >= groups || !sl_sort_exchange_keys_seg(ranks, idx, groups))
        sl_sort_exchange_keys(ranks, idx, groups);
    return true;
}

static gsvm_status sl_sort(lsl_call_ctx *ctx, const lsl_value *list, int32_t stride_in, int32_t key_in,
                           int32_t ascending, lsl_value *ret)
{
    size_t n = llen(list);
    size_t stride = stride_in < 1 ? 1 : (size_t)stride_in;
    int64_t key = key_in < 0 ? key_in + (int64_t)stride : key_in;
    if (n == 0 || n % stride != 0 || key < 0 || key >= (int64_t)stride) {
        *ret = *list;
        lsl_value_retain(ret);
        return GSVM_OK;
    }
    size_t groups = n / stride;
    size_t *idx = malloc(groups * 4 * sizeof *idx); /* idx, then 3 * groups of scratch */
    if (!idx)
        return gsvm_error_set(ctx->err, GSVM_ERR_NOMEM, NULL, "out of memory");
    const lsl_value *it = litems(list);
    if (!sl_sort_fast(it, stride, (size_t)key, groups, ascending, idx, idx + groups)) {
        for (size_t g = 0; g < groups; g++)
            idx[g] = g;
        sl_sort_exchange(it, stride, (size_t)key, groups, ascending, idx);
    }
    /* the sorted items, borrowed: the new list retains them */
    lsl_value *out = malloc(n * sizeof *out);
    if (!out) {
        free(idx);
        return gsvm_error_set(ctx->err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    for (size_t g = 0, o = 0; g < groups; g++, o += stride)
        memcpy(&out[o], &it[idx[g] * stride], stride * sizeof *out);
    free(idx);
    gsvm_status st = ret_items(ctx, out, n, ret);
    free(out);
    return st;
}

gsvm_status lsl_lib_llListSort(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Sorts stride groups by their first element; a stride < 1 counts as 1;
     * a stride that does not divide the length returns the list unchanged. */
    return sl_sort(ctx, &a[0], a[1].u.i, 0, a[2].u.i, ret);
}

gsvm_status lsl_lib_llListSortStrided(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* As llListSort, keyed on element stride_index of each group (negative
     * counts from the group's end); an index outside the group returns the
     * list unchanged (the wiki leaves this open). */
    return sl_sort(ctx, &a[0], a[1].u.i, a[2].u.i, a[3].u.i, ret);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

gsvm_status lsl_lib_llListStatistics(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Integer and float elements only, taken last to first as SL does (it
     * matters for rounding and NaN); none gives 0.0.  MEAN and STD_DEV
     * (sample, n - 1) use Welford's running update; MEDIAN sorts with
     * llListSort's rule; GEOMETRIC_MEAN of a set holding a value <= 0 is
     * 0.0; an unknown operation gives 0.0. */
    size_t n = llen(&a[1]), k = 0;
    double *x = malloc((n ? n : 1) * sizeof *x);
    if (!x)
        return gsvm_error_set(ctx->err, GSVM_ERR_NOMEM, NULL, "out of memory");
    for (size_t i = n; i-- > 0;) {
        const lsl_value *e = &litems(&a[1])[i];
        if (e->type == LSL_TYPE_INTEGER)
            x[k++] = e->u.i;
        else if (e->type == LSL_TYPE_FLOAT)
            x[k++] = e->u.f;
    }
    double r = 0;
    int op = a[0].u.i;
    if (k == 0) {
        r = 0;
    } else if (op == 8) { /* NUM_COUNT */
        r = (double)k;
    } else if (op >= 0 && op <= 2) { /* RANGE, MIN, MAX */
        double lo = x[0], hi = x[0];
        for (size_t i = 1; i < k; i++) {
            if (x[i] < lo)
                lo = x[i];
            if (x[i] > hi)
                hi = x[i];
        }
        r = op == 0 ? hi - lo : op == 1 ? lo : hi;
    } else if (op == 4) { /* MEDIAN */
        /* the exchange sort SL uses; without NaN (which never compares) and
         * -0.0 (equal to 0.0 yet printed differently) equal values are
         * identical, and any sort gives the same result */
        bool plain = true;
        for (size_t i = 0; i < k && plain; i++)
            plain = !isnan(x[i]) && !(x[i] == 0 && signbit(x[i]));
        if (plain) {
            qsort(x, k, sizeof *x, cmp_double);
        } else {
            for (size_t i = 0; i + 1 < k; i++)
                for (size_t j = i + 1; j < k; j++)
                    if (!(x[i] <= x[j])) {
                        double t = x[i];
                        x[i] = x[j];
                        x[j] = t;
                    }
        }
        r = k & 1 ? x[k / 2] : (x[k / 2 - 1] + x[k / 2]) * 0.5;
    } else if (op == 3 || (op >= 5 && op <= 7)) { /* MEAN, STD_DEV, SUM, SUM_SQUARES */
        double sum = 0, sq = 0, mean = 0, m2 = 0, cnt = 0;
        for (size_t i = 0; i < k; i++) {
            cnt += 1;
            sum += x[i];
            sq += x[i] * x[i];
            double delta = x[i] - mean;
            mean += delta / cnt;
            m2 += delta * (x[i] - mean);
        }
        r = op == 3 ? mean : op == 5 ? (cnt == 1 ? 0 : sqrt(m2 / (cnt - 1))) : op == 6 ? sum : sq;
    } else if (op == 9) { /* GEOMETRIC_MEAN */
        double lg = 0, cnt = 0;
        bool nonpositive = false;
        for (size_t i = 0; i < k && !nonpositive; i++) {
            if (x[i] <= 0) {
                nonpositive = true;
            } else {
                cnt += 1;
                lg += (log(x[i]) - lg) / cnt;
            }
        }
        r = nonpositive ? 0 : exp(lg);
    }
    free(x);
    return lsl_ret_float(ret, (float)r);
}
