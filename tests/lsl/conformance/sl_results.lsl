// Conformance: results Second Life gives that gsvm once did not — the
// string-to-float cast keeps subnormals ((float)"1.4e-45" is the smallest
// one, as the literal is), and float-to-string conversions print negative
// zero as "0.000000" (also inside vectors, rotations, list dumps,
// llList2CSV and llList2Json).
// Expected values are Second Life's; the script says "PASS <n>" when every
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

default
{
    state_entry()
    {
        float tiny = (float)"1.4e-45";
        checkI("subnormal from a string is not zero", tiny != 0.0, 1);
        checkF("subnormal from a string equals the literal", tiny, 1.4e-45);
        checkF("subnormal 1e-40 from a string", (float)"1e-40", 1e-40);
        checkI("subnormal in a vector string", (<1e-40, 0, 0> == (vector)"<1e-40, 0, 0>"), 1);
        float nz = -0.0;
        checkS("negative zero to string", (string)nz, "0.000000");
        checkS("negative zero in a vector", (string)<-0.0, 0.0, -0.0>, "<0.00000, 0.00000, 0.00000>");
        checkS("negative zero in a rotation", (string)<-0.0, 0.0, -0.0, 1.0>, "<0.00000, 0.00000, 0.00000, 1.00000>");
        checkS("negative zero in a list dump", llDumpList2String([-0.0, <-0.0, 0.0, -0.0>], " "),
            "0.000000 <0.000000, 0.000000, 0.000000>");
        checkS("negative zero by llList2String", llList2String([-0.0], 0), "0.000000");
        checkS("a product that is negative zero", (string)(0.0 * -1.0), "0.000000");
        checkS("small negative rounds to unsigned zero", (string)(-0.0000001), "0.000000");
        checkS("negative zero by llList2CSV", llList2CSV([-0.0, <-0.0, 0.0, -0.0>, -0.0000001]),
            "0.000000, <0.000000, 0.000000, 0.000000>, 0.000000");
        checkS("negative zero by llList2Json", llList2Json(JSON_ARRAY, [-0.0, <-0.0, 0.0, 0.0>]),
            "[0.000000,\"<0.000000, 0.000000, 0.000000>\"]");
        done();
    }
}
