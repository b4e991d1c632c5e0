// Sieve of Eratosthenes below LIMIT over a bit set of 32-bit words kept in a
// list (LSL has no arrays), ROUNDS times; prints the prime count and the sum
// of the primes of the last round.  The twin of sieve.lua.
integer ROUNDS = 2000;
integer LIMIT = 2048;

default
{
    state_entry()
    {
        integer words = LIMIT / 32;
        integer count = 0;
        integer total = 0;
        integer r;
        for (r = 0; r < ROUNDS; ++r)
        {
            list bits = [];
            integer w;
            for (w = 0; w < words; ++w)
                bits += [0];
            count = 0;
            total = 0;
            integer p;
            for (p = 2; p < LIMIT; ++p)
            {
                if ((llList2Integer(bits, p / 32) & (1 << (p % 32))) == 0)
                {
                    ++count;
                    total += p;
                    integer m = p * p;
                    while (m < LIMIT)
                    {
                        integer mw = m / 32;
                        bits = llListReplaceList(bits, [llList2Integer(bits, mw) | (1 << (m % 32))], mw, mw);
                        m += p;
                    }
                }
            }
        }
        llOwnerSay("sieve " + (string)count + " " + (string)total);
    }
}
