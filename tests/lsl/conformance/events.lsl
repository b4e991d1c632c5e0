// Conformance: time and events — llSleep moving script time, llGetTime /
// llResetTime / llGetAndResetTime, a repeating timer (llSetTimerEvent) and
// stopping it, listens (llListen handles, llListenControl, llListenRemove of
// unknown handles), listen and touch events with their arguments, and the
// memory functions.  Driven by events.events.jsonl: simulated time, a chat
// line, a touch.  Expected behaviour is Second Life's (LSL wiki: llSleep,
// llGetTime, llSetTimerEvent, llListen); times allow a little slack as SL
// does; the script says "PASS <n>" when every check holds.
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

integer gTimers;
integer gH1;
integer gH2;
string gHeard;

default
{
    state_entry()
    {
        checkI("script time starts near 0", llGetTime() < 0.1, 1);
        llSleep(0.25);
        float t = llGetTime();
        checkI("llSleep moves script time", t >= 0.25, 1);
        checkI("llSleep not much longer", t < 0.5, 1);
        t = llGetAndResetTime();
        checkI("llGetAndResetTime value", t >= 0.25, 1);
        checkI("llGetAndResetTime resets", llGetTime() < 0.1, 1);
        llSleep(1.0);
        llResetTime();
        checkI("llResetTime", llGetTime() < 0.1, 1);

        gH1 = llListen(7, "", NULL_KEY, "");
        gH2 = llListen(8, "Bob", NULL_KEY, "");
        checkI("listen handle nonzero", gH1 != 0, 1);
        checkI("listen handles distinct", gH1 != gH2, 1);
        llListenControl(gH2, FALSE);
        llListenRemove(123456);
        llListenRemove(gH2);

        integer used = llGetUsedMemory();
        integer free = llGetFreeMemory();
        checkI("used memory positive", used > 0, 1);
        checkI("free memory positive", free > 0, 1);
        checkI("within 64 KiB", used + free <= 65536, 1);

        llSetTimerEvent(1.0);
    }

    timer()
    {
        ++gTimers;
        if (gTimers == 1)
        {
            float t = llGetTime();
            checkI("first timer after 1 s", t >= 1.0 && t < 1.5, 1);
        }
        else if (gTimers == 2)
        {
            float t = llGetTime();
            checkI("second timer after 2 s", t >= 2.0 && t < 2.5, 1);
            llSetTimerEvent(0.0);
        }
        else
        {
            fail("timer", "a timer event after llSetTimerEvent(0.0)", "none");
        }
    }

    listen(integer channel, string name, key id, string message)
    {
        gHeard = (string)channel + "|" + name + "|" + (string)id + "|" + message;
        checkI("listen channel", channel, 7);
        checkS("listen name", name, "Bob");
        checkS("listen id", (string)id, "a2e76fcd-9360-4f6d-a924-938f923df11d");
        checkS("listen message", message, "hello there");
    }

    touch_start(integer n)
    {
        checkI("touch count", n, 2);
        checkI("two timer events", gTimers, 2);
        checkS("heard", gHeard, "7|Bob|a2e76fcd-9360-4f6d-a924-938f923df11d|hello there");
        float t = llGetTime();
        checkI("script time at the touch", t >= 12.0 && t < 12.5, 1);
        done();
    }
}
