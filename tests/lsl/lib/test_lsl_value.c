/* The LSL value model: casts with Second Life's results, truthiness,
 * equality, memory accounting, JSON rendering. */
#include "lib_test.h"

static const char *cast_text(lsl_value v)
{
    lsl_value out;
    if (lsl_value_cast(&T_heap, &v, LSL_TYPE_STRING, &out, &T_err))
        return "(error)";
    keep(out);
    return T(out);
}

static lsl_value cast(lsl_value v, lsl_type to)
{
    lsl_value out;
    if (lsl_value_cast(&T_heap, &v, to, &out, &T_err))
        return lsl_empty(LSL_TYPE_VOID);
    return keep(out);
}

static int32_t to_int(const char *s) { return lsl_string_to_int(s, strlen(s)); }
static float to_float(const char *s) { return lsl_string_to_float(s, strlen(s)); }

static void test_string_casts(void)
{
    /* (string)float: 6 decimals; (string)vector/rotation: 5 decimals */
    CHECK_STR(cast_text(F(1.0f)), "1.000000");
    CHECK_STR(cast_text(F(-1.5f)), "-1.500000");
    CHECK_STR(cast_text(F(0.1f)), "0.100000");
    CHECK_STR(cast_text(F(1e-7f)), "0.000000");
    /* Mono prints at most 7 significant digits */
    CHECK_STR(cast_text(F(123456.789f)), "123456.800000");
    CHECK_STR(cast_text(F(12345678.0f)), "12345680.000000");
    CHECK_STR(cast_text(F(1234567.0f)), "1234567.000000");
    CHECK_STR(cast_text(F(0.99999995f)), "1.000000");
    CHECK_STR(cast_text(F(3.14159265f)), "3.141593");
    CHECK_STR(cast_text(F(-1e-7f)), "0.000000"); /* a negative that rounds to zero loses its sign */
    CHECK_STR(cast_text(F(-0.0f)), "0.000000"); /* SL drops the sign of -0.0 */
    CHECK_STR(cast_text(F(7e-7f)), "0.000001");
    CHECK_STR(cast_text(F(1e30f)), "1000000000000000000000000000000.000000");
    CHECK_STR(cast_text(F(INFINITY)), "Infinity");
    CHECK_STR(cast_text(F(-INFINITY)), "-Infinity");
    CHECK_STR(cast_text(F(NAN)), "NaN");
    CHECK_STR(cast_text(I(-42)), "-42");
    CHECK_STR(cast_text(I(INT32_MIN)), "-2147483648");
    CHECK_STR(cast_text(V(1, 2, 3)), "<1.00000, 2.00000, 3.00000>");
    CHECK_STR(cast_text(V(-0.5f, 0.123456f, 100)), "<-0.50000, 0.12346, 100.00000>");
    CHECK_STR(cast_text(R(0, 0, 0, 1)), "<0.00000, 0.00000, 0.00000, 1.00000>");
    CHECK_STR(cast_text(K("a822ff2b-ff02-461d-b45d-dcd10a2de0c2")), "a822ff2b-ff02-461d-b45d-dcd10a2de0c2");
    /* (string)list concatenates, floats and vectors with 6 decimals */
    CHECK_STR(cast_text(L(4, I(1), F(2.5f), V(1, 2, 3), S("a"))), "12.500000<1.000000, 2.000000, 3.000000>a");
    CHECK_STR(cast_text(L(0)), "");
    flush();
}

