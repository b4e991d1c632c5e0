// Towers of Hanoi, recursively: a void-looking recursive function that
// returns its move count, two calls a level, four parameters (the shape of
// recursive user functions beside fib and tak); the twin of hanoi.lua.
integer hanoi(integer n, integer from, integer to, integer via)
{
    if (n == 0)
        return 0;
    return hanoi(n - 1, from, via, to) + 1 + hanoi(n - 1, via, to, from);
}

default
{
    state_entry()
    {
        integer total = 0;
        integer r;
        for (r = 0; r < 10; ++r)
            total += hanoi(18 + r % 2, 1, 3, 2);
        llOwnerSay("hanoi " + (string)total);
    }
}
