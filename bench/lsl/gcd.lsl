// Euclid's algorithm over every pair below N, ROUNDS times: a numeric loop
// of another shape (`while (b) { t = a % b; a = b; b = t; }`) beside
// primes.lsl; the twin of gcd.lua.
integer ROUNDS = 30;
integer N = 400;

default
{
    state_entry()
    {
        integer total = 0;
        integer r;
        for (r = 0; r < ROUNDS; ++r)
        {
            integer i;
            for (i = 1; i < N; ++i)
            {
                integer j;
                for (j = 1; j < N; ++j)
                {
                    integer a = i;
                    integer b = j;
                    while (b)
                    {
                        integer t = a % b;
                        a = b;
                        b = t;
                    }
                    total += a;
                }
            }
        }
        llOwnerSay("gcd " + (string)total);
    }
}
