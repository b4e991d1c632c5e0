// Conformance: the typed vector instructions (vector + - * / with vectors,
// floats and integers), components of locals read and written in their
// slots, constant vectors, and `A || B` conditions that skip a test with
// no side effect.  LSL evaluates both operands of || (right first), so a
// side effect in either must still happen.  Expected values are Second
// Life's; the script says "PASS <n>" when every check holds.
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

checkV(string name, vector got, vector want)
{
    if (llVecDist(got, want) <= 0.00001)
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

vector gV = <1.0, 2.0, 3.0>;
integer gCalls;

integer bump(integer r)
{
    ++gCalls;
    return r;
}

default
{
    state_entry()
    {
        vector a = <1.0, 2.0, 3.0>;
        vector b = <4.0, 5.0, 6.0>;
        float k = 2.0;
        integer n = 3;
        checkV("v + v", a + b, <5.0, 7.0, 9.0>);
        checkV("v - v", a - b, <-3.0, -3.0, -3.0>);
        checkF("v * v (dot)", a * b, 32.0);
        checkV("v * float", a * k, <2.0, 4.0, 6.0>);
        checkV("float * v", k * a, <2.0, 4.0, 6.0>);
        checkV("v * integer", a * n, <3.0, 6.0, 9.0>);
        checkV("integer * v", n * a, <3.0, 6.0, 9.0>);
        checkV("v / float", b / k, <2.0, 2.5, 3.0>);
        checkV("v / integer", b / 2, <2.0, 2.5, 3.0>);
        checkV("v % v (cross)", a % b, <-3.0, 6.0, -3.0>);
        checkV("global v + constant", gV + <0.5, 0.5, 0.5>, <1.5, 2.5, 3.5>);
        checkV("v * 0.1 rounds per component", <1.0, 3.0, 10.0> * 0.1, <0.1, 0.3, 1.0>);
        checkV("integer literal components", <1, 2, 16777217>, <1.0, 2.0, 16777216.0>);
        float d = 5.0;
        checkI("an integer literal beyond 2^24 stays exact", (16777217 + d - d) == 16777217, TRUE);
        a.x = -a.x;
        a.z += 1.5;
        ++a.y;
        checkV("component writes on a local", a, <-1.0, 3.0, 4.5>);
        float got = a.y++;
        checkF("post-increment of a component", got, 3.0);
        checkF("the component after it", a.y, 4.0);
        checkF("a component in an expression", a.x * b.y + b.z * a.z, 22.0);
        gV.y = 7.0;
        checkV("component write on a global", gV, <1.0, 7.0, 3.0>);
        rotation q = <0.0, 0.0, 0.0, 1.0>;
        q.s = 0.5;
        checkF("rotation component", q.s, 0.5);
        integer x = 2;
        integer y = -1;
        integer hits = 0;
        if (x > 1 || y > 0) ++hits;
        if (x > 5 || y < 0) ++hits;
        if (x > 5 || y > 0) ++hits;
        if (x > 5 || y > 0 || x == 2) ++hits;
        if ((x > 5 || y < 0) && x == 2) ++hits;
        if (x == 2 && (x > 5 || y > 0)) ++hits;
        if (b.x > 3.0 || b.y < 0.0) ++hits;
        checkI("|| conditions", hits, 5);
        gCalls = 0;
        if (x > 1 || bump(0)) ++hits;
        checkI("a call right of || runs although the left is true", gCalls, 1);
        if (bump(1) || x > 1) ++hits;
        checkI("a call left of || runs", gCalls, 2);
        if (x > 1 || (y = 7) > 0) ++hits;
        checkI("an assignment right of || happens", y, 7);
        integer i = 0;
        integer j = 0;
        do { ++i; ++j; } while (i < 3 || j < 5);
        checkI("a do-while tested with ||", i * 10 + j, 55);
        i = 0;
        while (i < 2 || i == 4) ++i;
        checkI("a while tested with ||", i, 2);
        done();
    }
}
