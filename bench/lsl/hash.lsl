// An integer hash loop: a polynomial rolling hash kept below a prime, with a
// branch on its low bit; no bit operators and every intermediate below 2^31,
// so Lua 5.4's integers and LuaJIT's doubles agree.  The twin of hash.lua.
integer ROUNDS = 200;
integer N = 20000;

default
{
    state_entry()
    {
        integer total = 0;
        integer r;
        for (r = 0; r < ROUNDS; ++r)
        {
            integer h = r;
            integer i;
            for (i = 0; i < N; ++i)
            {
                h = (h * 31 + i) % 1000003;
                if (h % 2 == 0)
                    h = (h + 1) * 3 % 1000003;
            }
            total = (total + h) % 1000003;
        }
        llOwnerSay("hash " + (string)total);
    }
}
