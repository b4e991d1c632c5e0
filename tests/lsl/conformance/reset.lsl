// Conformance: llResetScript — the script starts over in the default state:
// globals back to their initial values, state_entry runs again, the timer
// and every listen are removed and script time restarts; code after the
// call does not run.  Driven by reset.events.jsonl (touch, time, chat,
// touch).  Expected behaviour is Second Life's (LSL wiki: llResetScript,
// llSetTimerEvent, llListen, llGetTime); the script says "PASS <n>" when
// every check holds.
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

integer gEntries;
integer gTouches;
string gMarker = "initial";

default
{
    state_entry()
    {
        ++gEntries;
    }

    touch_start(integer n)
    {
        ++gTouches;
        if (n == 1)
            state two;
        checkI("state_entry ran once since the reset", gEntries, 1);
        checkI("globals reset", gTouches, 1);
        checkS("initializer applied again", gMarker, "initial");
        float t = llGetTime();
        checkI("script time restarted", t >= 10.0 && t < 10.5, 1);
        done();
    }

    listen(integer channel, string name, key id, string message)
    {
        fail("listen", "an event from a listen made before llResetScript", "none");
    }

    timer()
    {
        fail("timer", "a timer event after llResetScript", "none");
    }
}

state two
{
    state_entry()
    {
        gMarker = "changed";
        llListen(3, "", NULL_KEY, "");
        llSetTimerEvent(2.0);
        llResetScript();
        gMarker = "after the reset";
    }
}
