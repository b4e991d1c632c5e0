// Conformance: states — `state X;` ends the running handler at once, runs
// state_exit of the old state and then state_entry of the new one; globals
// persist; the timer keeps running across the change (it fires in the new
// state); the event queue and listens are cleared.  Driven by
// states.events.jsonl (simulated time and a touch).  Expected behaviour is
// Second Life's (LSL wiki: State, llSetTimerEvent, llListen); the script
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

string gLog;
integer gGo = TRUE;
integer gTimers;
integer gListen;

default
{
    state_entry()
    {
        gLog += "E0";
        gListen = llListen(5, "", NULL_KEY, "");
        llSetTimerEvent(0.5);
        if (gGo)
            state two;
        gLog += "Z";
    }

    state_exit()
    {
        gLog += "X0";
    }

    timer()
    {
        gLog += "T0";
    }
}

state two
{
    state_entry()
    {
        gLog += "E2";
        checkS("exit before entry", gLog, "E0X0E2");
        checkI("listen handle given", gListen != 0, 1);
    }

    timer()
    {
        ++gTimers;
        gLog += "T2";
        llSetTimerEvent(0.0);
        state three;
    }

    state_exit()
    {
        gLog += "X2";
    }

    touch_start(integer n)
    {
        gLog += "touch in two";
    }
}

state three
{
    state_entry()
    {
        gLog += "E3";
        checkS("timer fired in the new state", gLog, "E0X0E2T2X2E3");
        checkI("one timer event", gTimers, 1);
    }

    touch_start(integer n)
    {
        checkI("touch count", n, 1);
        checkS("nothing after the timer stopped", gLog, "E0X0E2T2X2E3");
        checkI("globals persist", gTimers, 1);
        done();
    }
}
