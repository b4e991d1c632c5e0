// A handler that never ends: the budget, not the script, decides when it stops.
integer ticks;

default
{
    state_entry()
    {
        while (TRUE)
        {
            ticks++;
            if (ticks == 100)
                llOwnerSay("still going after " + (string)ticks + " rounds");
        }
    }
}
