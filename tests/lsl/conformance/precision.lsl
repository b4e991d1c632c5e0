// Conformance: Mono's precision.  Second Life (Mono) keeps the float
// temporaries of an expression in double precision and rounds to float32
// only when a value is stored, so (I + D - D) == I holds for I = 16777216
// (2^24 + 5 is not a float32, it is a double).  A value is rounded when
// it is stored: a variable, a parameter, a return value, a list element, a
// vector's component.  Expected values are Second Life's.
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

float gStored;

integer sameF(float a, float b)
{
    return a == b;
}

float ret(float a, float b)
{
    return a + b;
}

default
{
    state_entry()
    {
        integer I = 16777216;
        float D = 5;
        checkI("temporaries in double", (I + D - D) == I, 1);
        float big = 16777216.0;
        checkI("float temporaries in double", (big + 1.0 - big) == 1.0, 1);
        float t = big + 1.0;
        checkI("a stored value is float32", (t - big) == 0.0, 1);
        checkI("a global is float32", (gStored = big + 1.0) - big == 0.0, 1);
        checkI("a parameter is float32", sameF(big + 1.0, big), 1);
        checkI("a return value is float32", ret(big, 1.0) - big == 0.0, 1);
        checkI("a list element is float32", llList2Float([big + 1.0], 0) - big == 0.0, 1);
        vector v = <big + 1.0, 0.0, 0.0>;
        checkI("a vector component is float32", v.x - big == 0.0, 1);
        checkI("comparisons see the double", big + 1.0 > big, 1);
        checkI("a chain stays double", big + 1.0 + 1.0 - big == 2.0, 1);
        integer k = 3;
        checkI("an integer operand joins exactly", (16777217 + k * 0.0) - big == 1.0, 1);
        float tenth = 0.1;
        checkI("float32 operands widen exactly", tenth * 10.0 == 1.0, 0);
        checkF("and store rounded", tenth * 10.0, 1.0);
        done();
    }
}
