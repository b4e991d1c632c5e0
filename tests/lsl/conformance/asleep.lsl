// Conformance: a run that ends while the script sleeps says so, with the
// time the script would wake at (run.sh requires the line named by
// "expect-asleep"): here the handler sleeps 2.5 s after its checks, and no
// event follows, so the run ends at 0 ms with the script asleep until 2500.
// expect-asleep: "now_ms":0,"wake_ms":2500
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
        checkI("llGetTime before the sleep", (integer)llGetTime(), 0);
        done();
        llSleep(2.5);
        llOwnerSay("after the sleep: not reached in this run");
    }
}
