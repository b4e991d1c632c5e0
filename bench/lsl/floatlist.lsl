// List building with floats: `l += i * 0.5;` then llList2Float(l, i) over
// it, a list builder of another element type beside listbuild.lsl (every
// value and sum is exact in float32); the twin of floatlist.lua.
integer ROUNDS = 3000;
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
                l += i * 0.5 + rep;
            float s = 0.0;
            for (i = 0; i < N; ++i)
                s += llList2Float(l, i);
            total += (integer)s % 9973;
        }
        llOwnerSay("floatlist " + (string)total);
    }
}
