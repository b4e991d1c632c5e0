/* The builtin table and the native library, against Second Life's documented
 * results (wiki examples) and the properties the functions must keep. */
#include "lib_test.h"

#define PI_F 3.14159265f

static void test_table(void)
{
    size_t nf, nc, ne;
    const lsl_builtin *fns = lsl_builtins(&nf);
    const lsl_constant *cs = lsl_constants(&nc);
    const lsl_event_def *evs = lsl_events(&ne);
    CHECK_INT(nf, 526);
    CHECK_INT(nc, 1028);
    CHECK_INT(ne, 43);
    const lsl_builtin *b = lsl_builtin_by_name("llAbs", 5);
    CHECK(b && b->id == 6 && b->nargs == 1 && b->ret == LSL_TYPE_INTEGER);
    CHECK(b && (b->flags & LSL_FN_PURE) && (b->flags & LSL_FN_WORLDLESS));
    CHECK(lsl_builtin_by_id(LSL_ID_llAbs) == b);
    CHECK(lsl_builtin_by_id(LSL_ID_llSetTimerEvent) && (lsl_builtin_by_id(LSL_ID_llSetTimerEvent)->flags & LSL_FN_VM));
    CHECK(lsl_builtin_by_id(100000) == NULL);
    CHECK(lsl_builtin_by_name("llAb", 4) == NULL);
    CHECK(lsl_builtin_by_name("llAbsX", 6) == NULL);
    const lsl_builtin *say = lsl_builtin_by_name("llSay", 5);
    CHECK(say && say->ret == LSL_TYPE_VOID && say->nargs == 2 && strcmp(say->argtypes, "is") == 0);
    CHECK(say && lsl_builtin_native(say) == NULL && !(say->flags & LSL_FN_WORLDLESS));
    const lsl_builtin *gm = lsl_builtin_by_name("llGodLikeRezObject", 18);
    CHECK(gm && (gm->flags & LSL_FN_GOD_MODE));
    const lsl_builtin *rl = lsl_builtin_by_name("llRemoteLoadScript", 18);
    CHECK(rl && (rl->flags & LSL_FN_DEPRECATED) && rl->sleep == 3.0f);
    const lsl_builtin *tb = lsl_builtin_by_name("llTextBox", 9); /* Mono's delay, not LSO's */
    CHECK(tb && tb->sleep == 0.0f);
    const lsl_builtin *em = lsl_builtin_by_name("llEmail", 7);
    CHECK(em && em->sleep == 20.0f && em->nargs == 3);
    /* every WORLDLESS function has a native implementation and vice versa;
     * ids are strictly increasing (binary search relies on it) */
    int worldless = 0, mismatched = 0;
    for (size_t i = 0; i < nf; i++) {
        bool wl = (fns[i].flags & LSL_FN_WORLDLESS) != 0;
        worldless += wl;
        if (wl != (lsl_builtin_native(&fns[i]) != NULL)) {
            mismatched++;
            fprintf(stderr, "native/WORLDLESS mismatch: %s\n", fns[i].name);
        }
        if (i && fns[i].id <= fns[i - 1].id)
            mismatched++;
        if (strlen(fns[i].argtypes) != fns[i].nargs || fns[i].nargs > LSL_MAX_ARGS)
            mismatched++;
        for (unsigned k = 0; k < fns[i].nargs; k++)
            if (lsl_builtin_arg_type(&fns[i], k) == LSL_TYPE_VOID)
                mismatched++;
    }
    CHECK_INT(mismatched, 0);
    CHECK(worldless >= 80);
    /* constants: binary search in name order */
    for (size_t i = 1; i < nc; i++)
        if (strcmp(cs[i - 1].name, cs[i].name) >= 0)
            mismatched++;
    for (size_t i = 1; i < ne; i++)
        if (strcmp(evs[i - 1].name, evs[i].name) >= 0)
            mismatched++;
    CHECK_INT(mismatched, 0);
    const lsl_constant *pi = lsl_constant_by_name("PI", 2);
    CHECK(pi && pi->type == LSL_TYPE_FLOAT && pi->v[0] == 3.14159265f);
    const lsl_constant *eof = lsl_constant_by_name("EOF", 3);
    CHECK(eof && eof->type == LSL_TYPE_STRING && eof->len == 3 && memcmp(eof->str, "\n\n\n", 3) == 0);
    const lsl_constant *nk = lsl_constant_by_name("NULL_KEY", 8);
    CHECK(nk && strcmp(nk->str, "00000000-0000-0000-0000-000000000000") == 0);
    const lsl_constant *zr = lsl_constant_by_name("ZERO_ROTATION", 13);
    CHECK(zr && zr->type == LSL_TYPE_ROTATION && zr->v[3] == 1.0f);
    const lsl_constant *tiv = lsl_constant_by_name("TOUCH_INVALID_TEXCOORD", 22);
    CHECK(tiv && tiv->type == LSL_TYPE_VECTOR && tiv->v[0] == -1.0f && tiv->v[1] == -1.0f);
    const lsl_constant *ja = lsl_constant_by_name("JSON_ARRAY", 10);
    CHECK(ja && ja->len == 3 && memcmp(ja->str, "\xef\xb7\x92", 3) == 0);
    const lsl_constant *dbg = lsl_constant_by_name("DEBUG_CHANNEL", 13);
    CHECK(dbg && dbg->i == 2147483647);
    const lsl_constant *tr = lsl_constant_by_name("TRUE", 4);
    CHECK(tr && tr->i == 1);
    CHECK(lsl_constant_by_name("NOPE", 4) == NULL);
    const lsl_event_def *ev = lsl_event_by_name("listen", 6);
    CHECK(ev && ev->nargs == 4 && strcmp(ev->argtypes, "isks") == 0 && strcmp(ev->argnames, "channel,name,id,msg") == 0);
    const lsl_event_def *se = lsl_event_by_name("state_entry", 11);
    CHECK(se && se->nargs == 0);
    CHECK(lsl_event_by_name("touch_start", 11) && lsl_event_by_name("touch_start", 11)->argtypes[0] == 'i');
    /* argument checks at the host boundary */
    lsl_value args[2] = {I(0), S("hi")};
    CHECK_INT(lsl_builtin_check_args(say, args, 2, &T_err), GSVM_OK);
    args[1] = K("k");
    CHECK_INT(lsl_builtin_check_args(say, args, 2, &T_err), GSVM_OK); /* key where string: implicit */
    args[1] = F(1);
    CHECK_INT(lsl_builtin_check_args(say, args, 2, &T_err), GSVM_ERR_USAGE);
    CHECK_STR(T_err.message, "llSay argument 2 must be string, not float");
    CHECK_INT(lsl_builtin_check_args(say, args, 1, &T_err), GSVM_ERR_USAGE);
    lsl_value d = lsl_builtin_default_result(lsl_builtin_by_name("llGetRot", 8));
    CHECK_ROT(d, 0, 0, 0, 1, 0);
    CHECK_INT(lsl_builtin_default_result(say).type, LSL_TYPE_VOID);
    CHECK_INT(lsl_builtin_default_result(lsl_builtin_by_name("llGetOwner", 10)).type, LSL_TYPE_KEY);
    /* calling a function with no native implementation is a usage error */
    lsl_value ret;
    CHECK_INT(lsl_builtin_call(say, &T_ctx, args, 2, &ret), GSVM_ERR_USAGE);
    flush();
}

