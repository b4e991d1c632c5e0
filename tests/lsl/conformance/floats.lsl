// Conformance: floats — 32-bit precision, arithmetic and assignment forms,
// mixed integer/float expressions, comparisons, float <-> string casts with
// Second Life's 6 decimals, and the math library.  Expected values are
// Second Life's (LSL wiki); the script says "PASS <n>" when every check holds.
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

// approximately: relative tolerance 1e-5
checkA(string name, float got, float want)
{
    if (llFabs(got - want) <= 0.00001 * (1.0 + llFabs(want)))
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
    if (llVecDist(got, want) <= 0.00001)
        ++gPass;
    else
        fail(name, (string)got, (string)want);
}

checkR(string name, rotation got, rotation want)
{
    if (llFabs(got.x - want.x) <= 0.00001 && llFabs(got.y - want.y) <= 0.00001
        && llFabs(got.z - want.z) <= 0.00001 && llFabs(got.s - want.s) <= 0.00001)
        ++gPass;
    else
        fail(name, (string)got, (string)want);
}

// a list's types and texts, e.g. [1, "a"] -> "1:1|3:a"
string sig(list l)
{
    string out = "";
    integer i;
    integer n = llGetListLength(l);
    for (i = 0; i < n; ++i)
    {
        if (i)
            out += "|";
        out += (string)llGetListEntryType(l, i) + ":" + llList2String(l, i);
    }
    return out;
}

checkL(string name, list got, list want)
{
    string g = sig(got);
    string w = sig(want);
    if (g == w)
        ++gPass;
    else
        fail(name, "[" + g + "]", "[" + w + "]");
}

done()
{
    if (gFail == 0)
        llOwnerSay("PASS " + (string)gPass);
    else
        llOwnerSay("FAILED " + (string)gFail + " of " + (string)(gPass + gFail));
}
// ---- end of helpers ----

float gF = 1.5;
float gFromInt = 3;
float gNegF = -0.25;

