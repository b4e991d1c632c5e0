// List building and reading: `l += i * 2 + rep;` then llList2Integer(l, i)
// over it, the loop shape of issue 13; the twin of listbuild.lua.
integer ROUNDS = 4000;
integer N = 2000;

default
{
    state_entry()
    {
        integer total = 0;
        integer rep;
        for (rep = 0; rep < ROUNDS; ++rep)
        {
            list l = [];
            integer i;
            for (i = 0; i < N; ++i)
                l += i * 2 + rep;
            integer s = 0;
            for (i = 0; i < N; ++i)
                s += llList2Integer(l, i);
            total += s % 9973;
        }
        llOwnerSay("listbuild " + (string)total);
    }
}