static void test_math(void)
{
    CHECK_INT(call("llAbs", 1, I(-5)).u.i, 5);
    CHECK_INT(call("llAbs", 1, I(INT32_MIN)).u.i, INT32_MIN);
    CHECK_NEAR(call("llFabs", 1, F(-2.5f)).u.f, 2.5, 0);
    CHECK_NEAR(call("llSqrt", 1, F(16)).u.f, 4, 0);
    call("llSqrt", 1, F(-1));
    CHECK_INT(T_last, GSVM_ERR_FAULT);
    CHECK_STR(T_err.message, "Math Error");
    CHECK_NEAR(call("llPow", 2, F(2), F(10)).u.f, 1024, 0);
    CHECK(isnan(call("llPow", 2, F(-1), F(0.5f)).u.f));
    CHECK(isnan(call("llPow", 2, F(1), F(INFINITY)).u.f));
    CHECK(isnan(call("llPow", 2, F(NAN), F(0)).u.f));
    CHECK_NEAR(call("llPow", 2, F(5), F(0)).u.f, 1, 0);
    CHECK(isinf(call("llPow", 2, F(0), F(-1)).u.f));
    CHECK(!signbit(call("llPow", 2, F(-1e-30f), F(3)).u.f)); /* never -0.0 */
    CHECK_NEAR(call("llSin", 1, F(PI_F / 2)).u.f, 1, 1e-6);
    CHECK_NEAR(call("llCos", 1, F(0)).u.f, 1, 0);
    CHECK(isnan(call("llCos", 1, F(INFINITY)).u.f));
    CHECK_NEAR(call("llSin", 1, F(1e20f)).u.f, 1e20f, 0); /* beyond 2^63: the argument itself */
    /* integer arguments reduce with the x87's 2*PI: sin(1e10) as SL, not exact */
    CHECK_NEAR(call("llSin", 1, F(1e10f)).u.f, (float)sin(5.773954235026726), 0);
    CHECK_NEAR(call("llSin", 1, F(-1e10f)).u.f, -(float)sin(5.773954235026726), 1e-6);
    CHECK_NEAR(call("llTan", 1, F(PI_F / 4)).u.f, 1, 1e-6);
    CHECK_NEAR(call("llAtan2", 2, F(1), F(1)).u.f, PI_F / 4, 1e-6);
    CHECK_NEAR(call("llAcos", 1, F(0)).u.f, PI_F / 2, 1e-6);
    CHECK_NEAR(call("llAsin", 1, F(1)).u.f, PI_F / 2, 1e-6);
    CHECK(isnan(call("llAsin", 1, F(2)).u.f));
    CHECK_NEAR(call("llLog", 1, F(2.718281828f)).u.f, 1, 1e-6);
    CHECK_NEAR(call("llLog", 1, F(-1)).u.f, 0, 0);
    CHECK_NEAR(call("llLog10", 1, F(1000)).u.f, 3, 1e-6);
    CHECK_NEAR(call("llLog10", 1, F(0)).u.f, 0, 0);
    CHECK_INT(call("llFloor", 1, F(-1.5f)).u.i, -2);
    CHECK_INT(call("llFloor", 1, F(1.9f)).u.i, 1);
    CHECK_INT(call("llCeil", 1, F(1.1f)).u.i, 2);
    CHECK_INT(call("llCeil", 1, F(-1.1f)).u.i, -1);
    CHECK_INT(call("llRound", 1, F(2.5f)).u.i, 3);
    CHECK_INT(call("llRound", 1, F(-2.5f)).u.i, -2);
    CHECK_INT(call("llRound", 1, F(1.4f)).u.i, 1);
    CHECK_INT(call("llRound", 1, F(0.49999997f)).u.i, 1); /* SL adds 0.5 in float */
    CHECK_INT(call("llRound", 1, F(2147483647.0f)).u.i, INT32_MIN);
    CHECK_INT(call("llFloor", 1, F(NAN)).u.i, INT32_MIN);
    CHECK_INT(call("llRound", 1, F(1e20f)).u.i, INT32_MIN);
    CHECK_INT(call("llModPow", 3, I(2), I(10), I(1000)).u.i, 24);
    CHECK_INT(call("llModPow", 3, I(3), I(0), I(7)).u.i, 1);
    CHECK_INT(call("llModPow", 3, I(5), I(3), I(0)).u.i, 0);
    CHECK_INT(call("llModPow", 3, I(5), I(3), I(1)).u.i, 0);
    CHECK_INT(call("llModPow", 3, I(70000), I(2), I(100000)).u.i, 32704); /* SL cuts products to 32 bits */
    /* 4^13 mod 497 = 445 (the textbook example) */
    CHECK_INT(call("llModPow", 3, I(4), I(13), I(497)).u.i, 445);
    /* llFrand: in range, reproducible from the seed */
    lsl_lib_state a, b;
    lsl_lib_state_init(&a, 42);
    lsl_lib_state_init(&b, 42);
    lsl_lib_state *saved = T_ctx.state;
    float first[8];
    bool in_range = true;
    T_ctx.state = &a;
    for (int i = 0; i < 1000; i++) {
        float r = call("llFrand", 1, F(10)).u.f;
        if (i < 8)
            first[i] = r;
        in_range = in_range && r >= 0 && r < 10;
        float n = call("llFrand", 1, F(-2)).u.f;
        in_range = in_range && n <= 0 && n > -2;
    }
    CHECK(in_range);
    T_ctx.state = &b;
    bool same = true;
    for (int i = 0; i < 8; i++) {
        same = same && call("llFrand", 1, F(10)).u.f == first[i];
        call("llFrand", 1, F(-2));
    }
    CHECK(same);
    lsl_lib_state_init(&b, 43);
    CHECK(call("llFrand", 1, F(10)).u.f != first[0]);
    T_ctx.state = saved;
    flush();
}

