// Calls of another shape beside fib and tak: small helpers called from a
// loop (integer parameters, float parameters, a recursive Euclid of two
// parameters), each returning early on some paths.  The twin of calls.lua.
integer N = 1000000;

integer clamp(integer x, integer lo, integer hi)
{
    if (x < lo)
        return lo;
    if (x > hi)
        return hi;
    return x;
}

float mix(float a, float b, float t)
{
    return a + (b - a) * t;
}

integer gcdr(integer a, integer b)
{
    if (b == 0)
        return a;
    return gcdr(b, a % b);
}

default
{
    state_entry()
    {
        integer total = 0;
        integer i;
        for (i = 0; i < N; ++i)
        {
            total += clamp(i % 300 - 50, 0, 200);
            total += (integer)mix((float)(i % 1000), 500.0, 0.25);
            total += gcdr(i, 360);
        }
        llOwnerSay("calls " + (string)total);
    }
}
