// Takeuchi's function: deep recursion with three parameters and a call in
// every argument (call frames, not arithmetic); the twin of tak.lua.
integer tak(integer x, integer y, integer z)
{
    if (y >= x)
        return z;
    return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y));
}

default
{
    state_entry()
    {
        integer total = 0;
        integer r;
        for (r = 0; r < 12; ++r)
            total += tak(22 + r % 2, 16, 8);
        llOwnerSay("tak " + (string)total);
    }
}