static void test_integer_casts(void)
{
    CHECK_INT(to_int("0x1A"), 26);
    CHECK_INT(to_int("0X1a"), 26);
    CHECK_INT(to_int("  12abc"), 12);
    CHECK_INT(to_int("-7"), -7);
    CHECK_INT(to_int("+7"), 7);
    CHECK_INT(to_int("abc"), 0);
    CHECK_INT(to_int(""), 0);
    CHECK_INT(to_int("3.9"), 3);
    CHECK_INT(to_int("010"), 10);   /* no octal in LSL */
    CHECK_INT(to_int("0x"), 0);
    CHECK_INT(to_int("0xg"), 0);
    CHECK_INT(to_int("2147483647"), 2147483647);
    CHECK_INT(to_int("2147483648"), INT32_MIN);
    CHECK_INT(to_int("4294967295"), -1);
    CHECK_INT(to_int("99999999999"), -1);
    CHECK_INT(to_int("0xFFFFFFFF"), -1);
    CHECK_INT(to_int("-0x10"), 0);   /* hex only at the very start */
    CHECK_INT(to_int(" 0x10"), 0);
    CHECK_INT(to_int("-99999999999"), -1);
    CHECK_INT(to_int("-4294967295"), 1);
    CHECK_INT(to_int("4294967296"), -1);
    CHECK_INT(to_int("0x100000000"), -1);
    CHECK_INT(to_int("\t\n 5"), 5);
    /* float -> integer truncates; out of range and NaN give INT_MIN */
    CHECK_INT(lsl_float_to_int(3.9f), 3);
    CHECK_INT(lsl_float_to_int(-3.9f), -3);
    CHECK_INT(lsl_float_to_int(2147483520.0f), 2147483520);
    CHECK_INT(lsl_float_to_int(2147483648.0f), INT32_MIN);
    CHECK_INT(lsl_float_to_int(-2147483648.0f), INT32_MIN);
    CHECK_INT(lsl_float_to_int(1e10f), INT32_MIN);
    CHECK_INT(lsl_float_to_int(-1e10f), INT32_MIN);
    CHECK_INT(lsl_float_to_int(NAN), INT32_MIN);
    CHECK_INT(cast(F(-0.5f), LSL_TYPE_INTEGER).u.i, 0);
    CHECK_INT(cast(S("0x1A"), LSL_TYPE_INTEGER).u.i, 26);
    flush();
}

static void test_float_casts(void)
{
    CHECK_NEAR(to_float("1e3"), 1000, 0);
    CHECK_NEAR(to_float("  2.5xyz"), 2.5, 0);
    CHECK_NEAR(to_float("-.5"), -0.5, 0);
    CHECK_NEAR(to_float("abc"), 0, 0);
    CHECK_NEAR(to_float(""), 0, 0);
    CHECK_NEAR(to_float("1.5e-3"), 0.0015f, 0);
    CHECK_NEAR(to_float("0x10"), 16, 0);
    CHECK(isinf(to_float("inf")) && to_float("inf") > 0);
    CHECK(isinf(to_float("-Infinity")) && to_float("-Infinity") < 0);
    CHECK(isnan(to_float("nan")));
    CHECK(isinf(to_float("1e39"))); /* beyond float range */
    CHECK(to_float("1e-40") == 1e-40f); /* subnormals are kept, as in SL */
    CHECK(to_float("1.4e-45") == 1.4e-45f);
    CHECK(isinf(to_float("infinity")));
    CHECK(isnan(to_float("-nan")));
    CHECK_NEAR(to_float("0x1p-2"), 0.25, 0);
    CHECK_NEAR(to_float("1e"), 1, 0);
    CHECK_NEAR(cast(I(7), LSL_TYPE_FLOAT).u.f, 7, 0);
    CHECK_NEAR(cast(I(16777217), LSL_TYPE_FLOAT).u.f, 16777216, 0); /* float rounding */
    CHECK_NEAR(cast(S("3.25"), LSL_TYPE_FLOAT).u.f, 3.25, 0);
    /* a long number string still parses */
    char big[300];
    memset(big, '1', 299);
    big[299] = 0;
    CHECK(isinf(to_float(big)));
    flush();
}

