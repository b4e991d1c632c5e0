/* The snapshot encoding of values: round trips keep values, sharing and
 * the memory accounting; every truncation and corruption is rejected
 * cleanly. */
#include "base/reader.h"
#include "lib_test.h"
#include "lsl/value_codec.h"

#define NV 12

/* The values of a small "script": shared strings and lists on purpose. */
static void make_values(lsl_heap *h, lsl_value v[NV])
{
    lsl_value s, k, l, items[6];
    lsl_string_cstr(h, "h\xc3\xa9llo", &s, &T_err);
    lsl_value_cast(h, &s, LSL_TYPE_KEY, &k, &T_err); /* shares s */
    items[0] = s;
    items[1] = s;
    items[2] = lsl_int(-7);
    items[3] = lsl_vector(1, 2, 3);
    items[4] = k;
    items[5] = lsl_rotation(0, 0, 0.5f, -1);
    lsl_list_new(h, items, 6, &l, &T_err);
    v[0] = s;
    v[1] = l;
    lsl_value_retain(&l);
    v[2] = l;
    v[3] = k;
    v[4] = lsl_empty(LSL_TYPE_STRING);
    v[5] = lsl_empty(LSL_TYPE_LIST);
    v[6] = lsl_int(INT32_MIN);
    v[7] = lsl_float(-0.0f);
    v[8] = lsl_rotation(1, 2, 3, 4);
    lsl_string_cstr(h, "other", &v[9], &T_err);
    v[10] = lsl_vector(NAN, INFINITY, -1);
    lsl_value one = lsl_int(1);
    lsl_list_new(h, &one, 1, &v[11], &T_err);
}

static void encode_all(const lsl_value v[NV], gsvm_buf *b)
{
    lsl_value_encoder e;
    lsl_value_encoder_init(&e, b);
    for (int i = 0; i < NV; i++)
        lsl_value_encode(&e, &v[i]);
    CHECK(!e.oom && !b->oom);
    lsl_value_encoder_free(&e);
}

/* Decodes NV values; on failure releases what was decoded. */
static gsvm_status decode_all(const uint8_t *data, size_t len, lsl_heap *h, lsl_value out[NV], gsvm_error *err)
{
    gsvm_reader r;
    gsvm_reader_init(&r, data, len, "snap", err);
    lsl_value_decoder d;
    lsl_value_decoder_init(&d, &r, h);
    gsvm_status st = GSVM_OK;
    int n = 0;
    for (; n < NV && !st; n++)
        st = lsl_value_decode(&d, &out[n], err);
    if (!st && gsvm_reader_left(&r) != 0)
        st = gsvm_error_at_offset(err, GSVM_ERR_INPUT, "snap", (long long)r.pos, "trailing bytes");
    lsl_value_decoder_free(&d);
    if (st)
        for (int i = 0; i < n; i++)
            lsl_value_release(&out[i]);
    return st;
}

