// Prime counting by trial division: the loop shape of issue 13,
// `while (d * d <= n && prime) { if (n % d == 0) ...; ++d; }`; the twin of
// primes.lua (whose `and` stops early where LSL's && evaluates both sides:
// the same result).
integer LIMIT = 1000000;

default
{
    state_entry()
    {
        integer count = 0;
        integer n;
        for (n = 2; n < LIMIT; ++n)
        {
            integer prime = TRUE;
            integer d = 2;
            while (d * d <= n && prime)
            {
                if (n % d == 0)
                    prime = FALSE;
                ++d;
            }
            if (prime)
                ++count;
        }
        llOwnerSay("primes " + (string)count);
    }
}