static void test_vector_casts(void)
{
    lsl_value v = cast(S("<1,2,3>"), LSL_TYPE_VECTOR);
    CHECK_VEC(v, 1, 2, 3, 0);
    CHECK_VEC(cast(S("<1.5, -2, 3e1> tail"), LSL_TYPE_VECTOR), 1.5, -2, 30, 0);
    CHECK_VEC(cast(S(" <1,2,3>"), LSL_TYPE_VECTOR), 0, 0, 0, 0);   /* '<' must come first */
    CHECK_VEC(cast(S("<1 ,2,3>"), LSL_TYPE_VECTOR), 0, 0, 0, 0);   /* ',' right after a number */
    CHECK_VEC(cast(S("1,2,3"), LSL_TYPE_VECTOR), 0, 0, 0, 0);
    CHECK_VEC(cast(S("<1,2>"), LSL_TYPE_VECTOR), 0, 0, 0, 0);
    CHECK_VEC(cast(S("<a,2,3>"), LSL_TYPE_VECTOR), 0, 0, 0, 0);
    CHECK_VEC(cast(S("<1,2,3"), LSL_TYPE_VECTOR), 1, 2, 3, 0);    /* nothing needed after the last */
    CHECK_VEC(cast(S("<1,2,3,4>"), LSL_TYPE_VECTOR), 1, 2, 3, 0);
    CHECK_VEC(cast(S("<0x10,-.5,1e1>"), LSL_TYPE_VECTOR), 16, -0.5, 10, 0);
    CHECK_VEC(cast(S("<1,inf,infix>"), LSL_TYPE_VECTOR), 0, 0, 0, 0);
    lsl_value iv = cast(S("<1,inf,infinity>"), LSL_TYPE_VECTOR);
    CHECK(iv.u.v[0] == 1 && isinf(iv.u.v[1]) && isinf(iv.u.v[2]));
    iv = cast(S("<1,inf,info>"), LSL_TYPE_VECTOR);
    CHECK(iv.u.v[0] == 1 && isinf(iv.u.v[1]) && isinf(iv.u.v[2]));
    CHECK(cast(S("<1e-40,0,0>"), LSL_TYPE_VECTOR).u.v[0] == 1e-40f); /* denormals kept here */
    CHECK_ROT(cast(S("<1,2,3,4>"), LSL_TYPE_ROTATION), 1, 2, 3, 4, 0);
    CHECK_ROT(cast(S("<1,2,3>"), LSL_TYPE_ROTATION), 0, 0, 0, 1, 0);
    /* the text of a vector casts back to the same vector */
    CHECK_VEC(cast(S(cast_text(V(1.25f, -2.5f, 3))), LSL_TYPE_VECTOR), 1.25, -2.5, 3, 0);
    /* (list)x wraps; (key) of a string shares the text */
    lsl_value l = cast(V(1, 2, 3), LSL_TYPE_LIST);
    CHECK_INT(lsl_list_len(&l), 1);
    lsl_value s = S("abc");
    lsl_value k = cast(s, LSL_TYPE_KEY);
    CHECK_INT(k.type, LSL_TYPE_KEY);
    CHECK(k.u.s == s.u.s);
    /* illegal casts are refused */
    lsl_value out;
    CHECK_INT(lsl_value_cast(&T_heap, &v, LSL_TYPE_INTEGER, &out, &T_err), GSVM_ERR_USAGE);
    CHECK(!lsl_cast_allowed(LSL_TYPE_LIST, LSL_TYPE_INTEGER));
    CHECK(!lsl_cast_allowed(LSL_TYPE_INTEGER, LSL_TYPE_KEY));
    CHECK(lsl_cast_allowed(LSL_TYPE_KEY, LSL_TYPE_STRING));
    CHECK(lsl_cast_allowed(LSL_TYPE_ROTATION, LSL_TYPE_LIST));
    flush();
}

static void test_truth_and_equality(void)
{
    CHECK(!lsl_value_truthy(&(lsl_value){.type = LSL_TYPE_INTEGER}));
    CHECK(lsl_value_truthy(&(lsl_value){.type = LSL_TYPE_INTEGER, .u.i = -1}));
    lsl_value f = F(0.0f);
    CHECK(!lsl_value_truthy(&f));
    /* keys: only a valid, non-null UUID is true */
    lsl_value k1 = K("00000000-0000-0000-0000-000000000000"), k2 = K(""), k3 = K("not a key"),
              k4 = K("A822FF2B-FF02-461D-B45D-DCD10A2DE0C2"), k5 = K("a822ff2b-ff02-461d-b45d-dcd10a2de0c");
    CHECK(!lsl_value_truthy(&k1));
    CHECK(!lsl_value_truthy(&k2));
    CHECK(!lsl_value_truthy(&k3));
    CHECK(lsl_value_truthy(&k4));
    CHECK(!lsl_value_truthy(&k5));
    lsl_value s = S("x"), e = S("");
    CHECK(lsl_value_truthy(&s));
    CHECK(!lsl_value_truthy(&e));
    lsl_value zv = V(0, 0, 0), v = V(0, 0, 1), zr = R(0, 0, 0, 1), r = R(0, 0, 0, -1);
    CHECK(!lsl_value_truthy(&zv));
    CHECK(lsl_value_truthy(&v));
    CHECK(!lsl_value_truthy(&zr));
    CHECK(lsl_value_truthy(&r));
    lsl_value l0 = L(0), l1 = L(1, I(1)), l2 = L(1, S("zzz"));
    CHECK(!lsl_value_truthy(&l0));
    CHECK(lsl_value_truthy(&l1));
    /* list == compares lengths only */
    CHECK(lsl_value_equal(&l1, &l2));
    CHECK(!lsl_value_equal(&l0, &l1));
    lsl_value a = S("abc"), b = S("abc"), c = S("abd");
    CHECK(lsl_value_equal(&a, &b));
    CHECK(!lsl_value_equal(&a, &c));
    lsl_value i1 = I(1), f1 = F(1.0f);
    CHECK(lsl_value_equal(&i1, &f1));
    flush();
}

