// Conformance: `x = y % 0` stored straight into a local (one fused
// instruction in ABI 3) still stops the script with a Math Error.
// expect-fault: Math Error
default
{
    state_entry()
    {
        llOwnerSay("before");
        integer y = 10;
        integer x;
        x = y % 0;
        llOwnerSay("after " + (string)x);
    }
}