static void test_vectors_rotations(void)
{
    const float E = 1e-5f;
    CHECK_NEAR(call("llVecMag", 1, V(3, 4, 0)).u.f, 5, 0);
    CHECK_VEC(call("llVecNorm", 1, V(3, 4, 0)), 0.6, 0.8, 0, E);
    CHECK_VEC(call("llVecNorm", 1, V(0, 0, 0)), 0, 0, 0, 0);
    CHECK_NEAR(call("llVecDist", 2, V(1, 0, 0), V(4, 4, 0)).u.f, 5, 0);
    /* wiki: llEuler2Rot(<0, 0, PI/2>) is a quarter turn about Z */
    lsl_value q = call("llEuler2Rot", 1, V(0, 0, PI_F / 2));
    CHECK_ROT(q, 0, 0, 0.70711, 0.70711, E);
    CHECK_ROT(call("llEuler2Rot", 1, V(PI_F / 2, 0, 0)), 0.70711, 0, 0, 0.70711, E);
    CHECK_ROT(call("llEuler2Rot", 1, V(0, PI_F / 2, 0)), 0, 0.70711, 0, 0.70711, E);
    CHECK_VEC(call("llRot2Euler", 1, q), 0, 0, PI_F / 2, E);
    CHECK_VEC(call("llRot2Fwd", 1, q), 0, 1, 0, E);
    CHECK_VEC(call("llRot2Left", 1, q), -1, 0, 0, E);
    CHECK_VEC(call("llRot2Up", 1, q), 0, 0, 1, E);
    /* SL's llEuler2Rot turns a vector about Z first, then Y, then X (fixed
     * axes): <PI/2, 0, PI/2> sends fwd to +Z and up to -Y */
    lsl_value xz = call("llEuler2Rot", 1, V(PI_F / 2, 0, PI_F / 2));
    CHECK_NEAR(fabs(xz.u.v[0]), 0.5, E);
    CHECK_NEAR(xz.u.v[0] * xz.u.v[1], -0.25, E);
    CHECK_VEC(call("llRot2Fwd", 1, xz), 0, 0, 1, E);
    CHECK_VEC(call("llRot2Up", 1, xz), 0, -1, 0, E);
    CHECK_VEC(call("llRot2Euler", 1, xz), PI_F / 2, 0, PI_F / 2, E);
    /* SL's sign choice between q and -q (the same turn): here s >= 0 */
    CHECK_ROT(call("llEuler2Rot", 1, V(0, 0, 3 * PI_F / 2)), 0, 0, -0.70711, 0.70711, E);
    /* Euler round trips away from and at the poles; axes round trips */
    int bad = 0;
    for (float x = -3.0f; x <= 3.0f; x += 0.7f)
        for (float y = -1.5f; y <= 1.5f; y += 0.5f)
            for (float z = -3.0f; z <= 3.0f; z += 0.9f) {
                lsl_value r = call("llEuler2Rot", 1, V(x, y, z));
                lsl_value e = call("llRot2Euler", 1, r);
                lsl_value r2 = call("llEuler2Rot", 1, e);
                /* same rotation: |dot| == 1 */
                double dot = (double)r.u.v[0] * r2.u.v[0] + (double)r.u.v[1] * r2.u.v[1] +
                             (double)r.u.v[2] * r2.u.v[2] + (double)r.u.v[3] * r2.u.v[3];
                if (fabs(fabs(dot) - 1) > 1e-4)
                    bad++;
                lsl_value ax = call("llAxes2Rot", 3, call("llRot2Fwd", 1, r), call("llRot2Left", 1, r),
                                    call("llRot2Up", 1, r));
                dot = (double)r.u.v[0] * ax.u.v[0] + (double)r.u.v[1] * ax.u.v[1] +
                      (double)r.u.v[2] * ax.u.v[2] + (double)r.u.v[3] * ax.u.v[3];
                if (fabs(fabs(dot) - 1) > 1e-4)
                    bad++;
                flush();
            }
    CHECK_INT(bad, 0);
    CHECK_VEC(call("llRot2Euler", 1, call("llEuler2Rot", 1, V(0, PI_F / 2, 0))), 0, PI_F / 2, 0, 1e-3);
    CHECK_ROT(call("llAxes2Rot", 3, V(1, 0, 0), V(0, 1, 0), V(0, 0, 1)), 0, 0, 0, 1, E);
    CHECK_ROT(call("llRotBetween", 2, V(1, 0, 0), V(0, 1, 0)), 0, 0, 0.70711, 0.70711, E);
    CHECK_ROT(call("llRotBetween", 2, V(1, 0, 0), V(2, 0, 0)), 0, 0, 0, 1, E);
    lsl_value opp = call("llRotBetween", 2, V(1, 0, 0), V(-1, 0, 0));
    CHECK_NEAR(call("llRot2Angle", 1, opp).u.f, PI_F, E);
    CHECK_VEC(call("llRot2Fwd", 1, opp), -1, 0, 0, E);
    CHECK_ROT(call("llRotBetween", 2, V(0, 0, 1), V(0, 0, -2)), 0, 0, 1, 0, E);
    CHECK_ROT(call("llRotBetween", 2, V(0, 0, 0), V(0, 0, 1)), 0, 0, 0, 1, 0);
    CHECK_ROT(call("llAxisAngle2Rot", 2, V(0, 0, 2), F(PI_F / 2)), 0, 0, 0.70711, 0.70711, E);
    CHECK_ROT(call("llAxisAngle2Rot", 2, V(0, 0, 0), F(PI_F / 2)), 0, 0, 0, 1, 0);
    CHECK_NEAR(call("llRot2Angle", 1, q).u.f, PI_F / 2, E);
    CHECK_VEC(call("llRot2Axis", 1, q), 0, 0, 1, E);
    CHECK_NEAR(call("llRot2Angle", 1, R(0, 0, -0.70711f, -0.70711f)).u.f, PI_F / 2, E);
    CHECK_NEAR(call("llAngleBetween", 2, R(0, 0, 0, 1), call("llEuler2Rot", 1, V(0, 0, 1))).u.f, 1, E);
    CHECK_NEAR(call("llAngleBetween", 2, q, q).u.f, 0, 1e-3);
    CHECK_VEC(call("llLinear2sRGB", 1, V(0, 1, 0.5f)), 0, 1, 0.735357, E);
    CHECK_VEC(call("llsRGB2Linear", 1, V(0, 1, 0.735357f)), 0, 1, 0.5, E);
    flush();
}

static void test_strings(void)
{
    CHECK_INT(call("llStringLength", 1, S("h\xc3\xa9llo")).u.i, 5);
    CHECK_STR(T(call("llGetSubString", 3, S("abcdefghij"), I(2), I(4))), "cde");
    CHECK_STR(T(call("llGetSubString", 3, S("abcdefghij"), I(-3), I(-1))), "hij");
    CHECK_STR(T(call("llGetSubString", 3, S("abcdefghij"), I(0), I(-1))), "abcdefghij");
    CHECK_STR(T(call("llGetSubString", 3, S("abcdefghij"), I(8), I(2))), "abcij"); /* wraparound */
    CHECK_STR(T(call("llGetSubString", 3, S("abcdefghij"), I(5), I(100))), "fghij");
    CHECK_STR(T(call("llGetSubString", 3, S("abcdefghij"), I(20), I(30))), "");
    CHECK_STR(T(call("llGetSubString", 3, S("abcdefghij"), I(-20), I(2))), "abc");
    CHECK_STR(T(call("llGetSubString", 3, S("h\xc3\xa9llo"), I(1), I(1))), "\xc3\xa9");
    CHECK_STR(T(call("llDeleteSubString", 3, S("abcdefghij"), I(2), I(4))), "abfghij");
    CHECK_STR(T(call("llDeleteSubString", 3, S("abcdefghij"), I(8), I(2))), "defgh");
    CHECK_STR(T(call("llDeleteSubString", 3, S("abcdefghij"), I(-1), I(-1))), "abcdefghi");
    CHECK_STR(T(call("llInsertString", 3, S("Hello World"), I(5), S(","))), "Hello, World");
    CHECK_STR(T(call("llInsertString", 3, S("abc"), I(99), S("d"))), "abcd");
    CHECK_STR(T(call("llInsertString", 3, S("abc"), I(-5), S("_"))), "_abc");
    CHECK_INT(call("llSubStringIndex", 2, S("Hello, Avatar!"), S("Avatar")).u.i, 7);
    CHECK_INT(call("llSubStringIndex", 2, S("Hello, Avatar!"), S("x")).u.i, -1);
    CHECK_INT(call("llSubStringIndex", 2, S("\xc3\xa9t\xc3\xa9"), S("t")).u.i, 1);
    CHECK_INT(call("llSubStringIndex", 2, S("abc"), S("")).u.i, 0);
    CHECK_STR(T(call("llToUpper", 1, S("Hello \xc3\xa9\xc3\xbf z"))), "HELLO \xc3\x89\xc5\xb8 Z");
    CHECK_STR(T(call("llToLower", 1, S("HeLLo \xc3\x89 \xd0\x96"))), "hello \xc3\xa9 \xd0\xb6");
    CHECK_STR(T(call("llStringTrim", 2, S("  a b \t\n"), C("STRING_TRIM"))), "a b");
    CHECK_STR(T(call("llStringTrim", 2, S("  a b  "), C("STRING_TRIM_HEAD"))), "a b  ");
    CHECK_STR(T(call("llStringTrim", 2, S("  a b  "), C("STRING_TRIM_TAIL"))), "  a b");
    CHECK_STR(T(call("llEscapeURL", 1, S("Hello, World!"))), "Hello%2C%20World%21");
    CHECK_STR(T(call("llEscapeURL", 1, S("\xc3\xa9"))), "%C3%A9");
    CHECK_STR(T(call("llUnescapeURL", 1, S("Hello%2C%20World%21"))), "Hello, World!");
    CHECK_STR(T(call("llUnescapeURL", 1, S("100%+%zz%4"))), "100"); /* "%+%" is a NUL */
    CHECK_STR(T(call("llUnescapeURL", 1, S("a%4%41"))), "a@41");
    CHECK_STR(T(call("llUnescapeURL", 1, S("%C3%A9%80"))), "\xc3\xa9?");
    CHECK_STR(T(call("llUnescapeURL", 1, S("x%4"))), "x");
    CHECK_STR(T(call("llUnescapeURL", 1, S("ab%00cd"))), "ab");
    CHECK_STR(T(call("llChar", 1, I(65))), "A");
    CHECK_STR(T(call("llChar", 1, I(0x1F600))), "\xf0\x9f\x98\x80");
    CHECK_STR(T(call("llChar", 1, I(0))), "");
    CHECK_STR(T(call("llChar", 1, I(0xD800))), "\xef\xbf\xbd");
    CHECK_INT(call("llOrd", 2, S("A"), I(0)).u.i, 65);
    CHECK_INT(call("llOrd", 2, S("abc"), I(-1)).u.i, 99);
    CHECK_INT(call("llOrd", 2, S("a\xe2\x82\xac"), I(1)).u.i, 0x20AC);
    CHECK_INT(call("llOrd", 2, S("abc"), I(3)).u.i, 0);
    CHECK_STR(T(call("llReplaceSubString", 4, S("hello hello hello"), S("hello"), S("bye"), I(0))), "bye bye bye");
    CHECK_STR(T(call("llReplaceSubString", 4, S("hello hello hello"), S("hello"), S("bye"), I(1))), "bye hello hello");
    CHECK_STR(T(call("llReplaceSubString", 4, S("hello hello hello"), S("hello"), S("bye"), I(-1))), "hello hello bye");
    CHECK_STR(T(call("llReplaceSubString", 4, S("aaaa"), S("aa"), S("b"), I(0))), "bb");
    CHECK_STR(T(call("llReplaceSubString", 4, S("abc"), S(""), S("x"), I(0))), "abc");
    flush();
}

