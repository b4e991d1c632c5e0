/* Native list functions: sorting (llListSort, llListSortStrided) and
 * llListStatistics.  The rest of the list library is in lib_list.c. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lsl/lib.h"

static size_t llen(const lsl_value *v) { return lsl_list_len(v); }
static const lsl_value *litems(const lsl_value *v) { return lsl_list_items(v); }

/* A new list from a slice of items (retained). */
static gsvm_status ret_items(lsl_call_ctx *ctx, const lsl_value *items, size_t n, lsl_value *ret)
{
    return lsl_list_new(ctx->heap, items, n, ret, ctx->err);
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