default
{
    state_entry()
    {
        checkF("global init", gF, 1.5);
        checkF("global from integer", gFromInt, 3.0);
        checkF("global negative", gNegF, -0.25);

        // 32-bit precision: 2^24 + 1 is not representable
        float big = 16777216.0;
        float big1 = big + 1.0;
        checkF("2^24 + 1 rounds", big1 - big, 0.0);
        checkF("(float)16777217", (float)16777217, 16777216.0);
        float tenth = 0.1;
        float fifth = 0.2;
        // Mono compares the double sum 0.30000000447 (float32 would round
        // it to 0.3) and the double product 1.0000000298 (float32: 1.0)
        checkI("0.1 + 0.2 == 0.3 with a double temporary", tenth + fifth == 0.3, 0);
        float third = 1.0 / 3.0;
        checkI("1/3*3 with a double temporary", third * 3.0 == 1.0, 0);
        float sum = tenth + fifth;
        checkI("0.1 + 0.2 stored is float32 0.3", sum == 0.3, 1);

        // arithmetic
        checkF("add", 1.5 + 2.25, 3.75);
        checkF("sub", 1.5 - 2.25, -0.75);
        checkF("mul", 1.5 * -4.0, -6.0);
        checkF("div", 7.0 / 2.0, 3.5);
        checkF("neg", -(2.5), -2.5);
        checkF("int + float", 5 + 1.5, 6.5);
        checkF("float + int", 1.5 + 5, 6.5);
        checkF("int / float", 7 / 2.0, 3.5);
        checkF("float / int", 7.0 / 2, 3.5);
        checkI("int / int stays int", 7 / 2, 3);
        checkF("int * float", 3 * 0.5, 1.5);

        // comparisons, also across integer and float
        checkI("lt", 1.5 < 2.5, 1);
        checkI("ge", 1.5 >= 2.5, 0);
        checkI("eq int float", 1 == 1.0, 1);
        checkI("ne int float", 2 != 2.0, 0);
        checkI("lt int float", 1 < 1.5, 1);
        checkI("float truth", 0.0 == 0, 1);

        // assignment forms
        float f = 10.0;
        f += 2.5;
        checkF("+=", f, 12.5);
        f -= 0.5;
        checkF("-=", f, 12.0);
        f *= 0.25;
        checkF("*=", f, 3.0);
        f /= 4.0;
        checkF("/=", f, 0.75);
        f += 1;
        checkF("+= int", f, 1.75);
        f = 3;
        checkF("= int", f, 3.0);
        float g;
        checkF("default zero", g, 0.0);
        float h = 2.5;
        ++h;
        checkF("++ float", h, 3.5);
        h--;
        checkF("-- float", h, 2.5);

        // float -> string: 6 decimals
        checkS("(string)1.0", (string)1.0, "1.000000");
        checkS("(string)0.1", (string)0.1, "0.100000");
        checkS("(string)-1.5", (string)-1.5, "-1.500000");
        checkS("(string)1/3", (string)(1.0 / 3.0), "0.333333");
        checkS("(string)2/3", (string)(2.0 / 3.0), "0.666667");
        checkS("(string)1e6", (string)1000000.0, "1000000.000000");
        checkS("(string)tiny", (string)0.0000001, "0.000000");
        checkS("(string)0", (string)0.0, "0.000000");
        checkS("(string)int as float", (string)((float)7), "7.000000");

        // string -> float
        checkF("(float)decimal", (float)"2.5", 2.5);
        checkF("(float)trailing text", (float)"2.5xyz", 2.5);
        checkF("(float)leading dot", (float)".5", 0.5);
        checkF("(float)exponent", (float)"1e3", 1000.0);
        checkF("(float)negative exponent", (float)"-2.5e-1", -0.25);
        checkF("(float)integer text", (float)"42", 42.0);
        checkF("(float)text", (float)"abc", 0.0);
        checkF("(float)empty", (float)"", 0.0);
        checkF("(float)leading space", (float)"  1.25", 1.25);

        // float -> integer truncates
        checkI("(integer)2.9", (integer)2.9, 2);
        checkI("(integer)-2.9", (integer)-2.9, -2);
        checkI("(integer)0.5", (integer)0.5, 0);

        // math library
        checkF("llFabs", llFabs(-2.5), 2.5);
        checkI("llFloor", llFloor(1.5), 1);
        checkI("llFloor neg", llFloor(-1.5), -2);
        checkI("llCeil", llCeil(1.2), 2);
        checkI("llCeil neg", llCeil(-1.5), -1);
        checkI("llRound half up", llRound(2.5), 3);
        checkI("llRound neg half", llRound(-2.5), -2);
        checkI("llRound down", llRound(2.4), 2);
        checkF("llSqrt", llSqrt(16.0), 4.0);
        checkA("llSqrt 2", llSqrt(2.0), 1.4142136);
        checkF("llPow", llPow(2.0, 10.0), 1024.0);
        checkA("llPow frac", llPow(9.0, 0.5), 3.0);
        checkA("llLog", llLog(1.0), 0.0);
        checkA("llLog e", llLog(2.7182818), 1.0);
        checkA("llLog10", llLog10(1000.0), 3.0);
        checkA("llSin", llSin(PI_BY_TWO), 1.0);
        checkA("llCos", llCos(PI), -1.0);
        checkA("llTan", llTan(PI / 4.0), 1.0);
        checkA("llAsin", llAsin(1.0), PI_BY_TWO);
        checkA("llAcos", llAcos(0.0), PI_BY_TWO);
        checkA("llAtan2", llAtan2(1.0, 1.0), PI / 4.0);
        checkA("llAtan2 quadrant", llAtan2(1.0, -1.0), 3.0 * PI / 4.0);
        checkA("PI", PI, 3.14159265);
        checkA("TWO_PI", TWO_PI, 6.2831853);
        checkA("DEG_TO_RAD", DEG_TO_RAD * 180.0, PI);
        checkA("RAD_TO_DEG", RAD_TO_DEG * PI, 180.0);
        checkA("SQRT2", SQRT2, 1.4142136);
        checkI("llAbs", llAbs(-7), 7);
        checkI("llAbs min", llAbs(0x80000000), 0x80000000);
        checkI("llModPow", llModPow(2, 10, 1000), 24);
        float r = llFrand(10.0);
        checkI("llFrand range", r >= 0.0 && r < 10.0, 1);
        r = llFrand(-2.0);
        checkI("llFrand negative range", r <= 0.0 && r > -2.0, 1);
        done();
    }
}
