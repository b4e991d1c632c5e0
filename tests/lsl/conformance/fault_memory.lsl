// Conformance (fault): a string that keeps doubling exhausts the script's
// 64 KiB and stops it with a "Stack-Heap Collision" (SL: LSL Errors).
// expect-fault: Stack-Heap Collision
default
{
    state_entry()
    {
        string s = "0123456789";
        integer i;
        for (i = 0; i < 30; ++i)
            s += s;
        llOwnerSay("after " + (string)llStringLength(s));
    }
}
