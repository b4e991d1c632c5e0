// Conformance: time and events — llGetTime / llResetTime /
// llGetAndResetTime on the simulation clock, llSleep moving script time, a
// repeating timer (llSetTimerEvent) and stopping it, listens with channel,
// name, key (any case; a key filter that is no valid key filters nothing)
// and message filters, llListenControl and
// llListenRemove (also of unknown handles), listen and touch events with
// their arguments, and the memory functions.  Driven by
// events.events.jsonl: simulated time, chat lines (only those the open
// listens accept may arrive), a touch.  Times are measured between events
// so that they do not depend on how a runner overlaps a sleep with the
// timeline.  Expected behaviour is Second Life's (LSL wiki: llSleep,
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
string gHeard;
key gFirstId;

default
{
    state_entry()
    {
        checkI("script time starts near 0", llGetTime() < 0.1, 1);

        integer h1 = llListen(7, "", NULL_KEY, "");
        integer h2 = llListen(8, "Bob", NULL_KEY, "");
        integer h3 = llListen(9, "Bob", NULL_KEY, "");
        integer h4 = llListen(10, "", "a2e76fcd-9360-4f6d-a924-938f923df11d", "");
        integer h5 = llListen(11, "", NULL_KEY, "open");
        integer h6 = llListen(12, "", "", "exact");
        // a key filter that is not a valid key filters nothing (SL wiki)
        integer h7 = llListen(13, "", "not a key", "");
        checkI("listen handle nonzero", h1 != 0, 1);
        checkI("listen handles distinct", h1 != h2 && h2 != h3 && h3 != h4 && h4 != h5 && h5 != h6 && h6 != h7, 1);
        llListenRemove(h2);
        llListenRemove(123456);
        llListenControl(h5, FALSE);
        llListenControl(654321, TRUE);

        integer used = llGetUsedMemory();
        integer free = llGetFreeMemory();
        checkI("used memory positive", used > 0, 1);
        checkI("free memory positive", free > 0, 1);
        checkI("within 64 KiB", used + free <= 65536, 1);

        llResetTime();
        checkI("llResetTime", llGetTime() < 0.1, 1);
        llSetTimerEvent(1.0);
    }

    timer()
    {
        ++gTimers;
        if (gTimers == 1)
        {
            float t = llGetTime();
            checkI("first timer after 1 s", t >= 1.0 && t < 1.5, 1);
            llSleep(0.25);
            float slept = llGetTime() - t;
            checkI("llSleep moves script time", slept >= 0.25, 1);
            checkI("llSleep not much longer", slept < 0.5, 1);
        }
        else if (gTimers == 2)
        {
            float t = llGetAndResetTime();
            checkI("second timer after 2 s", t >= 2.0 && t < 2.5, 1);
            checkI("llGetAndResetTime resets", llGetTime() < 0.1, 1);
            llSetTimerEvent(0.0);
        }
        else
        {
            fail("timer", "a timer event after llSetTimerEvent(0.0)", "none");
        }
    }

    listen(integer channel, string name, key id, string message)
    {
        if (gHeard == "")
            gFirstId = id;
        gHeard += (string)channel + "|" + name + "|" + message + ";";
    }

    touch_start(integer n)
    {
        checkI("touch count", n, 2);
        checkI("two timer events", gTimers, 2);
        checkS("heard only what the listens accept", gHeard,
            "7|Bob|hello there;9|Bob|x;10|Carl|y;12|Dan|exact;13|Fay|z;");
        checkS("listen id", (string)gFirstId, "a2e76fcd-9360-4f6d-a924-938f923df11d");
        float t = llGetTime();
        checkI("script time since the second timer", t >= 10.0 && t < 10.5, 1);
        done();
    }
}
