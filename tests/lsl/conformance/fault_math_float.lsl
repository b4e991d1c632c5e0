// Conformance (fault): float division by zero is a "Math Error" too.
// expect-fault: Math Error
float gZero;

default
{
    state_entry()
    {
        llOwnerSay("before");
        float x = 1.0 / gZero;
        llOwnerSay("after " + (string)x);
    }
}
