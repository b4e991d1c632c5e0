// Busy forever: the region throttles it (one frame in four), so when it
// prints shows the throttle; crossed, it must stay throttled as it was.
integer spins;

default
{
    state_entry()
    {
        while (TRUE) {
            spins++;
            if (spins % 3000 == 0)
                llOwnerSay("spins " + (string)spins + " at " + (string)llGetTime());
        }
    }
}
