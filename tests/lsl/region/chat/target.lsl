// Announces its key region-wide, then hears channel 7 like an ear.
default
{
    state_entry()
    {
        llListen(7, "", NULL_KEY, "");
        llRegionSay(9, (string)llGetKey());
    }

    listen(integer channel, string name, key id, string msg)
    {
        llOwnerSay("target heard '" + msg + "'");
    }
}
