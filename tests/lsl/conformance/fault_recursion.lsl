// Conformance (fault): unbounded recursion runs the stack into the heap:
// "Stack-Heap Collision" (SL: LSL Errors), not a crash of the host.
// expect-fault: Stack-Heap Collision
integer down(integer n)
{
    return down(n + 1) + 1;
}

default
{
    state_entry()
    {
        llOwnerSay("before");
        integer x = down(0);
        llOwnerSay("after " + (string)x);
    }
}
