// Answers touches: each handler names its own toucher, even when several
// touches wait in the queue at once.
default
{
    touch_start(integer n)
    {
        llOwnerSay("pressed by " + llDetectedName(0) + " " + (string)llDetectedKey(0)
                   + " on link " + (string)llDetectedLinkNumber(0));
    }

    touch_end(integer n)
    {
        llOwnerSay("released by " + llDetectedName(0));
    }
}
