// A bell listening on channel 5; it reports where it is and what it heard.
default
{
    state_entry()
    {
        llListen(5, "", NULL_KEY, "");
    }

    listen(integer channel, string name, key id, string msg)
    {
        llOwnerSay(llGetObjectName() + " at " + (string)llGetPos() + " heard " + name + ": " + msg);
    }
}
