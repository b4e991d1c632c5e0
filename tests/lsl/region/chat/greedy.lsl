// Opens one listen more than a script may have (65): Too Many Listens.
default
{
    state_entry()
    {
        integer i;
        for (i = 0; i < 66; i++)
        {
            llListen(1000 + i, "", NULL_KEY, "");
            if (i == 64)
                llOwnerSay("65 listens open");
        }
        llOwnerSay("never printed");
    }
}
