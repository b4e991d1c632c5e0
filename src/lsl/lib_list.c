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

/* Builds the list (retaining), then releases the vector's owned values
 * when `owned`. */
static gsvm_status vec_finish(lsl_call_ctx *ctx, vec *v, bool owned, lsl_value *ret)
{
    gsvm_status st = v->oom ? gsvm_error_set(ctx->err, GSVM_ERR_NOMEM, NULL, "out of memory")
                            : ret_items(ctx, v->items, v->n, ret);
    if (owned)
        for (size_t i = 0; i < v->n; i++)
            lsl_value_release(&v->items[i]);
    free(v->items);
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
    for (size_t i = 0; i < llen(list); i++) {
        if (i)
            gsvm_buf_append(&b, sep, seplen);
        lsl_value_append_text(&b, &litems(list)[i], true);
    }
    return lsl_ret_buf(ctx, LSL_TYPE_STRING, &b, ret);
}

gsvm_status lsl_lib_llDumpList2String(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return join(ctx, &a[0], lsl_str_data(&a[1]), lsl_str_len(&a[1]), ret);
}

gsvm_status lsl_lib_llList2CSV(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return join(ctx, &a[0], ", ", 2, ret);
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

gsvm_status lsl_lib_llCSV2List(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Splits at commas that are not inside <...> (so vectors and rotations
     * stay whole), trims white space around each element; every element is
     * a string.  "" gives []. */
    const char *s = lsl_str_data(&a[0]);
    size_t len = lsl_str_len(&a[0]);
    vec v = {0};
    gsvm_status st = GSVM_OK;
    if (len == 0)
        return vec_finish(ctx, &v, true, ret);
    size_t start = 0;
    int depth = 0;
    for (size_t i = 0; i <= len && !st; i++) {
        if (i < len && s[i] == '<') {
            depth++;
        } else if (i < len && s[i] == '>') {
            if (depth > 0)
                depth--;
        } else if (i == len || (s[i] == ',' && depth == 0)) {
            size_t from = start, to = i;
            while (from < to && is_space(s[from]))
                from++;
            while (to > from && is_space(s[to - 1]))
                to--;
            lsl_value e;
            st = lsl_string_new(ctx->heap, LSL_TYPE_STRING, s + from, to - from, &e, ctx->err);
            if (!st)
                vec_push(&v, &e);
            start = i + 1;
        }
    }
    if (st) {
        for (size_t i = 0; i < v.n; i++)
            lsl_value_release(&v.items[i]);
        free(v.items);
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

gsvm_status lsl_lib_llList2ListStrided(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* The first element of every stride whose index lies in [start, end]
     * (negative indexes from the end; start rounds up to a multiple of
     * stride; a stride < 1 counts as 1).  An inverted range gives []. */
    int64_t n = (int64_t)llen(&a[0]);
    int64_t stride = a[3].u.i < 1 ? 1 : a[3].u.i;
    int64_t s = a[1].u.i < 0 ? a[1].u.i + n : a[1].u.i;
    int64_t e = a[2].u.i < 0 ? a[2].u.i + n : a[2].u.i;
    if (s < 0)
        s = 0;
    if (e >= n)
        e = n - 1;
    vec v = {0};
    if (s % stride)
        s += stride - s % stride;
    for (int64_t i = s; i <= e; i += stride)
        vec_push(&v, &litems(&a[0])[i]);
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
 * matches 1.0, nor "a" the key "a"); floats compare with ==. */
static bool same(const lsl_value *x, const lsl_value *y)
{
    return x->type == y->type && lsl_value_equal(x, y);
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
        for (size_t i = 0; i < v.n; i++)
            lsl_value_release(&v.items[i]);
        free(v.items);
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
    /* start <= end (after negative indexes): dest[0, start) + src +
     * dest(end, len).  An inverted range (start > end) removes both outer
     * pieces [0, end] and [start, len) and appends src to what remains
     * (the wiki leaves this case open; this mirrors llDeleteSubList). */
    const lsl_value *dest = &a[0], *src = &a[1];
    int64_t n = (int64_t)llen(dest);
    int64_t s = a[2].u.i < 0 ? a[2].u.i + n : a[2].u.i;
    int64_t e = a[3].u.i < 0 ? a[3].u.i + n : a[3].u.i;
    vec v = {0};
    const lsl_value *it = litems(dest);
    if (s <= e) {
        int64_t head = s < 0 ? 0 : s > n ? n : s;
        int64_t tail = e + 1 < head ? head : e + 1 > n ? n : e + 1;
        for (int64_t i = 0; i < head; i++)
            vec_push(&v, &it[i]);
        for (size_t i = 0; i < llen(src); i++)
            vec_push(&v, &litems(src)[i]);
        for (int64_t i = tail; i < n; i++)
            vec_push(&v, &it[i]);
    } else {
        int64_t from = e + 1 < 0 ? 0 : e + 1, to = s > n ? n : s;
        for (int64_t i = from; i < to; i++)
            vec_push(&v, &it[i]);
        for (size_t i = 0; i < llen(src); i++)
            vec_push(&v, &litems(src)[i]);
    }
    return vec_finish(ctx, &v, false, ret);
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

gsvm_status lsl_lib_llListStatistics(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Integer and float elements only (others ignored); an empty set gives
     * 0.0.  STD_DEV is the sample deviation (n - 1); GEOMETRIC_MEAN of a set
     * holding a value <= 0 is 0.0. */
    size_t n = llen(&a[1]), k = 0;
    double *x = malloc((n ? n : 1) * sizeof *x);
    if (!x)
        return gsvm_error_set(ctx->err, GSVM_ERR_NOMEM, NULL, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const lsl_value *e = &litems(&a[1])[i];
        if (e->type == LSL_TYPE_INTEGER)
            x[k++] = e->u.i;
        else if (e->type == LSL_TYPE_FLOAT)
            x[k++] = e->u.f;
    }
    double r = 0, sum = 0, sq = 0;
    for (size_t i = 0; i < k; i++) {
        sum += x[i];
        sq += x[i] * x[i];
    }
    if (k > 0) {
        qsort(x, k, sizeof *x, cmp_double);
        switch (a[0].u.i) {
        case 0: r = x[k - 1] - x[0]; break;                        /* RANGE */
        case 1: r = x[0]; break;                                   /* MIN */
        case 2: r = x[k - 1]; break;                               /* MAX */
        case 3: r = sum / (double)k; break;                        /* MEAN */
        case 4: r = k % 2 ? x[k / 2] : (x[k / 2 - 1] + x[k / 2]) / 2; break; /* MEDIAN */
        case 5:                                                    /* STD_DEV */
            r = k > 1 ? sqrt((sq - sum * sum / (double)k) / (double)(k - 1)) : 0;
            break;
        case 6: r = sum; break;                                    /* SUM */
        case 7: r = sq; break;                                     /* SUM_SQUARES */
        case 8: r = (double)k; break;                              /* NUM_COUNT */
        case 9: {                                                  /* GEOMETRIC_MEAN */
            double lg = 0;
            bool ok = true;
            for (size_t i = 0; i < k; i++) {
                if (x[i] <= 0)
                    ok = false;
                else
                    lg += log(x[i]);
            }
            r = ok ? exp(lg / (double)k) : 0;
            break;
        }
        default: r = 0; break;
        }
    } else if (a[0].u.i == 8) {
        r = 0;
    }
    free(x);
    return lsl_ret_float(ret, (float)r);
}

/* Sort order of two elements: numbers (integer and float together)
 * numerically, strings and keys bytewise, vectors by magnitude, rotations
 * all equal; elements of different kinds by type code. */
static int sort_kind(lsl_type t)
{
    return t == LSL_TYPE_FLOAT ? LSL_TYPE_INTEGER : t == LSL_TYPE_KEY ? LSL_TYPE_STRING : t;
}

static int compare(const lsl_value *x, const lsl_value *y)
{
    int kx = sort_kind(x->type), ky = sort_kind(y->type);
    if (kx != ky)
        return kx < ky ? -1 : 1;
    switch (kx) {
    case LSL_TYPE_INTEGER: {
        if (x->type == LSL_TYPE_INTEGER && y->type == LSL_TYPE_INTEGER)
            return x->u.i < y->u.i ? -1 : x->u.i > y->u.i;
        double a = x->type == LSL_TYPE_INTEGER ? x->u.i : x->u.f;
        double b = y->type == LSL_TYPE_INTEGER ? y->u.i : y->u.f;
        return a < b ? -1 : a > b;
    }
    case LSL_TYPE_STRING: {
        size_t la = lsl_str_len(x), lb = lsl_str_len(y);
        int c = memcmp(lsl_str_data(x), lsl_str_data(y), la < lb ? la : lb);
        return c ? (c < 0 ? -1 : 1) : la < lb ? -1 : la > lb;
    }
    case LSL_TYPE_VECTOR: {
        double a = (double)x->u.v[0] * x->u.v[0] + (double)x->u.v[1] * x->u.v[1] + (double)x->u.v[2] * x->u.v[2];
        double b = (double)y->u.v[0] * y->u.v[0] + (double)y->u.v[1] * y->u.v[1] + (double)y->u.v[2] * y->u.v[2];
        return a < b ? -1 : a > b;
    }
    default: return 0;
    }
}

/* Stable merge sort of stride groups by the key element at `key`. */
static void merge_sort(size_t *idx, size_t *tmp, size_t n, const lsl_value *items, size_t stride,
                       size_t key, bool asc)
{
    if (n < 2)
        return;
    size_t h = n / 2;
    merge_sort(idx, tmp, h, items, stride, key, asc);
    merge_sort(idx + h, tmp, n - h, items, stride, key, asc);
    size_t i = 0, j = h, o = 0;
    while (i < h && j < n) {
        int c = compare(&items[idx[j] * stride + key], &items[idx[i] * stride + key]);
        if (!asc)
            c = -c;
        tmp[o++] = c < 0 ? idx[j++] : idx[i++];
    }
    while (i < h)
        tmp[o++] = idx[i++];
    while (j < n)
        tmp[o++] = idx[j++];
    memcpy(idx, tmp, n * sizeof *idx);
}

static gsvm_status sort_strided(lsl_call_ctx *ctx, const lsl_value *list, int32_t stride_in,
                                int32_t key_in, bool asc, lsl_value *ret)
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
    size_t *idx = malloc(groups * sizeof *idx), *tmp = malloc(groups * sizeof *tmp);
    if (!idx || !tmp) {
        free(idx);
        free(tmp);
        return gsvm_error_set(ctx->err, GSVM_ERR_NOMEM, NULL, "out of memory");
    }
    for (size_t i = 0; i < groups; i++)
        idx[i] = i;
    merge_sort(idx, tmp, groups, litems(list), stride, (size_t)key, asc);
    vec v = {0};
    for (size_t g = 0; g < groups; g++)
        for (size_t k = 0; k < stride; k++)
            vec_push(&v, &litems(list)[idx[g] * stride + k]);
    free(idx);
    free(tmp);
    return vec_finish(ctx, &v, false, ret);
}

gsvm_status lsl_lib_llListSort(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Sorts stride groups by their first element (stably); a stride < 1
     * counts as 1; a stride that does not divide the length returns the
     * list unchanged.  ascending FALSE sorts descending. */
    return sort_strided(ctx, &a[0], a[1].u.i, 0, a[2].u.i != 0, ret);
}

gsvm_status lsl_lib_llListSortStrided(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* As llListSort, keyed on element stride_index of each group (negative
     * counts from the group's end); an index outside the group returns the
     * list unchanged. */
    return sort_strided(ctx, &a[0], a[1].u.i, a[2].u.i, a[3].u.i != 0, ret);
}
