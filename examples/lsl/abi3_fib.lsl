// Recursive Fibonacci: user functions, recursion, typed integer opcodes and
// the fused compare-and-branch / local-minus-constant instructions of ABI 3.
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
        llOwnerSay("fib(20) = " + (string)fib(20));
    }
}
