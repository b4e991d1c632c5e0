// The door: a touch opens it, tells the rest of the link set and rings the bell.
integer opened = 0;

default
{
    touch_start(integer n)
    {
        opened++;
        llOwnerSay("opened by " + llDetectedName(0) + " (" + (string)opened + ")");
        llMessageLinked(LINK_SET, opened, "open", llDetectedKey(0));
        llSay(5, "ding " + (string)opened);
    }
}
