// Conformance (fault): a list that keeps growing passes the 64 KiB limit:
// "Stack-Heap Collision" (SL: LSL Errors).
// expect-fault: Stack-Heap Collision
default
{
    state_entry()
    {
        list l = [];
        integer i;
        for (i = 0; i < 100000; ++i)
            l += [i];
        llOwnerSay("after " + (string)llGetListLength(l));
    }
}
