// List and string work of another shape beside lists, strings and
// listbuild: a list of short strings built with `+= [...]`, joined with
// llDumpList2String, searched element by element with llList2String and
// split again with llParseString2List.  The twin of wordlist.lua.
integer ROUNDS = 1500;
integer N = 400;

default
{
    state_entry()
    {
        integer total = 0;
        integer r;
        for (r = 0; r < ROUNDS; ++r)
        {
            list words = [];
            integer i;
            for (i = 0; i < N; ++i)
                words += ["w" + (string)((i * 31 + r) % 97)];
            string joined = llDumpList2String(words, ",");
            total += llStringLength(joined);
            integer hits = 0;
            for (i = 0; i < N; ++i)
                if (llList2String(words, i) == "w7")
                    ++hits;
            total += hits;
            list parts = llParseString2List(joined, [","], []);
            total += llGetListLength(parts) + llStringLength(llList2String(parts, -1));
        }
        llOwnerSay("wordlist " + (string)total);
    }
}
