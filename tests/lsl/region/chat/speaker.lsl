// Speaks on channel 7 at every range once touched; learns the target's key
// from its announcement on channel 9.  It listens on 7 itself: a prim never
// hears its own chat.
key target;

default
{
    state_entry()
    {
        llListen(9, "", NULL_KEY, "");
        llListen(7, "", NULL_KEY, "");
    }

    listen(integer channel, string name, key id, string msg)
    {
        if (channel == 9)
            target = (key)msg;
        else
            llOwnerSay("the speaker heard: " + msg);
    }

    touch_start(integer n)
    {
        llWhisper(7, "whisper");
        llSay(7, "say");
        llShout(7, "shout");
        llRegionSay(7, "region");
        llRegionSayTo(target, 7, "to the target");
        llRegionSayTo(llDetectedKey(0), 0, "to the toucher");
        llSay(8, "on another channel");
    }
}
