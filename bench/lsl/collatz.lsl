// An integer loop of another shape beside primes and gcd: bit tests and
// shifts in a do-while whose bound is data (`n & 1`, `n >> 1`, `3 * n + 1`),
// below 100000 so no value passes 2^31, ROUNDS times.  The twin of
// collatz.lua.
integer ROUNDS = 3;
integer N = 100000;

default
{
    state_entry()
    {
        integer total = 0;
        integer longest = 0;
        integer r;
        integer i;
        for (r = 0; r < ROUNDS; ++r)
        for (i = 1; i < N; ++i)
        {
            integer n = i;
            integer steps = 0;
            do
            {
                if (n & 1)
                    n = 3 * n + 1;
                else
                    n = n >> 1;
                ++steps;
            }
            while (n > 1);
            total += steps;
            if (steps > longest)
                longest = steps;
        }
        llOwnerSay("collatz " + (string)total + " " + (string)longest);
    }
}