static void test_memory(void)
{
    lsl_heap h;
    lsl_heap_init(&h, 0);
    lsl_value a, b, c, l;
    /* string: 16 + 2 bytes per UTF-16 unit */
    CHECK_INT(lsl_string_cstr(&h, "abc", &a, &T_err), GSVM_OK);
    CHECK_INT(h.used, 16 + 6);
    CHECK_INT(lsl_string_cstr(&h, "\xc3\xa9", &b, &T_err), GSVM_OK); /* é: one unit */
    CHECK_INT(lsl_value_object_size(&b), 18);
    CHECK_INT(lsl_string_cstr(&h, "\xf0\x9f\x98\x80", &c, &T_err), GSVM_OK); /* emoji: two units */
    CHECK_INT(lsl_value_object_size(&c), 20);
    /* list: 16 + 16 per scalar, 24 per vector, 28 per rotation */
    lsl_value items[4] = {lsl_int(1), a, lsl_vector(1, 2, 3), lsl_rotation(0, 0, 0, 1)};
    CHECK_INT(lsl_list_new(&h, items, 4, &l, &T_err), GSVM_OK);
    CHECK_INT(lsl_value_object_size(&l), 16 + 16 + 16 + 24 + 28);
    CHECK_INT(lsl_value_slot_size(&l), 4);
    CHECK_INT(lsl_value_mem_size(&l), 4 + 100 + 22);
    CHECK_INT(h.used, 22 + 18 + 20 + 100);
    /* the string is shared, not copied, by the list */
    lsl_value_release(&a);
    CHECK_INT(h.used, 22 + 18 + 20 + 100);
    lsl_value_release(&l);
    CHECK_INT(h.used, 18 + 20);
    lsl_value_release(&b);
    lsl_value_release(&c);
    CHECK_INT(h.used, 0);
    CHECK_INT(h.peak, 160);
    /* the limit: Stack-Heap Collision, nothing charged */
    lsl_heap small;
    lsl_heap_init(&small, 100);
    char text[64];
    memset(text, 'x', 63);
    text[63] = 0;
    gsvm_error_clear(&T_err);
    CHECK_INT(lsl_string_cstr(&small, text, &a, &T_err), GSVM_ERR_FAULT);
    CHECK_STR(T_err.message, "Stack-Heap Collision");
    CHECK_INT(small.used, 0);
    CHECK_INT(lsl_string_cstr(&small, "0123456789012345678901234567890123456789", &a, &T_err), GSVM_OK);
    CHECK_INT(small.used, 96);
    CHECK_INT(lsl_heap_charge(&small, 5, &T_err), GSVM_ERR_FAULT);
    CHECK_INT(lsl_heap_charge(&small, 4, &T_err), GSVM_OK);
    lsl_heap_credit(&small, 4);
    lsl_value_release(&a);
    CHECK_INT(small.used, 0);
    /* copying to another heap charges that heap */
    lsl_heap h2;
    lsl_heap_init(&h2, 0);
    lsl_value x = L(2, S("hello"), I(3)), y;
    CHECK_INT(lsl_value_copy_to(&h2, &x, &y, &T_err), GSVM_OK);
    CHECK_INT(h2.used, 16 + 32 + 16 + 10);
    CHECK(y.u.l != x.u.l);
    lsl_value_release(&y);
    CHECK_INT(h2.used, 0);
    /* lists cannot hold lists */
    lsl_value inner = L(0), bad;
    CHECK_INT(lsl_list_new(&h, &inner, 1, &bad, &T_err), GSVM_ERR_USAGE);
    /* list + item splices */
    lsl_value base = L(1, I(1)), more = L(2, I(2), I(3)), r1, r2;
    CHECK_INT(lsl_list_append(&h, &base, &more, false, &r1, &T_err), GSVM_OK);
    CHECK_STR(J(r1), "[1,2,3]");
    lsl_value four = I(4);
    CHECK_INT(lsl_list_append(&h, &r1, &four, true, &r2, &T_err), GSVM_OK);
    CHECK_STR(J(r2), "[4,1,2,3]");
    lsl_value_release(&r1);
    lsl_value_release(&r2);
    CHECK_INT(h.used, 0);
    /* concatenation charges exactly what a fresh string of the text would,
     * also when a UTF-8 sequence straddles the join */
    static const char *const pairs[][2] = {{"ab", "cd"}, {"\xc3", "\xa9x"}, {"\xf0\x9f", "\x98\x80"}, {"\xc3\xa9", "\x80"}};
    for (size_t i = 0; i < 4; i++) {
        lsl_value p, q, joined, fresh;
        char text[16];
        snprintf(text, sizeof text, "%s%s", pairs[i][0], pairs[i][1]);
        CHECK_INT(lsl_string_cstr(&h, pairs[i][0], &p, &T_err), GSVM_OK);
        CHECK_INT(lsl_string_cstr(&h, pairs[i][1], &q, &T_err), GSVM_OK);
        CHECK_INT(lsl_string_concat(&h, &p, &q, &joined, &T_err), GSVM_OK);
        CHECK_INT(lsl_string_cstr(&h, text, &fresh, &T_err), GSVM_OK);
        CHECK_STR(lsl_str_data(&joined), text);
        CHECK_INT(lsl_value_object_size(&joined), lsl_value_object_size(&fresh));
        lsl_value_release(&p);
        lsl_value_release(&q);
        lsl_value_release(&joined);
        lsl_value_release(&fresh);
    }
    CHECK_INT(h.used, 0);
    /* an empty side shares the other object */
    lsl_value e = lsl_empty(LSL_TYPE_STRING), k, j2;
    CHECK_INT(lsl_string_new(&h, LSL_TYPE_KEY, "kk", 2, &k, &T_err), GSVM_OK);
    CHECK_INT(lsl_string_concat(&h, &k, &e, &j2, &T_err), GSVM_OK);
    CHECK(j2.u.s == k.u.s && j2.type == LSL_TYPE_STRING);
    lsl_value_release(&j2);
    lsl_value_release(&k);
    /* appending charges exactly the new list, with no temporary on the way */
    lsl_heap tight;
    lsl_heap_init(&tight, 16 + 16 * 3 + 24);
    lsl_value l2, l3, three[3] = {lsl_int(1), lsl_int(2), lsl_int(3)}, vv = lsl_vector(1, 2, 3);
    CHECK_INT(lsl_list_new(&tight, three, 2, &l2, &T_err), GSVM_OK); /* 48 */
    lsl_heap_init(&tight, 48 + 72); /* exactly [1,2] and [1,2,v]: no room for a temporary */
    tight.used = 48;
    CHECK_INT(lsl_list_append(&tight, &l2, &vv, false, &l3, &T_err), GSVM_OK);
    CHECK_INT(tight.used, 48 + 72);
    CHECK_INT(lsl_list_items(&l3)[2].type, LSL_TYPE_VECTOR);
    lsl_value_release(&l3);
    lsl_value_release(&l2);
    CHECK_INT(tight.used, 0);
    flush();
}