static void test_lists(void)
{
    lsl_value l = L(6, S("5"), F(2.7f), V(1, 2, 3), K("k"), I(-4), R(0, 0, 0, 1));
    CHECK_INT(call("llGetListLength", 1, l).u.i, 6);
    CHECK_INT(call("llList2Integer", 2, l, I(0)).u.i, 5);
    CHECK_INT(call("llList2Integer", 2, l, I(1)).u.i, 2);
    CHECK_INT(call("llList2Integer", 2, l, I(2)).u.i, 0);
    CHECK_INT(call("llList2Integer", 2, l, I(3)).u.i, 0); /* keys do not convert */
    CHECK_INT(call("llList2Integer", 2, l, I(-2)).u.i, -4);
    CHECK_INT(call("llList2Integer", 2, l, I(6)).u.i, 0);
    CHECK_NEAR(call("llList2Float", 2, l, I(0)).u.f, 5, 0);
    CHECK_NEAR(call("llList2Float", 2, l, I(4)).u.f, -4, 0);
    CHECK_STR(T(call("llList2String", 2, l, I(1))), "2.700000");
    CHECK_STR(T(call("llList2String", 2, l, I(2))), "<1.000000, 2.000000, 3.000000>");
    CHECK_STR(T(call("llList2String", 2, l, I(99))), "");
    lsl_value k = call("llList2Key", 2, l, I(0));
    CHECK(k.type == LSL_TYPE_KEY && strcmp(T(k), "5") == 0);
    CHECK_STR(T(call("llList2Key", 2, l, I(4))), "");
    CHECK_VEC(call("llList2Vector", 2, l, I(2)), 1, 2, 3, 0);
    CHECK_VEC(call("llList2Vector", 2, L(1, S("<1,2,3>")), I(0)), 0, 0, 0, 0);
    CHECK_ROT(call("llList2Rot", 2, l, I(-1)), 0, 0, 0, 1, 0);
    CHECK_ROT(call("llList2Rot", 2, l, I(0)), 0, 0, 0, 1, 0);
    CHECK_INT(call("llGetListEntryType", 2, l, I(0)).u.i, 3);
    CHECK_INT(call("llGetListEntryType", 2, l, I(1)).u.i, 2);
    CHECK_INT(call("llGetListEntryType", 2, l, I(3)).u.i, 4);
    CHECK_INT(call("llGetListEntryType", 2, l, I(5)).u.i, 6);
    CHECK_INT(call("llGetListEntryType", 2, l, I(9)).u.i, 0);

    lsl_value abc = L(5, S("a"), S("b"), S("c"), S("d"), S("e"));
    CHECK_STR(J(call("llList2List", 3, abc, I(1), I(3))), "[\"b\",\"c\",\"d\"]");
    CHECK_STR(J(call("llList2List", 3, abc, I(-2), I(-1))), "[\"d\",\"e\"]");
    CHECK_STR(J(call("llList2List", 3, abc, I(3), I(1))), "[\"a\",\"b\",\"d\",\"e\"]");
    CHECK_STR(J(call("llList2List", 3, abc, I(7), I(9))), "[]");
    CHECK_STR(J(call("llDeleteSubList", 3, abc, I(1), I(3))), "[\"a\",\"e\"]");
    CHECK_STR(J(call("llDeleteSubList", 3, abc, I(3), I(1))), "[\"c\"]");
    CHECK_STR(J(call("llDeleteSubList", 3, abc, I(-1), I(-1))), "[\"a\",\"b\",\"c\",\"d\"]");
    CHECK_STR(T(call("llList2CSV", 1, L(4, I(1), F(2.5f), S("a"), V(1, 2, 3)))),
              "1, 2.500000, a, <1.000000, 2.000000, 3.000000>");
    /* one space after each comma goes, other white space stays */
    CHECK_STR(J(call("llCSV2List", 1, S("a, b,<1,2,3>, c ,"))), "[\"a\",\"b\",\"<1,2,3>\",\"c \",\"\"]");
    CHECK_STR(J(call("llCSV2List", 1, S(" x,  y,<1,<2>,3>,z>w"))), "[\"x\",\" y\",\"<1,<2>,3>\",\"z>w\"]");
    CHECK_STR(J(call("llCSV2List", 1, S(""))), "[\"\"]");
    CHECK_STR(T(call("llList2CSV", 1, L(2, F(123456.789f), V(0.5f, 0, 1e-7f)))),
              "123456.789062, <0.500000, 0.000000, 0.000000>");
    CHECK_STR(T(call("llList2String", 2, L(1, F(123456.789f)), I(0))), "123456.800000");
    CHECK_STR(T(call("llDumpList2String", 2, L(3, I(1), I(2), I(3)), S("-"))), "1-2-3");
    CHECK_STR(T(call("llDumpList2String", 2, L(0), S("-"))), "");

    CHECK_STR(J(call("llParseString2List", 3, S("The quick brown fox"), L(1, S(" ")), L(0))),
              "[\"The\",\"quick\",\"brown\",\"fox\"]");
    CHECK_STR(J(call("llParseString2List", 3, S("a,b,,c,"), L(1, S(",")), L(0))), "[\"a\",\"b\",\"c\"]");
    CHECK_STR(J(call("llParseStringKeepNulls", 3, S("a,b,,c,"), L(1, S(",")), L(0))),
              "[\"a\",\"b\",\"\",\"c\",\"\"]");
    CHECK_STR(J(call("llParseString2List", 3, S("1+2=3"), L(0), L(2, S("+"), S("=")))),
              "[\"1\",\"+\",\"2\",\"=\",\"3\"]");
    CHECK_STR(J(call("llParseString2List", 3, S("a<>b"), L(1, S("<")), L(1, S("<>")))), "[\"a\",\">b\"]");
    CHECK_STR(J(call("llParseString2List", 3, S("a1b2c"), L(1, I(1)), L(1, I(2)))), "[\"a\",\"b\",\"2\",\"c\"]");
    CHECK_STR(J(call("llParseStringKeepNulls", 3, S(""), L(1, S(",")), L(0))), "[\"\"]");
    CHECK_STR(J(call("llParseString2List", 3, S(""), L(1, S(",")), L(0))), "[]");
    /* only the first 8 separators count */
    CHECK_STR(J(call("llParseString2List", 3, S("a1b9c"), L(9, S("1"), S("x"), S("x"), S("x"), S("x"), S("x"), S("x"), S("x"), S("9")), L(0))),
              "[\"a\",\"b9c\"]");

    lsl_value n3 = L(3, I(1), I(2), I(3));
    CHECK_STR(J(call("llListInsertList", 3, n3, L(1, I(9)), I(1))), "[1,9,2,3]");
    CHECK_STR(J(call("llListInsertList", 3, n3, L(1, I(9)), I(-1))), "[1,2,9,3]");
    CHECK_STR(J(call("llListInsertList", 3, n3, L(1, I(9)), I(10))), "[1,2,3,9]");
    CHECK_STR(J(call("llListReplaceList", 4, L(4, I(1), I(2), I(3), I(4)), L(1, S("a")), I(1), I(2))), "[1,\"a\",4]");
    CHECK_STR(J(call("llListReplaceList", 4, n3, L(1, S("a")), I(-1), I(-1))), "[1,2,\"a\"]");
    CHECK_STR(J(call("llListReplaceList", 4, n3, L(1, S("a")), I(5), I(6))), "[1,2,3,\"a\"]");
    lsl_value z4 = L(4, I(0), I(1), I(2), I(3));
    CHECK_STR(J(call("llListReplaceList", 4, z4, L(1, I(5)), I(-5), I(-5))), "[0,1,2,3]");
    CHECK_STR(J(call("llListReplaceList", 4, z4, L(1, I(5)), I(-5), I(-4))), "[1,2,3]");
    CHECK_STR(J(call("llListReplaceList", 4, z4, L(1, I(5)), I(-5), I(-7))), "[]");
    CHECK_STR(J(call("llListReplaceList", 4, L(5, I(1), I(2), I(3), I(4), I(5)), L(1, S("x")), I(3), I(1))), "[3,\"x\"]");
    CHECK_INT(call("llListFindList", 2, L(5, I(1), I(2), I(3), I(2), I(3)), L(2, I(2), I(3))).u.i, 1);
    CHECK_INT(call("llListFindList", 2, n3, L(1, F(1.0f))).u.i, -1); /* types must match */
    CHECK_INT(call("llListFindList", 2, L(1, K("a")), L(1, S("a"))).u.i, -1);
    CHECK_INT(call("llListFindList", 2, n3, L(1, I(4))).u.i, -1);
    CHECK_INT(call("llListFindList", 2, n3, L(0)).u.i, 0);
    CHECK_INT(call("llListFindList", 2, L(2, I(1), F(NAN)), L(1, F(NAN))).u.i, 1);
    CHECK_INT(call("llListFindList", 2, L(1, V(NAN, 0, 0)), L(1, V(NAN, 0, 0))).u.i, -1);
    lsl_value rep = L(4, I(1), I(2), I(1), I(2));
    CHECK_INT(call("llListFindListNext", 3, rep, L(1, I(1)), I(0)).u.i, 0);
    CHECK_INT(call("llListFindListNext", 3, rep, L(1, I(1)), I(1)).u.i, 2);
    CHECK_INT(call("llListFindListNext", 3, rep, L(1, I(1)), I(2)).u.i, -1);
    CHECK_INT(call("llListFindListNext", 3, rep, L(1, I(2)), I(-1)).u.i, 3);
    CHECK_INT(call("llListFindListNext", 3, rep, L(1, I(2)), I(-2)).u.i, 1);
    CHECK_INT(call("llListFindListNext", 3, rep, L(1, I(2)), I(-3)).u.i, -1);

    CHECK_STR(J(call("llListSort", 3, L(3, I(3), I(1), I(2)), I(1), I(1))), "[1,2,3]");
    CHECK_STR(J(call("llListSort", 3, L(3, I(3), I(1), I(2)), I(1), I(0))), "[3,2,1]");
    CHECK_STR(J(call("llListSort", 3, L(4, S("b"), I(1), S("a"), I(2)), I(2), I(1))), "[\"a\",2,\"b\",1]");
    CHECK_STR(J(call("llListSort", 3, L(3, S("b"), S("a"), S("c")), I(2), I(1))), "[\"b\",\"a\",\"c\"]");
    CHECK_STR(J(call("llListSort", 3, L(3, S("b"), S("B"), S("a")), I(0), I(1))), "[\"B\",\"a\",\"b\"]");
    CHECK_STR(J(call("llListSort", 3, L(3, F(2.5f), I(1), F(-1)), I(1), I(1))), "[-1.0,1,2.5]");
    /* only same-typed elements compare */
    CHECK_STR(J(call("llListSort", 3, L(3, I(2), F(1.5f), I(1)), I(1), I(1))), "[1,1.5,2]");
    CHECK_STR(J(call("llListSort", 3, L(3, F(2.5f), I(1), F(1.5f)), I(1), I(1))), "[1.5,1,2.5]");
    /* SL's sort swaps equal keys when descending */
    CHECK_STR(J(call("llListSort", 3, L(4, S("a"), I(1), S("a"), I(2)), I(2), I(0))), "[\"a\",2,\"a\",1]");
    CHECK_STR(J(call("llListSort", 3, L(3, I(3), I(1), I(2)), I(1), I(2))), "[3,2,1]"); /* only 1 is ascending */
    CHECK_STR(J(call("llListSort", 3, L(3, V(0, 0, 3), V(1, 0, 0), V(0, 2, 0)), I(1), I(1))),
              "[{\"vector\":[1.0,0.0,0.0]},{\"vector\":[0.0,2.0,0.0]},{\"vector\":[0.0,0.0,3.0]}]");
    CHECK_STR(J(call("llListSortStrided", 4, L(4, S("b"), I(2), S("a"), I(1)), I(2), I(1), I(1))), "[\"a\",1,\"b\",2]");
    CHECK_STR(J(call("llListSortStrided", 4, L(4, S("b"), I(1), S("a"), I(2)), I(2), I(-1), I(0))), "[\"a\",2,\"b\",1]");
    CHECK_STR(J(call("llListSortStrided", 4, L(4, S("b"), I(2), S("a"), I(1)), I(2), I(2), I(1))), "[\"b\",2,\"a\",1]");
    CHECK_STR(J(call("llList2ListStrided", 4, L(6, I(1), I(2), I(3), I(4), I(5), I(6)), I(0), I(-1), I(2))), "[1,3,5]");
    CHECK_STR(J(call("llList2ListStrided", 4, L(6, I(1), I(2), I(3), I(4), I(5), I(6)), I(1), I(-1), I(2))), "[3,5]");
    CHECK_STR(J(call("llList2ListStrided", 4, L(6, I(1), I(2), I(3), I(4), I(5), I(6)), I(0), I(3), I(3))), "[1,4]");
    CHECK_STR(J(call("llList2ListStrided", 4, L(6, I(1), I(2), I(3), I(4), I(5), I(6)), I(4), I(1), I(2))), "[1,3,5]");
    CHECK_STR(J(call("llList2ListStrided", 4, L(6, I(1), I(2), I(3), I(4), I(5), I(6)), I(0), I(-1), I(-2))), "[1,3,5]");
    CHECK_STR(J(call("llList2ListStrided", 4, L(6, I(1), I(2), I(3), I(4), I(5), I(6)), I(1), I(2), I(2))), "[3]");
    /* llList2ListSlice: the wiki's examples */
    lsl_value seven = L(7, I(0), I(1), I(2), I(3), I(4), I(5), I(6));
    CHECK_STR(J(call("llList2ListSlice", 5, seven, I(0), I(-1), I(3), I(0))), "[0,3,6]");
    CHECK_STR(J(call("llList2ListSlice", 5, seven, I(0), I(-1), I(3), I(1))), "[1,4]");
    CHECK_STR(J(call("llList2ListSlice", 5, seven, I(1), I(-1), I(3), I(1))), "[2,5]");
    CHECK_STR(J(call("llList2ListSlice", 5, seven, I(2), I(-1), I(3), I(-1))), "[4]");
    CHECK_STR(J(call("llList2ListSlice", 5, seven, I(0), I(-1), I(3), I(3))), "[]");
    CHECK_STR(J(call("llList2ListSlice", 5, seven, I(0), I(-1), I(0), I(0))), "[0,1,2,3,4,5,6]");

    lsl_value st = L(5, I(1), I(2), F(3), I(4), S("x"));
    CHECK_NEAR(call("llListStatistics", 2, C("LIST_STAT_MEAN"), st).u.f, 2.5, 0);
    CHECK_NEAR(call("llListStatistics", 2, C("LIST_STAT_MEDIAN"), st).u.f, 2.5, 0);
    CHECK_NEAR(call("llListStatistics", 2, C("LIST_STAT_SUM"), st).u.f, 10, 0);
    CHECK_NEAR(call("llListStatistics", 2, C("LIST_STAT_RANGE"), st).u.f, 3, 0);
    CHECK_NEAR(call("llListStatistics", 2, C("LIST_STAT_MIN"), st).u.f, 1, 0);
    CHECK_NEAR(call("llListStatistics", 2, C("LIST_STAT_MAX"), st).u.f, 4, 0);
    CHECK_NEAR(call("llListStatistics", 2, C("LIST_STAT_SUM_SQUARES"), st).u.f, 30, 0);
    CHECK_NEAR(call("llListStatistics", 2, C("LIST_STAT_NUM_COUNT"), st).u.f, 4, 0);
    CHECK_NEAR(call("llListStatistics", 2, C("LIST_STAT_STD_DEV"), st).u.f, 1.2909944, 1e-6);
    CHECK_NEAR(call("llListStatistics", 2, C("LIST_STAT_GEOMETRIC_MEAN"), st).u.f, 2.2133638, 1e-6);
    CHECK_NEAR(call("llListStatistics", 2, C("LIST_STAT_MEAN"), L(0)).u.f, 0, 0);

    /* llListRandomize keeps strides together and every element once */
    lsl_value pairs = L(8, S("a"), I(1), S("b"), I(2), S("c"), I(3), S("d"), I(4));
    bool ok = true, moved = false;
    for (int t = 0; t < 20; t++) {
        lsl_value r = call("llListRandomize", 2, pairs, I(2));
        int seen = 0;
        for (size_t i = 0; i < 8; i += 2) {
            const lsl_value *it = lsl_list_items(&r);
            int n = it[i + 1].u.i;
            ok = ok && it[i].type == LSL_TYPE_STRING && lsl_str_data(&it[i])[0] == 'a' + n - 1;
            seen |= 1 << n;
            moved = moved || (int)i / 2 != n - 1;
        }
        ok = ok && seen == 0x1E;
    }
    CHECK(ok);
    CHECK(moved);
    CHECK_STR(J(call("llListRandomize", 2, n3, I(2))), "[1,2,3]"); /* stride does not divide */
    flush();
}

