// Naive recursive Fibonacci; the twin of fib.lua.
integer fib(integer n)
{
    if (n < 2)
        return n;
    return fib(n - 1) + fib(n - 2);
}

default
{
    state_entry()
    {
        llOwnerSay("fib " + (string)fib(34));
    }
}