static void test_json(void)
{
    CHECK_STR(J(I(5)), "5");
    CHECK_STR(J(F(1.5f)), "1.5");
    CHECK_STR(J(S("hi\"")), "\"hi\\\"\"");
    CHECK_STR(J(V(1, 2, 3)), "{\"vector\":[1.0,2.0,3.0]}");
    CHECK_STR(J(R(0, 0, 0, 1)), "{\"rotation\":[0.0,0.0,0.0,1.0]}");
    CHECK_STR(J(L(3, I(1), S("a"), V(0, 0, 1))), "[1,\"a\",{\"vector\":[0.0,0.0,1.0]}]");
    CHECK_STR(J(F(INFINITY)), "\"Infinity\"");
    /* back from JSON, as event arguments */
    json_error_t je;
    json_t *j = json_loads("[0,\"Bob\",\"a822ff2b-ff02-461d-b45d-dcd10a2de0c2\",{\"vector\":[1,2,3]},"
                           "{\"rotation\":[0,0,0,1]},[1,2.5,\"x\",{\"key\":\"k\"}],1.25]", 0, &je);
    CHECK(j != NULL);
    lsl_value v;
    CHECK_INT(lsl_value_from_json(&T_heap, json_array_get(j, 0), LSL_TYPE_INTEGER, &v, &T_err), GSVM_OK);
    CHECK_INT(v.u.i, 0);
    CHECK_INT(lsl_value_from_json(&T_heap, json_array_get(j, 2), LSL_TYPE_KEY, &v, &T_err), GSVM_OK);
    CHECK_INT(v.type, LSL_TYPE_KEY);
    keep(v);
    CHECK_INT(lsl_value_from_json(&T_heap, json_array_get(j, 3), LSL_TYPE_VECTOR, &v, &T_err), GSVM_OK);
    CHECK_VEC(v, 1, 2, 3, 0);
    CHECK_INT(lsl_value_from_json(&T_heap, json_array_get(j, 4), LSL_TYPE_ROTATION, &v, &T_err), GSVM_OK);
    CHECK_ROT(v, 0, 0, 0, 1, 0);
    CHECK_INT(lsl_value_from_json(&T_heap, json_array_get(j, 5), LSL_TYPE_LIST, &v, &T_err), GSVM_OK);
    keep(v);
    CHECK_INT(lsl_list_len(&v), 4);
    CHECK_INT(lsl_list_items(&v)[0].type, LSL_TYPE_INTEGER);
    CHECK_INT(lsl_list_items(&v)[1].type, LSL_TYPE_FLOAT);
    CHECK_INT(lsl_list_items(&v)[3].type, LSL_TYPE_KEY);
    CHECK_INT(lsl_value_from_json(&T_heap, json_array_get(j, 6), LSL_TYPE_FLOAT, &v, &T_err), GSVM_OK);
    CHECK_NEAR(v.u.f, 1.25, 0);
    /* non-finite floats round trip through their JSON strings */
    json_t *inf = lsl_value_to_json(&(lsl_value){.type = LSL_TYPE_FLOAT, .u.f = -INFINITY});
    CHECK_INT(lsl_value_from_json(&T_heap, inf, LSL_TYPE_FLOAT, &v, &T_err), GSVM_OK);
    CHECK(isinf(v.u.f) && v.u.f < 0);
    json_decref(inf);
    json_t *nanv = lsl_value_to_json(&(lsl_value){.type = LSL_TYPE_VECTOR, .u.v = {NAN, 1, 2, 0}});
    CHECK_INT(lsl_value_from_json(&T_heap, nanv, LSL_TYPE_VECTOR, &v, &T_err), GSVM_OK);
    CHECK(isnan(v.u.v[0]) && v.u.v[2] == 2);
    json_decref(nanv);
    json_t *word = json_string("many");
    CHECK_INT(lsl_value_from_json(&T_heap, word, LSL_TYPE_FLOAT, &v, &T_err), GSVM_ERR_INPUT);
    json_decref(word);
    /* mismatches are input errors */
    CHECK_INT(lsl_value_from_json(&T_heap, json_array_get(j, 1), LSL_TYPE_INTEGER, &v, &T_err), GSVM_ERR_INPUT);
    CHECK_INT(lsl_value_from_json(&T_heap, json_array_get(j, 6), LSL_TYPE_INTEGER, &v, &T_err), GSVM_ERR_INPUT);
    CHECK_INT(lsl_value_from_json(&T_heap, json_array_get(j, 0), LSL_TYPE_VECTOR, &v, &T_err), GSVM_ERR_INPUT);
    CHECK_INT(lsl_value_from_json(&T_heap, json_array_get(j, 3), LSL_TYPE_ROTATION, &v, &T_err), GSVM_ERR_INPUT);
    json_t *big = json_integer(5000000000LL);
    CHECK_INT(lsl_value_from_json(&T_heap, big, LSL_TYPE_INTEGER, &v, &T_err), GSVM_ERR_INPUT);
    json_decref(big);
    json_t *nested = json_loads("[[1]]", 0, &je);
    CHECK_INT(lsl_value_from_json(&T_heap, nested, LSL_TYPE_LIST, &v, &T_err), GSVM_ERR_INPUT);
    json_decref(nested);
    json_decref(j);
    flush();
}

