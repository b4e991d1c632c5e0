// Conformance: `if (y % 0)` on a local (one fused test-and-branch
// instruction in ABI 3, JzIOpLK) still stops the script with a Math Error.
// expect-fault: Math Error
default
{
    state_entry()
    {
        llOwnerSay("before");
        integer y = 10;
        integer x = 1;
        if (y % 0)
            x = 2;
        llOwnerSay("after " + (string)x);
    }
}
