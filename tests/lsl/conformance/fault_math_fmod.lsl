// Conformance: LSL's float modulo of a NaN is a Math Error (NaN / 8192.0 is
// DivF's Math Error), also in its one-instruction form FModLK, whose
// division by a power of two is a multiplication.
// expect-fault: Math Error
default
{
    state_entry()
    {
        float x = (float)"nan";
        float y = x - 8192.0 * (integer)(x / 8192.0);
        llOwnerSay("after " + (string)y);
    }
}
