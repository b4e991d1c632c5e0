// Conformance: the three-address float and vector instructions of ABI 3
// (FmaLK, FOpLS, TruncF, FModLK, VOpLLS, VOpToL, MulVK) and negative
// literals folded to constants.  Each keeps Mono's precision: an
// expression's temporaries are doubles, rounded to float32 when stored.
// Edge cases: rounding on store, NaN and infinity, -0.0 (its sign seen
// through llAtan2(x, -1.0): -PI for -0.0, PI for 0.0), integer operands.
// Expected values are Second Life's (Mono); "PASS <n>" when all hold.
// ---- check helpers (the same in every conformance script) ----
// Each check call site runs exactly once; run.sh counts the call sites and
// requires the script's last line to be "PASS <that count>".
integer gPass;
integer gFail;

fail(string name, string got, string want)
{
    ++gFail;
    llOwnerSay("FAIL " + name + ": got " + got + " want " + want);
}

checkI(string name, integer got, integer want)
{
    if (got == want)
        ++gPass;
    else
        fail(name, (string)got, (string)want);
}

checkF(string name, float got, float want)
{
    if (got == want)
        ++gPass;
    else
        fail(name, (string)got, (string)want);
}

checkS(string name, string got, string want)
{
    if (got == want)
        ++gPass;
    else
        fail(name, "\"" + got + "\"", "\"" + want + "\"");
}

checkV(string name, vector got, vector want)
{
    if (got == want && (string)got == (string)want)
        ++gPass;
    else
        fail(name, (string)got, (string)want);
}

done()
{
    if (gFail == 0)
        llOwnerSay("PASS " + (string)gPass);
    else
        llOwnerSay("FAILED " + (string)gFail + " of " + (string)(gPass + gFail));
}

default
{
    state_entry()
    {
        float nan = (float)"nan";
        float inf = (float)"inf";
        float big = 16777215.0;           // 2^24 - 1: big * 3.0 needs 26 bits
        float r = -50331640.0;
        float p = 50331640.0;
        integer n = -50331640;
        float y;
        // FmaLK: the product stays a double until the sum is stored
        y = big * 3.0 + r;
        checkF("FmaLK add: the product not rounded", y, 5.0);
        y = big * 3.0 - p;
        checkF("FmaLK sub: the product not rounded", y, 5.0);
        y = big * 3.0 + n;
        checkF("a*k + integer: the integer joins exactly", y, 5.0);
        y = big * 3.0 + 0.0;
        checkF("FmaLK rounds on store", y, 50331644.0);
        y = inf * 2.0 - inf;
        checkS("FmaLK inf - inf is NaN", (string)y, "NaN");
        y = nan * 2.0 + big;
        checkS("FmaLK NaN propagates", (string)y, "NaN");
        float mz = -0.0;
        float nz = -0.0;
        y = mz * 3.0 + nz;
        checkF("FmaLK -0 * k + -0 is -0", llAtan2(y, -1.0), -PI);
        y = mz * 3.0 - nz;
        checkF("FmaLK -0 * k - -0 is +0", llAtan2(y, -1.0), PI);
        // FOpLS: a local OP a computed value, stored to another local
        float t = 16777216.0;
        float one = 1.0;
        y = t + one * one;
        checkF("FOpLS add rounds on store (to even)", y, 16777216.0);
        y = t - one * 0.5;
        checkF("FOpLS sub rounds on store", y, 16777216.0);
        checkI("the double before the store", (t - one * 0.5) < t, TRUE);
        y = t * (one + one);
        checkF("FOpLS mul", y, 33554432.0);
        y = inf - one * inf;
        checkS("FOpLS inf - inf", (string)y, "NaN");
        y = mz - nz * 1.0;
        checkF("FOpLS -0 - -0 is +0", llAtan2(y, -1.0), PI);
        y = mz * (one - one);
        checkF("FOpLS -0 * +0 is -0", llAtan2(y, -1.0), -PI);
        integer k = 3;
        y = t - k * 0.5;
        checkF("FOpLS with an integer operand", y, 16777214.0);
        // TruncF: (integer)x used as a float
        float x = -3.75;
        y = 2.0 * (integer)x;
        checkF("TruncF truncates toward zero", y, -6.0);
        x = 3000000000.0;
        y = 1.0 * (integer)x;
        checkF("TruncF beyond the integers", y, -2147483648.0);
        y = 1.0 * (integer)nan;
        checkF("TruncF of NaN", y, -2147483648.0);
        y = 1.0 * (integer)mz;
        checkF("TruncF of -0 is +0", llAtan2(y, -1.0), PI);
        // FModLK: LSL's float modulo, k a power of two and not
        x = 20000.5;
        y = x - 8192.0 * (integer)(x / 8192.0);
        checkF("FModLK", y, 3616.5);
        x = -20000.5;
        y = x - 8192.0 * (integer)(x / 8192.0);
        checkF("FModLK negative", y, -3616.5);
        x = 10.0;
        y = x - 3.0 * (integer)(x / 3.0);
        checkF("FModLK by 3", y, 1.0);
        x = 0.1;
        y = x - 0.03 * (integer)(x / 0.03);
        checkF("FModLK by 0.03 in doubles", y, 0.0100000035); // float32 steps: 0.0100000054
        x = big;
        y = x - 2.0 * (integer)(x / 2.0);
        checkF("FModLK of 2^24 - 1", y, 1.0);
        x = 16777216.0 * 256.0;
        y = x - 0.5 * (integer)(x / 0.5);
        checkF("FModLK beyond the integers", y, 4294967296.0 + 1073741824.0);
        y = mz - 8192.0 * (integer)(mz / 8192.0);
        checkF("FModLK of -0 is -0", llAtan2(y, -1.0), -PI);
        y = inf - 8192.0 * (integer)(inf / 8192.0);
        checkS("FModLK of inf", (string)y, "Infinity");
        // negative literals
        checkS("-0.0 is a negative zero", (string)llAtan2(-0.0, -1.0), (string)(-PI));
        checkF("-16.0 compared", (float)(-16.0 < x), 1.0);
        checkI("-7 / 2", -7 / 2, -3);
        checkI("-2147483647 - 1", -2147483647 - 1 == (1 << 31), TRUE);
        // vectors on locals: VOpLLS, VOpToL, MulVK
        vector a = <1.0, 2.0, 16777215.0>;
        vector b = <0.5, -0.25, 1.0>;
        vector d = a + b;
        checkV("VOpLLS add rounds per component", d, <1.5, 1.75, 16777216.0>);
        d = a - b;
        checkV("VOpLLS sub", d, <0.5, 2.25, 16777214.0>);
        float dot = a * b;
        checkF("VOpLLS dot", dot, 16777215.0);
        a = a + a;
        checkV("VOpLLS into its own operand", a, <2.0, 4.0, 33554430.0>);
        vector v = <1.0, -2.0, 0.0>;
        v += b * 2.0;
        checkV("VOpToL add", v, <2.0, -2.5, 2.0>);
        v -= b;
        checkV("VOpToL sub", v, <1.5, -2.25, 1.0>);
        v = b * -0.5;
        checkV("MulVK", v, <-0.25, 0.125, -0.5>);
        v = b * 3;
        checkV("MulVK of an integer literal", v, <1.5, -0.75, 3.0>);
        v = <inf, 1.0, 0.0> * 0.0;
        checkS("MulVK inf * 0", (string)v.x, "NaN");
        v = <0.0, 1.0, 1.0> * -0.0;
        checkF("MulVK +0 * -0", llAtan2(v.x, -1.0), -PI);
        done();
    }
}
