// String building: a string of N numbers and separators built by
// concatenation, then measured, searched and cut, ROUNDS times; the twin of
// strings.lua.
integer ROUNDS = 1800;
integer N = 600;

default
{
    state_entry()
    {
        integer total = 0;
        integer r;
        for (r = 1; r <= ROUNDS; ++r)
        {
            string s = "";
            integer i;
            for (i = 0; i < N; ++i)
                s += (string)((i * 7 + r) % 1000) + ";";
            total += llStringLength(s);
            total += llSubStringIndex(s, "99");
            string cut = llGetSubString(s, 100, 199);
            total += llStringLength(cut) + (integer)llGetSubString(s, 0, 1);
            integer words = 0;
            for (i = 0; i < 200; ++i)
                if (llGetSubString(s, i, i) == ";")
                    ++words;
            total += words;
        }
        llOwnerSay("strings " + (string)total);
    }
}
