// Conformance (fault): a script may have 65 listens open; the 66th is the
// run-time error "Too Many Listens" (SL wiki: llListen).
// expect-fault: Too Many Listens
default
{
    state_entry()
    {
        integer i;
        for (i = 1; i <= 65; ++i)
            llListen(i, "", NULL_KEY, "");
        llOwnerSay("65 open");
        llListen(1000, "", NULL_KEY, "");
        llOwnerSay("after");
    }
}
