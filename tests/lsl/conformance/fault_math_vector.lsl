// Conformance: a vector divided by a zero float is a Math Error (the typed
// vector division faults as the generic operator does).
// expect-fault: Math Error
default
{
    state_entry()
    {
        vector v = <1.0, 2.0, 3.0>;
        float z = 0.0;
        v = v / z;
        llOwnerSay("after " + (string)v);
    }
}
