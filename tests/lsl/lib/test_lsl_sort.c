/* llListSort and llListSortStrided against Second Life's exchange sort, kept
 * here as the reference (the library takes an O(n log n) path where it can
 * predict the result): many random lists of mixed and uniform types, with
 * ties, NaN, 0.0 / -0.0, vectors of equal length, every kind of stride and
 * stride index and several values of the ascending flag. */
#include "lib_test.h"

/* ---- the reference: SL's sort as the library first implemented it ---- */

static bool ref_gt(const lsl_value *x, const lsl_value *y)
{
    if (x->type != y->type)
        return false;
    switch (x->type) {
    case LSL_TYPE_INTEGER: return x->u.i > y->u.i;
    case LSL_TYPE_FLOAT: return !(x->u.f <= y->u.f);
    case LSL_TYPE_STRING:
    case LSL_TYPE_KEY: {
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

/* Fills out[] with the sorted items; returns their count. */
static size_t ref_sort(const lsl_value *it, size_t n, int32_t stride_in, int32_t key_in, int32_t ascending,
                       lsl_value *out)
{
    size_t stride = stride_in < 1 ? 1 : (size_t)stride_in;
    int64_t key = key_in < 0 ? key_in + (int64_t)stride : key_in;
    if (n == 0 || n % stride != 0 || key < 0 || key >= (int64_t)stride) {
        memcpy(out, it, n * sizeof *it);
        return n;
    }
    size_t groups = n / stride, *idx = malloc(groups * sizeof *idx);
    if (!idx)
        return 0;
    for (size_t g = 0; g < groups; g++)
        idx[g] = g;
    for (size_t i = 0; i + 1 < groups; i++)
        for (size_t j = i + 1; j < groups; j++) {
            bool gt = ref_gt(&it[idx[i] * stride + (size_t)key], &it[idx[j] * stride + (size_t)key]);
            if (gt != (ascending != 1)) {
                size_t t = idx[i];
                idx[i] = idx[j];
                idx[j] = t;
            }
        }
    size_t o = 0;
    for (size_t g = 0; g < groups; g++)
        for (size_t k = 0; k < stride; k++)
            out[o++] = it[idx[g] * stride + k];
    free(idx);
    return o;
}

/* ---- random lists ---- */

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return n ? (uint32_t)(rng >> 11) % n : 0;
}

static lsl_value rand_of_type(lsl_type t, uint32_t spread)
{
    static const char *const words[] = {"", "a", "A", "ab", "b", "\xc3\xa9", "a\xc3\xa9", "ba", "B", "aa"};
    static const float fl[] = {0.0f, -0.0f, 1.0f, -1.0f, 2.5f, 1e30f, -1e-30f, INFINITY, -INFINITY, 3.0f};
    switch (t) {
    case LSL_TYPE_INTEGER:
        /* few values, spread over all 32 bits, over two bytes, or small */
        return spread % 3 == 0   ? I((int32_t)(rnd(spread) * 2654435761u))
               : spread % 3 == 1 ? I((int32_t)rnd(spread) * 97 - 1000)
                                 : I((int32_t)rnd(spread) - (int32_t)spread / 2);
    case LSL_TYPE_FLOAT: return F(fl[rnd(spread < 10 ? spread : 10)]);
    case LSL_TYPE_STRING: return S(words[rnd(spread < 10 ? spread : 10)]);
    case LSL_TYPE_KEY: return K(words[rnd(spread < 10 ? spread : 10)]);
    case LSL_TYPE_VECTOR: {
        /* permutations of the same components: equal lengths, different vectors */
        float c[3] = {(float)rnd(3), (float)rnd(2), -0.0f};
        uint32_t r = rnd(3);
        return V(c[r], c[(r + 1) % 3], c[(r + 2) % 3]);
    }
    default: return R((float)rnd(2), 0, 0, (float)rnd(2));
    }
}

static lsl_type rand_type(void)
{
    static const lsl_type ts[] = {LSL_TYPE_INTEGER, LSL_TYPE_FLOAT, LSL_TYPE_STRING,
                                  LSL_TYPE_KEY,     LSL_TYPE_VECTOR, LSL_TYPE_ROTATION};
    return ts[rnd(6)];
}

static bool same_bits(const lsl_value *x, const lsl_value *y)
{
    if (x->type != y->type)
        return false;
    switch (x->type) {
    case LSL_TYPE_INTEGER: return x->u.i == y->u.i;
    case LSL_TYPE_FLOAT: return memcmp(&x->u.f, &y->u.f, sizeof x->u.f) == 0;
    case LSL_TYPE_VECTOR: return memcmp(x->u.v, y->u.v, 3 * sizeof(float)) == 0;
    case LSL_TYPE_ROTATION: return memcmp(x->u.v, y->u.v, 4 * sizeof(float)) == 0;
    default:
        return lsl_str_len(x) == lsl_str_len(y) && memcmp(lsl_str_data(x), lsl_str_data(y), lsl_str_len(x)) == 0;
    }
}

static int cases_run, mismatches;

static void one_case(int shape)
{
    lsl_value items[512], want[512];
    int32_t stride = (int32_t)rnd(5) - (rnd(8) == 0 ? 1 : 0); /* -1 .. 4 */
    size_t st = stride < 1 ? 1 : (size_t)stride;
    size_t groups = rnd(4) == 0 ? rnd(6) : rnd(100);
    if (groups * st > 480)
        groups = 480 / st;
    size_t n = groups * st + (rnd(10) == 0 ? 1 : 0); /* sometimes not a multiple */
    int32_t keyi = (int32_t)rnd((uint32_t)st * 2 + 3) - (int32_t)st - 1;
    if (rnd(2))
        keyi = (int32_t)rnd((uint32_t)st); /* mostly in range */
    size_t key = keyi < 0 ? (size_t)((int64_t)keyi + (int64_t)st) : (size_t)keyi;
    lsl_type kt = rand_type();
    uint32_t spread = 1 + rnd(rnd(2) ? 6 : 40);
    for (size_t i = 0; i < n; i++) {
        bool at_key = i % st == key;
        lsl_type t = shape == 0 ? rand_type() /* mixed throughout */
                     : at_key ? (shape == 2 && rnd(30) == 0 ? rand_type() : kt)
                              : rand_type();
        items[i] = rand_of_type(t, spread);
        if (t == LSL_TYPE_FLOAT && rnd(40) == 0)
            items[i] = F(NAN);
        if (t == LSL_TYPE_VECTOR && rnd(60) == 0)
            items[i] = V(NAN, 0, 0);
        if (!at_key && shape == 3)
            items[i] = I(0); /* identical payloads: ties are indistinguishable */
    }
    lsl_value list;
    if (lsl_list_new(&T_heap, items, n, &list, &T_err) != GSVM_OK) {
        mismatches++;
        return;
    }
    keep(list);
    static const int32_t ascs[] = {1, 0, 2, -1, INT32_MIN};
    int32_t asc = ascs[rnd(5)];
    bool strided = rnd(2) || keyi != 0;
    lsl_value got = strided ? call("llListSortStrided", 4, list, I(stride), I(keyi), I(asc))
                            : call("llListSort", 3, list, I(stride), I(asc));
    size_t wn = ref_sort(items, n, stride, strided ? keyi : 0, asc, want);
    cases_run++;
    bool ok = T_last == GSVM_OK && got.type == LSL_TYPE_LIST && lsl_list_len(&got) == wn;
    for (size_t i = 0; ok && i < wn; i++)
        ok = same_bits(&lsl_list_items(&got)[i], &want[i]);
    if (!ok) {
        mismatches++;
        if (mismatches <= 5)
            fprintf(stderr, "sort mismatch: shape %d stride %d key %d asc %d n %zu\n  in   %s\n", shape, stride,
                    keyi, asc, n, J(list));
        if (mismatches <= 5)
            fprintf(stderr, "  got  %s\n", J(got));
    }
    flush();
}

static void test_random_against_reference(void)
{
    for (int i = 0; i < 6000; i++)
        one_case(i % 4);
    CHECK_INT(mismatches, 0);
    CHECK_INT(cases_run, 6000);
}

/* The quirks the fast path must keep, spelled out. */
static void test_quirks(void)
{
    /* descending: equal keys come out last first */
    CHECK_STR(J(call("llListSort", 3, L(6, I(1), S("x"), I(1), S("y"), I(1), S("z")), I(2), I(0))),
              "[1,\"z\",1,\"y\",1,\"x\"]");
    /* ascending: the exchange sort's own order of equal keys, not a stable one */
    CHECK_STR(J(call("llListSort", 3, L(8, I(2), S("a"), I(1), S("b"), I(2), S("c"), I(1), S("d")), I(2), I(1))),
              "[1,\"b\",1,\"d\",2,\"c\",2,\"a\"]");
    /* 0.0 and -0.0 are equal keys but different values */
    CHECK_STR(J(call("llListSort", 3, L(3, F(0.0f), F(-0.0f), F(-1)), I(1), I(1))), "[-1.0,-0.0,0.0]");
    /* a large list of integers takes the fast path and is sorted both ways */
    lsl_value big[400];
    for (int i = 0; i < 400; i++)
        big[i] = I((i * 7919) % 1000);
    lsl_value bl;
    CHECK_INT(lsl_list_new(&T_heap, big, 400, &bl, &T_err), GSVM_OK);
    keep(bl);
    lsl_value up = call("llListSort", 3, bl, I(1), I(1)), down = call("llListSort", 3, bl, I(1), I(0));
    int bad = 0;
    for (size_t i = 0; i + 1 < 400; i++) {
        bad += lsl_list_items(&up)[i].u.i > lsl_list_items(&up)[i + 1].u.i;
        bad += lsl_list_items(&down)[i].u.i < lsl_list_items(&down)[i + 1].u.i;
    }
    CHECK_INT(bad, 0);
    flush();
}

/* Long strided lists with few distinct keys and distinct payloads: the
 * ascending case the library simulates with a segment tree. */
static void test_long_ties_against_reference(void)
{
    enum { N = 3000 };
    lsl_value *items = malloc(N * sizeof *items), *want = malloc(N * sizeof *want);
    int bad = 0;
    for (int c = 0; c < 12 && items && want; c++) {
        size_t stride = 1 + (size_t)c % 3, n = N / stride * stride;
        uint32_t distinct = 2 + rnd(30);
        for (size_t i = 0; i < n; i++)
            items[i] = i % stride == 0 ? (c & 1 ? I((int32_t)rnd(distinct)) : F((float)rnd(distinct) - 0.5f * (float)rnd(2)))
                                       : I((int32_t)i);
        lsl_value list;
        if (lsl_list_new(&T_heap, items, n, &list, &T_err) != GSVM_OK) {
            bad++;
            continue;
        }
        keep(list);
        int32_t asc = c % 4 == 3 ? 0 : 1;
        lsl_value got = call("llListSort", 3, list, I((int32_t)stride), I(asc));
        size_t wn = ref_sort(items, n, (int32_t)stride, 0, asc, want);
        bool ok = T_last == GSVM_OK && lsl_list_len(&got) == wn;
        for (size_t i = 0; ok && i < wn; i++)
            ok = same_bits(&lsl_list_items(&got)[i], &want[i]);
        bad += !ok;
        flush();
    }
    free(items);
    free(want);
    CHECK_INT(bad, 0);
}

/* LIST_STAT_MEDIAN against the exchange sort it was first written with:
 * integers and floats (with ties, 0.0 / -0.0, NaN, infinities) among other
 * types, which the statistics skip. */
static float ref_median(const lsl_value *it, size_t n)
{
    double x[512];
    size_t k = 0;
    for (size_t i = n; i-- > 0;) {
        if (it[i].type == LSL_TYPE_INTEGER)
            x[k++] = it[i].u.i;
        else if (it[i].type == LSL_TYPE_FLOAT)
            x[k++] = it[i].u.f;
    }
    if (k == 0)
        return 0;
    for (size_t i = 0; i + 1 < k; i++)
        for (size_t j = i + 1; j < k; j++)
            if (!(x[i] <= x[j])) {
                double t = x[i];
                x[i] = x[j];
                x[j] = t;
            }
    return (float)(k & 1 ? x[k / 2] : (x[k / 2 - 1] + x[k / 2]) * 0.5);
}

static void test_median_against_reference(void)
{
    int bad = 0;
    for (int c = 0; c < 3000; c++) {
        lsl_value items[512];
        size_t n = rnd(4) == 0 ? rnd(5) : rnd(300);
        uint32_t spread = 1 + rnd(rnd(2) ? 6 : 40);
        bool specials = rnd(3) == 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t r = rnd(20);
            if (r < 8)
                items[i] = rand_of_type(LSL_TYPE_INTEGER, spread);
            else if (r < 18 || !specials)
                items[i] = rnd(2) ? F((float)rnd(spread) * 0.5f) : rand_of_type(LSL_TYPE_FLOAT, spread);
            else
                items[i] = rnd(2) ? F(NAN) : rand_of_type(rand_type(), spread);
        }
        lsl_value list;
        if (lsl_list_new(&T_heap, items, n, &list, &T_err) != GSVM_OK) {
            bad++;
            continue;
        }
        keep(list);
        lsl_value got = call("llListStatistics", 2, I(4), list);
        float want = ref_median(items, n);
        if (T_last != GSVM_OK || got.type != LSL_TYPE_FLOAT || memcmp(&got.u.f, &want, sizeof want) != 0) {
            if (++bad <= 5)
                fprintf(stderr, "median mismatch: got %g want %g for %s\n", got.u.f, want, J(list));
        }
        flush();
    }
    CHECK_INT(bad, 0);
}

int main(void)
{
    lsl_heap_init(&T_heap, 0);
    lsl_lib_state_init(&T_state, 1);
    test_quirks();
    test_random_against_reference();
    test_long_ties_against_reference();
    test_median_against_reference();
    flush();
    CHECK_INT(T_heap.used, 0);
    TEST_MAIN_END();
}