static lsl_value op(lsl_op o, lsl_value a, lsl_value b)
{
    lsl_value out;
    gsvm_error_clear(&T_err);
    if (lsl_value_binop(&T_heap, o, &a, &b, &out, &T_err))
        return lsl_empty(LSL_TYPE_VOID);
    return keep(out);
}

static void test_operators(void)
{
    /* integers wrap; division truncates; the INT_MIN corner cases */
    CHECK_INT(op(LSL_OP_ADD, I(INT32_MAX), I(1)).u.i, INT32_MIN);
    CHECK_INT(op(LSL_OP_MUL, I(65536), I(65536)).u.i, 0);
    CHECK_INT(op(LSL_OP_DIV, I(-7), I(2)).u.i, -3);
    CHECK_INT(op(LSL_OP_MOD, I(-7), I(3)).u.i, -1);
    CHECK_INT(op(LSL_OP_MOD, I(7), I(-3)).u.i, 1);
    CHECK_INT(op(LSL_OP_DIV, I(INT32_MIN), I(-1)).u.i, INT32_MIN);
    CHECK_INT(op(LSL_OP_MOD, I(INT32_MIN), I(-1)).u.i, 0);
    /* Math Errors */
    CHECK_INT(op(LSL_OP_DIV, I(1), I(0)).type, LSL_TYPE_VOID);
    CHECK_STR(T_err.message, "Math Error");
    CHECK_INT(op(LSL_OP_MOD, I(1), I(0)).type, LSL_TYPE_VOID);
    CHECK_INT(op(LSL_OP_DIV, F(1), F(0)).type, LSL_TYPE_VOID);
    CHECK_INT(op(LSL_OP_DIV, I(1), F(0)).type, LSL_TYPE_VOID);
    CHECK_INT(op(LSL_OP_DIV, V(1, 2, 3), F(0)).type, LSL_TYPE_VOID);
    CHECK_INT(op(LSL_OP_DIV, F(INFINITY), F(INFINITY)).type, LSL_TYPE_VOID); /* NaN result */
    CHECK_INT(T_err.status, GSVM_ERR_FAULT);
    /* mixed integer/float arithmetic is float */
    lsl_value m = op(LSL_OP_ADD, I(1), F(0.5f));
    CHECK(m.type == LSL_TYPE_FLOAT && m.u.f == 1.5f);
    CHECK_NEAR(op(LSL_OP_DIV, I(1), F(3)).u.f, 1.0f / 3.0f, 0);
    /* shifts use the count modulo 32; >> is arithmetic */
    CHECK_INT(op(LSL_OP_SHL, I(1), I(32)).u.i, 1);
    CHECK_INT(op(LSL_OP_SHL, I(1), I(31)).u.i, INT32_MIN);
    CHECK_INT(op(LSL_OP_SHR, I(-16), I(2)).u.i, -4);
    CHECK_INT(op(LSL_OP_SHR, I(INT32_MIN), I(31)).u.i, -1);
    CHECK_INT(op(LSL_OP_BITXOR, I(0xF0), I(0xFF)).u.i, 0x0F);
    CHECK_INT(op(LSL_OP_AND, I(2), I(3)).u.i, 1);
    CHECK_INT(op(LSL_OP_OR, I(0), I(0)).u.i, 0);
    /* comparisons */
    CHECK_INT(op(LSL_OP_EQ, I(1), F(1.0f)).u.i, 1);
    CHECK_INT(op(LSL_OP_EQ, I(16777217), F(16777216.0f)).u.i, 1); /* compared as floats */
    CHECK_INT(op(LSL_OP_LT, I(16777217), F(16777216.0f)).u.i, 0);
    CHECK_INT(op(LSL_OP_EQ, F(NAN), F(NAN)).u.i, 0);
    CHECK_INT(op(LSL_OP_LT, F(-1), I(0)).u.i, 1);
    CHECK_INT(op(LSL_OP_GE, I(2), I(3)).u.i, 0);
    CHECK_INT(op(LSL_OP_EQ, S("a"), K("a")).u.i, 1);
    CHECK_INT(op(LSL_OP_NE, S("a"), S("b")).u.i, 1);
    /* lists: == compares lengths, != is the length difference */
    CHECK_INT(op(LSL_OP_EQ, L(2, I(1), I(2)), L(2, S("x"), S("y"))).u.i, 1);
    CHECK_INT(op(LSL_OP_NE, L(3, I(1), I(2), I(3)), L(1, I(9))).u.i, 2);
    CHECK_INT(op(LSL_OP_NE, L(0), L(2, I(1), I(2))).u.i, -2);
    /* strings and lists */
    CHECK_STR(T(op(LSL_OP_ADD, S("ab"), S("cd"))), "abcd");
    CHECK_STR(J(op(LSL_OP_ADD, L(1, I(1)), I(2))), "[1,2]");
    CHECK_STR(J(op(LSL_OP_ADD, S("x"), L(1, I(1)))), "[\"x\",1]");
    CHECK_STR(J(op(LSL_OP_ADD, L(1, I(1)), L(1, I(2)))), "[1,2]");
    /* vectors and rotations */
    CHECK_VEC(op(LSL_OP_ADD, V(1, 2, 3), V(1, 1, 1)), 2, 3, 4, 0);
    CHECK_VEC(op(LSL_OP_MUL, V(1, 2, 3), F(2)), 2, 4, 6, 0);
    CHECK_VEC(op(LSL_OP_MUL, I(2), V(1, 2, 3)), 2, 4, 6, 0);
    CHECK_VEC(op(LSL_OP_DIV, V(2, 4, 6), I(2)), 1, 2, 3, 0);
    CHECK_NEAR(op(LSL_OP_MUL, V(1, 2, 3), V(4, 5, 6)).u.f, 32, 0);
    CHECK_VEC(op(LSL_OP_MOD, V(1, 0, 0), V(0, 1, 0)), 0, 0, 1, 0);
    /* a quarter turn about Z takes <1,0,0> to <0,1,0>; dividing undoes it */
    lsl_value qz = R(0, 0, 0.70710678f, 0.70710678f);
    CHECK_VEC(op(LSL_OP_MUL, V(1, 0, 0), qz), 0, 1, 0, 1e-6);
    CHECK_VEC(op(LSL_OP_DIV, V(0, 1, 0), qz), 1, 0, 0, 1e-6);
    /* composition: first the left turn, then the right one */
    lsl_value qx = R(0.70710678f, 0, 0, 0.70710678f);
    lsl_value both = op(LSL_OP_MUL, qz, qx);
    CHECK_VEC(op(LSL_OP_MUL, V(1, 0, 0), both), 0, 0, 1, 1e-6);  /* x -> y (Z turn) -> z (X turn) */
    CHECK_ROT(op(LSL_OP_DIV, both, qx), 0, 0, 0.70710678, 0.70710678, 1e-6);
    /* unary */
    lsl_value out;
    lsl_value imin = I(INT32_MIN), vec = V(1, -2, 3), five = I(5), fl = F(2.5f);
    CHECK_INT(lsl_value_unop(LSL_UOP_NEG, &imin, &out, &T_err), GSVM_OK);
    CHECK_INT(out.u.i, INT32_MIN);
    CHECK_INT(lsl_value_unop(LSL_UOP_NEG, &vec, &out, &T_err), GSVM_OK);
    CHECK_VEC(out, -1, 2, -3, 0);
    CHECK_INT(lsl_value_unop(LSL_UOP_NEG, &fl, &out, &T_err), GSVM_OK);
    CHECK_NEAR(out.u.f, -2.5, 0);
    CHECK_INT(lsl_value_unop(LSL_UOP_BITNOT, &five, &out, &T_err), GSVM_OK);
    CHECK_INT(out.u.i, -6);
    CHECK_INT(lsl_value_unop(LSL_UOP_NOT, &five, &out, &T_err), GSVM_OK);
    CHECK_INT(out.u.i, 0);
    CHECK_INT(lsl_value_unop(LSL_UOP_NOT, &fl, &out, &T_err), GSVM_ERR_USAGE);
    /* the static typing table */
    CHECK_INT(lsl_op_result_type(LSL_OP_MUL, LSL_TYPE_VECTOR, LSL_TYPE_VECTOR), LSL_TYPE_FLOAT);
    CHECK_INT(lsl_op_result_type(LSL_OP_MUL, LSL_TYPE_ROTATION, LSL_TYPE_VECTOR), LSL_TYPE_VOID);
    CHECK_INT(lsl_op_result_type(LSL_OP_MOD, LSL_TYPE_FLOAT, LSL_TYPE_FLOAT), LSL_TYPE_VOID);
    CHECK_INT(lsl_op_result_type(LSL_OP_LT, LSL_TYPE_STRING, LSL_TYPE_STRING), LSL_TYPE_VOID);
    CHECK_INT(lsl_op_result_type(LSL_OP_ADD, LSL_TYPE_ROTATION, LSL_TYPE_LIST), LSL_TYPE_LIST);
    CHECK_INT(lsl_op_result_type(LSL_OP_SHL, LSL_TYPE_INTEGER, LSL_TYPE_FLOAT), LSL_TYPE_VOID);
    CHECK_INT(op(LSL_OP_SUB, S("a"), S("b")).type, LSL_TYPE_VOID);
    CHECK_INT(T_err.status, GSVM_ERR_USAGE);
    flush();
}

int main(void)
{
    lsl_heap_init(&T_heap, 0);
    lsl_lib_state_init(&T_state, 1);
    test_string_casts();
    test_integer_casts();
    test_float_casts();
    test_vector_casts();
    test_truth_and_equality();
    test_memory();
    test_json();
    test_operators();
    CHECK_INT(T_heap.used, 0); /* everything released */
    TEST_MAIN_END();
}
