// Each touch takes several frames to handle before it greets the toucher
// (the first is still running at 100 ms, with room for a VM that fuses more
// of the loop into fewer instructions): a crossing finds one touch being handled and another queued, and both
// must answer llDetected* in B for the avatar who touched in A.
integer n;

default
{
    touch_start(integer count)
    {
        integer i;
        integer w;
        for (i = 0; i < 20000; i++)
            w += i % 7;
        n++;
        llOwnerSay("touch " + (string)n + " by " + llDetectedName(0) + " " + (string)llDetectedKey(0) +
                   " at " + (string)llDetectedPos(0) + " link " + (string)llDetectedLinkNumber(0) +
                   " w " + (string)w);
    }
}