static void test_codecs(void)
{
    CHECK_STR(T(call("llStringToBase64", 1, S("Hello, Avatar!"))), "SGVsbG8sIEF2YXRhciE=");
    CHECK_STR(T(call("llBase64ToString", 1, S("SGVsbG8sIEF2YXRhciE="))), "Hello, Avatar!");
    CHECK_STR(T(call("llBase64ToString", 1, S("gA=="))), "?"); /* 0x80 alone is not UTF-8 */
    CHECK_STR(T(call("llBase64ToString", 1, S("YQBi"))), "a?b"); /* an inner NUL becomes '?' */
    CHECK_STR(T(call("llBase64ToString", 1, S("YQA="))), "a");    /* a final NUL goes */
    CHECK_STR(T(call("llBase64ToString", 1, S("AWEJ"))), "?a\t");  /* controls other than \t \n */
    CHECK_STR(T(call("llBase64ToString", 1, S("4oJh"))), "?a");   /* E2 82 + 'a': one '?' for the sequence */
    CHECK_STR(T(call("llBase64ToString", 1, S("7aCA"))), "???");  /* ED A0 80: a surrogate */
    CHECK_STR(T(call("llBase64ToString", 1, S("w6k="))), "\xc3\xa9");
    CHECK_STR(T(call("llIntegerToBase64", 1, I(1))), "AAAAAQ==");
    CHECK_STR(T(call("llIntegerToBase64", 1, I(-1))), "/////w==");
    CHECK_INT(call("llBase64ToInteger", 1, S("AAAAAQ==")).u.i, 1);
    CHECK_INT(call("llBase64ToInteger", 1, S("/////w==")).u.i, -1);
    CHECK_INT(call("llBase64ToInteger", 1, S("AAAB")).u.i, 0x000001 << 8);
    CHECK_INT(call("llBase64ToInteger", 1, S("AAAAAQ==A")).u.i, 0); /* more than 8 characters */
    CHECK_STR(T(call("llXorBase64", 2, call("llStringToBase64", 1, S("abc")), call("llStringToBase64", 1, S("  ")))), "QUJD");
    CHECK_STR(T(call("llXorBase64StringsCorrect", 2, call("llStringToBase64", 1, S("abc")), call("llStringToBase64", 1, S(" ")))), "QUJD");
    CHECK_STR(T(call("llXorBase64", 2, S("QUJD"), S(""))), "QUJD");
    CHECK_STR(T(call("llXorBase64", 2, S("!!"), S(""))), "!!");
    /* key " \0A": Correct restarts the pattern at the zero byte */
    CHECK_STR(T(call("llXorBase64StringsCorrect", 2, S("YWJj"), S("IABB"))), "QUJD");
    CHECK_STR(T(call("llXorBase64", 2, S("YWJj"), S("IABB"))), "QWIi");
    /* the deprecated digit-wise XOR: 'A' (0) ^ 'B' (1) -> 'B'; padding kept */
    CHECK_STR(T(call("llXorBase64Strings", 2, S("AAA="), S("B"))), "BBB=");
    CHECK_STR(T(call("llMD5String", 2, S("Hello, Avatar!"), I(0))), "112abd47ceaae1c05a826828650434a6");
    CHECK_STR(T(call("llSHA1String", 1, S("Hello, Avatar!"))), "2e73318e547af1b28cc0c96f95ddc9b1ee906b8d");
    CHECK_STR(T(call("llSHA256String", 1, S("Hello, Avatar!"))),
              "3a9f9d2e4360319a62139d19bd425c16fb8439b832d74d5221ca75b54c35b4f2");
    /* HMAC: RFC 4231 case 1 and the well-known "quick brown fox" digests */
    CHECK_STR(T(call("llHMAC", 3, S("\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b"),
                     S("Hi There"), S("sha256"))),
              "sDRMYdjbOFNcqK/OrwvxK4gdwgDJgz2nJuk3bC4yz/c=");
    CHECK_STR(T(call("llHMAC", 3, S("key"), S("The quick brown fox jumps over the lazy dog"), S("md5"))),
              "gAcHE0Y+d0m5DC3CSRHidQ==");
    CHECK_STR(T(call("llHMAC", 3, S("key"), S("The quick brown fox jumps over the lazy dog"), S("sha512"))),
              "tCrwkFe6weLUFwjkipAuCbX/fxKrQopP6GZTxz3SSPuC+UilSfe3kaW0GRXuTR7Dk1NX5OIxclDQNyr6Lr7rOg==");
    char longkey[201];
    memset(longkey, 'k', 200);
    longkey[200] = 0;
    CHECK_STR(T(call("llHMAC", 3, S(longkey), S("msg"), S("sha1"))), "suZPto5wlkY6nSN0n5BnmAn9uPo=");
    CHECK_STR(T(call("llHMAC", 3, S("k"), S("m"), S("crc32"))), "");
    CHECK_STR(T(call("llComputeHash", 2, S("Hello, Avatar!"), S("md5_sha1"))),
              "6835e66e45dab9961a41c2fe64ac1d6a2e73318e547af1b28cc0c96f95ddc9b1ee906b8d");
    CHECK_STR(T(call("llComputeHash", 2, S("Hello, Avatar!"), S("sha512"))),
              "696cba0b626504df843ac601a953c81e3629ba3d3de6051f700b5a455fcc86681eed5195d398184a0fe26a1d72c7c8c9377c50e7720a34367916ff726bb5ab28");
    CHECK_STR(T(call("llComputeHash", 2, S("Hello, Avatar!"), S("sha256"))),
              "3a9f9d2e4360319a62139d19bd425c16fb8439b832d74d5221ca75b54c35b4f2");
    CHECK_STR(T(call("llComputeHash", 2, S("x"), S("SHA256"))), "");
    /* llHash: SDBM over code points (the wiki's specification) */
    CHECK_INT(call("llHash", 1, S("")).u.i, 0);
    CHECK_INT(call("llHash", 1, S("a")).u.i, 97);
    CHECK_INT(call("llHash", 1, S("ab")).u.i, 6363201);
    CHECK_INT(call("llHash", 1, S("Hello, Avatar! \xc3\xa9\xf0\x9f\x98\x80")).u.i, 785526197);
    /* llGenerateKey: valid, version 4, distinct, reproducible */
    lsl_lib_state a, b;
    lsl_lib_state_init(&a, 7);
    lsl_lib_state_init(&b, 7);
    lsl_lib_state *saved = T_ctx.state;
    T_ctx.state = &a;
    lsl_value k1 = call("llGenerateKey", 0), k2 = call("llGenerateKey", 0);
    T_ctx.state = &b;
    lsl_value k3 = call("llGenerateKey", 0);
    T_ctx.state = saved;
    CHECK(k1.type == LSL_TYPE_KEY && lsl_value_truthy(&k1));
    CHECK(lsl_str_data(&k1)[14] == '4');
    CHECK(!lsl_value_equal(&k1, &k2));
    CHECK(lsl_value_equal(&k1, &k3));
    flush();
}

