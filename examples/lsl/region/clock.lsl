// A clock: three ticks a second apart on the region's timer, then silence.
integer ticks = 0;

default
{
    state_entry()
    {
        llSetTimerEvent(1.0);
    }

    timer()
    {
        ticks++;
        llOwnerSay("tick " + (string)ticks + " at " + (string)llGetTime());
        if (ticks == 3)
            llSetTimerEvent(0.0);
    }
}
