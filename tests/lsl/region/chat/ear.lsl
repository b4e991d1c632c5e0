// Hears channel 7 and says what and from how far.
default
{
    state_entry()
    {
        llListen(7, "", NULL_KEY, "");
    }

    listen(integer channel, string name, key id, string msg)
    {
        llOwnerSay(llGetObjectName() + " heard " + name + " say '" + msg + "'");
    }
}