static void test_json_functions(void)
{
    lsl_value arr = C("JSON_ARRAY"), obj = C("JSON_OBJECT");
    /* the wiki's llList2Json examples */
    CHECK_STR(T(call("llList2Json", 2, arr, L(1, S("89556747-24cb-43ed-920b-47caed15465f")))),
              "[\"89556747-24cb-43ed-920b-47caed15465f\"]");
    CHECK_STR(T(call("llList2Json", 2, obj, L(6, S("pi"), F(3.14f), S("set"), S("[1,2,3]"), S("status"), S("ok")))),
              "{\"pi\":3.140000,\"set\":[1,2,3],\"status\":\"ok\"}");
    CHECK_STR(T(call("llList2Json", 2, arr, L(4, I(0), F(3.14f), S("[1,2,3]"), S("{}")))),
              "[0,3.140000,[1,2,3],{}]");
    CHECK_STR(T(call("llList2Json", 2, arr, L(4, S("5"), S(" padded "), C("JSON_TRUE"), S("null")))),
              "[\"5\",\"padded\",true,null]");
    CHECK_STR(T(call("llList2Json", 2, arr, L(2, V(1, 2, 3), S("\"q\"")))), "[\"<1.000000, 2.000000, 3.000000>\",\"q\"]");
    CHECK(strcmp(T(call("llList2Json", 2, obj, L(1, S("odd")))), "\xef\xb7\x90") == 0);
    CHECK(strcmp(T(call("llList2Json", 2, obj, L(2, I(1), I(2)))), "\xef\xb7\x90") == 0);
    CHECK(strcmp(T(call("llList2Json", 2, S("bogus"), L(0))), "\xef\xb7\x90") == 0);
    /* the wiki: llJson2List(llList2Json(JSON_ARRAY, ["bacon","true","false","null"])) */
    lsl_value back = call("llJson2List", 1, call("llList2Json", 2, arr, L(4, S("bacon"), S("true"), S("false"), S("null"))));
    CHECK_INT(lsl_list_len(&back), 4);
    CHECK_STR(J(back), "[\"bacon\",\"\xef\xb7\x96\",\"\xef\xb7\x97\",\"\xef\xb7\x95\"]");
    CHECK_STR(J(call("llJson2List", 1, S("{\"a\":1,\"b\":[1,2],\"c\":2.5}"))), "[\"a\",1,\"b\",\"[1,2]\",\"c\",2.5]");
    CHECK_STR(J(call("llJson2List", 1, S(""))), "[]");
    CHECK_STR(J(call("llJson2List", 1, S("\"x\""))), "[\"x\"]");
    CHECK_STR(J(call("llJson2List", 1, S("[1,"))), "[\"\xef\xb7\x90\"]");
    CHECK_STR(J(call("llJson2List", 1, S("[\"a\\u0000b\"]"))), "[\"\xef\xb7\x90\"]");

    lsl_value doc = S("{\"a\":[1,2,{\"b\":\"c\"}],\"n\":null,\"t\":true,\"f\":1.5}");
    CHECK_STR(T(call("llJsonGetValue", 2, doc, L(3, S("a"), I(2), S("b")))), "c");
    CHECK_STR(T(call("llJsonGetValue", 2, doc, L(2, S("a"), I(0)))), "1");
    CHECK_STR(T(call("llJsonGetValue", 2, doc, L(1, S("f")))), "1.5");
    CHECK_STR(T(call("llJsonGetValue", 2, doc, L(2, S("a"), I(2)))), "{\"b\":\"c\"}");
    CHECK_STR(T(call("llJsonGetValue", 2, doc, L(1, S("n")))), "\xef\xb7\x95");
    CHECK_STR(T(call("llJsonGetValue", 2, doc, L(1, S("t")))), "\xef\xb7\x96");
    CHECK_STR(T(call("llJsonGetValue", 2, doc, L(1, S("zz")))), "\xef\xb7\x90");
    CHECK_STR(T(call("llJsonGetValue", 2, doc, L(2, S("a"), I(9)))), "\xef\xb7\x90");
    CHECK_STR(T(call("llJsonGetValue", 2, doc, L(2, S("a"), S("1")))), "2"); /* digits index arrays */
    CHECK_STR(T(call("llJsonGetValue", 2, doc, L(2, S("a"), S("x")))), "\xef\xb7\x90");
    CHECK_STR(T(call("llJsonGetValue", 2, S("{\"0\":5}"), L(1, I(0)))), "\xef\xb7\x90");
    CHECK_STR(T(call("llJsonGetValue", 2, S("not json"), L(0))), "\xef\xb7\x90");
    CHECK_STR(T(call("llJsonValueType", 2, doc, L(1, S("a")))), "\xef\xb7\x92");
    CHECK_STR(T(call("llJsonValueType", 2, doc, L(0))), "\xef\xb7\x91");
    CHECK_STR(T(call("llJsonValueType", 2, doc, L(1, S("f")))), "\xef\xb7\x93");
    CHECK_STR(T(call("llJsonValueType", 2, doc, L(3, S("a"), I(2), S("b")))), "\xef\xb7\x94");
    CHECK_STR(T(call("llJsonValueType", 2, doc, L(1, S("n")))), "\xef\xb7\x95");
    CHECK_STR(T(call("llJsonValueType", 2, doc, L(1, S("x")))), "\xef\xb7\x90");

    CHECK_STR(T(call("llJsonSetValue", 3, S("{}"), L(1, S("a")), S("1"))), "{\"a\":1}");
    CHECK_STR(T(call("llJsonSetValue", 3, S("{}"), L(1, S("a")), S("word"))), "{\"a\":\"word\"}");
    CHECK_STR(T(call("llJsonSetValue", 3, S("[1,2]"), L(1, C("JSON_APPEND")), S("3"))), "[1,2,3]");
    CHECK_STR(T(call("llJsonSetValue", 3, S("[1,2]"), L(1, I(2)), S("3"))), "[1,2,3]");
    CHECK_STR(T(call("llJsonSetValue", 3, S("[1,2]"), L(1, I(0)), S("[9]"))), "[[9],2]");
    CHECK_STR(T(call("llJsonSetValue", 3, S("[1,2]"), L(1, I(5)), S("x"))), "\xef\xb7\x90");
    CHECK_STR(T(call("llJsonSetValue", 3, S("{\"a\":1,\"b\":2}"), L(1, S("a")), C("JSON_DELETE"))), "{\"b\":2}");
    CHECK_STR(T(call("llJsonSetValue", 3, S("[1,2,3]"), L(1, I(1)), C("JSON_DELETE"))), "[1,3]");
    CHECK_STR(T(call("llJsonSetValue", 3, S(""), L(2, S("a"), I(0)), S("x"))), "{\"a\":[\"x\"]}");
    CHECK_STR(T(call("llJsonSetValue", 3, S("{\"a\":{\"b\":1}}"), L(2, S("a"), S("c")), C("JSON_TRUE"))),
              "{\"a\":{\"b\":1,\"c\":true}}");
    CHECK_STR(T(call("llJsonSetValue", 3, S("{bad"), L(1, S("a")), S("1"))), "\xef\xb7\x90");
    CHECK_STR(T(call("llJsonSetValue", 3, S("{\"x\":1.5,\"z\":1e3}"), L(1, S("y")), S("2.25"))), "{\"x\":1.5,\"z\":1000.0,\"y\":2.25}");
    CHECK_STR(T(call("llList2Json", 2, arr, L(3, S("a/b"), F(0.1f), V(123456.789f, 0, 0)))),
              "[\"a\\/b\",0.100000,\"<123456.789062, 0.000000, 0.000000>\"]");
    flush();
}

