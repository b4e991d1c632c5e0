// Conformance: vectors and rotations — arithmetic, dot (*) and cross (%)
// products, rotating a vector (v * r), the conjugate (v / r), composing
// rotations (left first, then right), components, comparisons, truthiness,
// casts ((string) with 5 decimals) and the rotation library.  Expected
// values are Second Life's (LSL wiki); the script says "PASS <n>" when every
// check holds.
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

vector gV = <1.0, -2.0, 3.5>;
rotation gR = <0.0, 0.0, 0.0, 1.0>;

integer vtruth(vector v)
{
    if (v)
        return 1;
    return 0;
}

integer rtruth(rotation r)
{
    if (r)
        return 1;
    return 0;
}

default
{
    state_entry()
    {
        vector a = <1, 2, 3>;
        vector b = <4, 5, 6>;
        checkV("global init", gV, <1.0, -2.0, 3.5>);
        checkI("vector eq", a == <1.0, 2.0, 3.0>, 1);
        checkI("vector ne", a != b, 1);
        checkV("add", a + b, <5, 7, 9>);
        checkV("sub", a - b, <-3, -3, -3>);
        checkV("neg", -a, <-1, -2, -3>);
        checkV("scale", a * 2.0, <2, 4, 6>);
        checkV("scale left", 2.0 * a, <2, 4, 6>);
        checkV("divide", b / 2.0, <2, 2.5, 3>);
        checkF("dot", a * b, 32.0);
        checkV("cross", a % b, <-3, 6, -3>);
        checkV("cross unit", <1, 0, 0> % <0, 1, 0>, <0, 0, 1>);
        checkF("component x", a.x, 1.0);
        checkF("component z", b.z, 6.0);
        vector c;
        checkV("default zero", c, ZERO_VECTOR);
        c.y = 7;
        checkV("component store", c, <0, 7, 0>);
        c.x += 2.5;
        checkF("component +=", c.x, 2.5);
        c += <1, 1, 1>;
        checkV("+=", c, <3.5, 8, 1>);
        c -= <0.5, 0, 1>;
        checkV("-=", c, <3, 8, 0>);
        c *= 2.0;
        checkV("*= float", c, <6, 16, 0>);
        c /= 4.0;
        checkV("/= float", c, <1.5, 4, 0>);
        checkI("vector true", vtruth(<0, 0, 0.5>), 1);
        checkI("vector zero false", vtruth(ZERO_VECTOR), 0);

        // rotations: 90 degrees about Z turns +X into +Y
        rotation z90 = llEuler2Rot(<0, 0, PI_BY_TWO>);
        checkR("llEuler2Rot", z90, <0, 0, 0.70710678, 0.70710678>);
        checkV("rotate", <1, 0, 0> * z90, <0, 1, 0>);
        checkV("rotate y", <0, 1, 0> * z90, <-1, 0, 0>);
        checkV("conjugate", <0, 1, 0> / z90, <1, 0, 0>);
        rotation x90 = llEuler2Rot(<PI_BY_TWO, 0, 0>);
        checkV("rotate about x", <0, 1, 0> * x90, <0, 0, 1>);
        // r1 * r2 turns by r1 first, then by r2
        checkV("compose order", <1, 0, 0> * (z90 * x90), <0, 0, 1>);
        checkV("compose other order", <1, 0, 0> * (x90 * z90), <0, 1, 0>);
        checkV("compose twice", <1, 0, 0> * (z90 * z90), <-1, 0, 0>);
        checkR("rotation divide", z90 / z90, ZERO_ROTATION);
        checkR("rotation add", <1, 2, 3, 4> + <1, 1, 1, 1>, <2, 3, 4, 5>);
        checkR("rotation sub", <1, 2, 3, 4> - <1, 1, 1, 1>, <0, 1, 2, 3>);
        rotation r = z90;
        r *= z90;
        checkV("*= rotation", <1, 0, 0> * r, <-1, 0, 0>);
        vector v = <1, 0, 0>;
        v *= z90;
        checkV("vector *= rotation", v, <0, 1, 0>);
        v /= z90;
        checkV("vector /= rotation", v, <1, 0, 0>);
        checkA("rotation s", z90.s, z90.z);
        checkR("global rotation", gR, ZERO_ROTATION);
        rotation dr;
        checkR("default rotation", dr, <0, 0, 0, 1>);
        checkI("rotation eq", <1, 2, 3, 4> == <1.0, 2.0, 3.0, 4.0>, 1);
        checkI("rotation true", rtruth(z90), 1);
        checkI("ZERO_ROTATION false", rtruth(ZERO_ROTATION), 0);
        checkI("zero quaternion true", rtruth(<0, 0, 0, 0>), 1);

        // casts
        checkS("(string)vector", (string)<1.5, -2, 0.25>, "<1.50000, -2.00000, 0.25000>");
        checkS("(string)rotation", (string)<1, 2, 3, 4>, "<1.00000, 2.00000, 3.00000, 4.00000>");
        checkV("(vector)string", (vector)"<1, 2.5, -3>", <1, 2.5, -3>);
        checkV("(vector)garbage", (vector)"garbage", ZERO_VECTOR);
        checkR("(rotation)string", (rotation)"<1,2,3,4>", <1, 2, 3, 4>);
        checkS("list vector text", llList2String([<1, 2, 3>], 0), "<1.000000, 2.000000, 3.000000>");

        // library
        checkF("llVecMag", llVecMag(<3, 4, 0>), 5.0);
        checkV("llVecNorm", llVecNorm(<0, 3, 4>), <0, 0.6, 0.8>);
        checkF("llVecDist", llVecDist(<1, 1, 1>, <4, 5, 1>), 5.0);
        checkV("llRot2Euler", llRot2Euler(llEuler2Rot(<0.1, 0.2, 0.3>)), <0.1, 0.2, 0.3>);
        checkR("llAxisAngle2Rot", llAxisAngle2Rot(<0, 0, 1>, PI_BY_TWO), z90);
        checkA("llRot2Angle", llRot2Angle(z90), PI_BY_TWO);
        checkV("llRot2Axis", llRot2Axis(z90), <0, 0, 1>);
        checkV("llRot2Fwd", llRot2Fwd(z90), <0, 1, 0>);
        checkV("llRot2Left", llRot2Left(z90), <-1, 0, 0>);
        checkV("llRot2Up", llRot2Up(z90), <0, 0, 1>);
        checkA("llAngleBetween", llAngleBetween(ZERO_ROTATION, z90), PI_BY_TWO);
        checkR("llRotBetween", llRotBetween(<1, 0, 0>, <0, 1, 0>), z90);
        done();
    }
}
