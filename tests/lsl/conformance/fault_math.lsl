// Conformance (fault): integer division by zero is a run-time "Math Error"
// that stops the script (SL: LSL Errors); nothing after it runs.
// expect-fault: Math Error
integer gZero;

default
{
    state_entry()
    {
        llOwnerSay("before");
        integer x = 10 / gZero;
        llOwnerSay("after " + (string)x);
    }
}
