// Listens with filters: by name and message, by the avatar's key, and a
// listen switched off with llListenControl.
default
{
    state_entry()
    {
        llListen(7, "Tower", NULL_KEY, "say");
        llListen(7, "", "7c1e2a44-0000-4000-8000-0000000000b0", "");
        integer h = llListen(7, "", NULL_KEY, "");
        llListenControl(h, FALSE);
    }

    listen(integer channel, string name, key id, string msg)
    {
        llOwnerSay("filters passed " + name + ": " + msg);
    }
}