static void test_memory_faults(void)
{
    /* library results are charged to the script's heap; exceeding it is a
     * Stack-Heap Collision fault, with nothing leaked */
    lsl_heap small;
    lsl_heap_init(&small, 2048);
    lsl_call_ctx ctx = {&small, &T_state, &T_err};
    lsl_value items[40], list, ret;
    for (int i = 0; i < 40; i++)
        items[i] = lsl_int(i * 1000);
    CHECK_INT(lsl_list_new(&small, items, 40, &list, &T_err), GSVM_OK);
    CHECK_INT(small.used, 16 + 40 * 16);
    lsl_value sep;
    CHECK_INT(lsl_string_cstr(&small, "--------------------", &sep, &T_err), GSVM_OK);
    lsl_value args[2] = {list, sep};
    const lsl_builtin *dump = lsl_builtin_by_name("llDumpList2String", 17);
    gsvm_error_clear(&T_err);
    CHECK_INT(lsl_builtin_call(dump, &ctx, args, 2, &ret), GSVM_ERR_FAULT);
    CHECK_STR(T_err.message, "Stack-Heap Collision");
    CHECK_INT(ret.type, LSL_TYPE_STRING);
    CHECK(ret.u.s == NULL);
    size_t before = small.used;
    CHECK_INT(lsl_builtin_call(lsl_builtin_by_name("llList2List", 11), &ctx,
                               (lsl_value[]){list, lsl_int(0), lsl_int(-1)}, 3, &ret), GSVM_OK);
    CHECK_INT(small.used, before + 16 + 40 * 16);
    lsl_value_release(&ret);
    CHECK_INT(lsl_builtin_call(lsl_builtin_by_name("llList2Json", 11), &ctx,
                               (lsl_value[]){C("JSON_ARRAY"), list}, 2, &ret), GSVM_OK);
    lsl_value_release(&ret);
    /* a replacement that would outgrow the heap is refused before it is built */
    char big[1001], as[101];
    memset(big, 'b', 1000);
    big[1000] = 0;
    memset(as, 'a', 100);
    as[100] = 0;
    lsl_value_release(&sep);
    lsl_heap mid;
    lsl_heap_init(&mid, 8192);
    lsl_call_ctx mctx = {&mid, &T_state, &T_err};
    lsl_value src, pat, rep;
    CHECK_INT(lsl_string_cstr(&mid, as, &src, &T_err), GSVM_OK);
    CHECK_INT(lsl_string_cstr(&mid, "a", &pat, &T_err), GSVM_OK);
    CHECK_INT(lsl_string_cstr(&mid, big, &rep, &T_err), GSVM_OK);
    before = mid.used;
    gsvm_error_clear(&T_err);
    CHECK_INT(lsl_builtin_call(lsl_builtin_by_name("llReplaceSubString", 18), &mctx,
                               (lsl_value[]){src, pat, rep, lsl_int(0)}, 4, &ret), GSVM_ERR_FAULT);
    CHECK_STR(T_err.message, "Stack-Heap Collision");
    CHECK_INT(mid.used, before);
    /* replacing just one still fits */
    CHECK_INT(lsl_builtin_call(lsl_builtin_by_name("llReplaceSubString", 18), &mctx,
                               (lsl_value[]){src, pat, rep, lsl_int(1)}, 4, &ret), GSVM_OK);
    CHECK_INT(lsl_str_len(&ret), 1099);
    lsl_value_release(&ret);
    /* without a limit the absolute bound still holds */
    lsl_call_ctx free_ctx = {NULL, &T_state, &T_err};
    CHECK_INT(lsl_builtin_call(lsl_builtin_by_name("llReplaceSubString", 18), &free_ctx,
                               (lsl_value[]){src, pat, rep, lsl_int(0)}, 4, &ret), GSVM_OK);
    CHECK_INT(lsl_str_len(&ret), 100000);
    lsl_value_release(&ret);
    lsl_value_release(&src);
    lsl_value_release(&pat);
    lsl_value_release(&rep);
    CHECK_INT(mid.used, 0);
    lsl_value_release(&list);
    CHECK_INT(small.used, 0);
    flush();
}

int main(void)
{
    lsl_heap_init(&T_heap, 0);
    lsl_lib_state_init(&T_state, 1);
    test_table();
    test_math();
    test_vectors_rotations();
    test_strings();
    test_lists();
    test_codecs();
    test_json_functions();
    test_memory_faults();
    CHECK_INT(T_heap.used, 0);
    TEST_MAIN_END();
}
