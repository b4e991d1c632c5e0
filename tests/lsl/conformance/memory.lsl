// Conformance: memory — llGetUsedMemory grows with live data and
// llGetFreeMemory shrinks, both within the 64 KiB a Mono script has (LSL
// wiki: llGetUsedMemory, llGetFreeMemory, LSL Script Memory).  The script
// says "PASS <n>" when every check holds.
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

list gKeep;

default
{
    state_entry()
    {
        integer used0 = llGetUsedMemory();
        integer free0 = llGetFreeMemory();
        checkI("some memory in use", used0 > 0, 1);
        checkI("within 64 KiB", used0 + free0 <= 65536, 1);
        integer i;
        for (i = 0; i < 200; ++i)
            gKeep += [i];
        string s = "0123456789";
        for (i = 0; i < 8; ++i)
            s += s;
        integer used1 = llGetUsedMemory();
        integer free1 = llGetFreeMemory();
        checkI("a 200-element list and a 2560-character string cost at least 3 KiB", used1 - used0 >= 3072, 1);
        checkI("free memory shrank", free1 < free0, 1);
        checkI("still within 64 KiB", used1 + free1 <= 65536, 1);
        checkI("string kept", llStringLength(s), 2560);
        checkI("list kept", llGetListLength(gKeep), 200);
        done();
    }
}
