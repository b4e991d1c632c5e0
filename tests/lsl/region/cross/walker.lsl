// Ticks every half second; each tick works through a long loop that spans
// several frames, so a crossing finds it in the middle of a handler.
integer ticks = 0;
integer work = 0;

default
{
    state_entry()
    {
        llSetTimerEvent(0.5);
    }

    timer()
    {
        integer i;
        for (i = 0; i < 8000; i++)
            work += i % 7;
        ticks++;
        llOwnerSay("tick " + (string)ticks + " work " + (string)work + " at " + (string)llGetTime());
    }

    touch_start(integer n)
    {
        llOwnerSay("touched by " + llDetectedName(0) + " after " + (string)ticks + " ticks");
    }
}