static void test_round_trip(void)
{
    lsl_heap h1, h2;
    lsl_heap_init(&h1, 0);
    lsl_heap_init(&h2, 0);
    lsl_value v[NV], w[NV];
    make_values(&h1, v);
    gsvm_buf b;
    gsvm_buf_init(&b);
    encode_all(v, &b);
    CHECK_INT(decode_all(b.data, b.len, &h2, w, &T_err), GSVM_OK);
    /* same values */
    for (int i = 0; i < NV; i++) {
        CHECK_INT(w[i].type, v[i].type);
        if (v[i].type == LSL_TYPE_LIST) {
            CHECK_STR(J(w[i]), J(v[i]));
        } else if (v[i].type == LSL_TYPE_STRING || v[i].type == LSL_TYPE_KEY) {
            CHECK(lsl_value_equal(&w[i], &v[i]));
        } else {
            size_t n = v[i].type == LSL_TYPE_VECTOR ? 12 : v[i].type == LSL_TYPE_ROTATION ? 16 : 4;
            CHECK(memcmp(&w[i].u, &v[i].u, n) == 0); /* bit for bit: NaN, -0.0 */
        }
    }
    /* same sharing, hence the same accounting */
    CHECK(w[1].u.l == w[2].u.l);
    CHECK(w[0].u.s == w[3].u.s);
    CHECK(lsl_list_items(&w[1])[0].u.s == w[0].u.s);
    CHECK(lsl_list_items(&w[1])[4].u.s == w[0].u.s);
    CHECK_INT(lsl_list_items(&w[1])[4].type, LSL_TYPE_KEY);
    CHECK_INT(h2.used, h1.used);
    /* compact: the bytes are well under the charged memory */
    CHECK(b.len < h1.used);
    for (int i = 0; i < NV; i++) {
        lsl_value_release(&v[i]);
        lsl_value_release(&w[i]);
    }
    CHECK_INT(h1.used, 0);
    CHECK_INT(h2.used, 0);

    /* every truncation fails cleanly and charges nothing */
    lsl_value x[NV];
    make_values(&h1, v);
    int bad = 0;
    for (size_t cut = 0; cut < b.len; cut++) {
        gsvm_error err;
        gsvm_error_clear(&err);
        if (decode_all(b.data, cut, &h2, x, &err) != GSVM_ERR_INPUT || h2.used != 0)
            bad++;
    }
    CHECK_INT(bad, 0);
    /* corruptions: a bad type tag, a reference out of order, a list in a list */
    uint8_t *c = malloc(b.len);
    memcpy(c, b.data, b.len);
    c[0] = 9;
    CHECK_INT(decode_all(c, b.len, &h2, x, &T_err), GSVM_ERR_INPUT);
    CHECK(strstr(T_err.message, "unknown value type") != NULL);
    memcpy(c, b.data, b.len);
    c[1] = 2; /* first object claims number 2 */
    CHECK_INT(decode_all(c, b.len, &h2, x, &T_err), GSVM_ERR_INPUT);
    CHECK(strstr(T_err.message, "out of order") != NULL);
    CHECK_INT(h2.used, 0);
    free(c);
    static const uint8_t nested[] = {7, 1, 0, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0, 0};
    CHECK_INT(decode_all(nested, sizeof nested, &h2, x, &T_err), GSVM_ERR_INPUT);
    CHECK(strstr(T_err.message, "list inside a list") != NULL);
    static const uint8_t huge[] = {7, 1, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x0F, 1, 0, 0, 0, 0};
    CHECK_INT(decode_all(huge, sizeof huge, &h2, x, &T_err), GSVM_ERR_INPUT);
    static const uint8_t wrongkind[] = {3, 1, 0, 0, 0, 1, 0, 0, 0, 'a', 7, 1, 0, 0, 0};
    CHECK_INT(decode_all(wrongkind, sizeof wrongkind, &h2, x, &T_err), GSVM_ERR_INPUT);
    CHECK(strstr(T_err.message, "wrong kind") != NULL);
    CHECK_INT(h2.used, 0);
    /* a heap too small for the snapshot: Stack-Heap Collision, nothing kept */
    lsl_heap tiny;
    lsl_heap_init(&tiny, 40);
    CHECK_INT(decode_all(b.data, b.len, &tiny, x, &T_err), GSVM_ERR_FAULT);
    CHECK_STR(T_err.message, "Stack-Heap Collision");
    CHECK_INT(tiny.used, 0);
    for (int i = 0; i < NV; i++)
        lsl_value_release(&v[i]);
    gsvm_buf_free(&b);
    CHECK_INT(h1.used, 0);
}

static void test_many_objects(void)
{
    /* enough distinct objects to grow the encoder's index several times */
    lsl_heap h;
    lsl_heap_init(&h, 0);
    enum { N = 1000 };
    lsl_value *v = calloc(N, sizeof *v), *w = calloc(N, sizeof *w);
    for (int i = 0; i < N; i++) {
        char t[16];
        snprintf(t, sizeof t, "s%d", i % 700);
        lsl_string_cstr(&h, t, &v[i], &T_err);
        if (i >= 700) { /* repeat some objects by reference */
            lsl_value_release(&v[i]);
            v[i] = v[i - 700];
            lsl_value_retain(&v[i]);
        }
    }
    gsvm_buf b;
    gsvm_buf_init(&b);
    lsl_value_encoder e;
    lsl_value_encoder_init(&e, &b);
    for (int i = 0; i < N; i++)
        lsl_value_encode(&e, &v[i]);
    CHECK_INT(e.count, 700);
    lsl_value_encoder_free(&e);
    lsl_heap h2;
    lsl_heap_init(&h2, 0);
    gsvm_reader r;
    gsvm_reader_init(&r, b.data, b.len, "snap", &T_err);
    lsl_value_decoder d;
    lsl_value_decoder_init(&d, &r, &h2);
    int ok = 0;
    for (int i = 0; i < N; i++)
        ok += lsl_value_decode(&d, &w[i], &T_err) == GSVM_OK && lsl_value_equal(&w[i], &v[i]);
    lsl_value_decoder_free(&d);
    CHECK_INT(ok, N);
    CHECK_INT(h2.used, h.used);
    CHECK(w[999].u.s == w[299].u.s);
    for (int i = 0; i < N; i++) {
        lsl_value_release(&v[i]);
        lsl_value_release(&w[i]);
    }
    free(v);
    free(w);
    gsvm_buf_free(&b);
    CHECK_INT(h.used + h2.used, 0);
}

int main(void)
{
    lsl_heap_init(&T_heap, 0);
    lsl_lib_state_init(&T_state, 1);
    test_round_trip();
    test_many_objects();
    TEST_MAIN_END();
}
