// Conformance (fault): the value of `integer *= float` (a float where the
// integer variable is declared) is code Mono's JIT refuses: the handler
// stops with a run-time error before it does anything (the statement form
// `a *= 7.0;` alone stores the truncation, see operators.lsl).
// expect-fault: Invalid IL code
default
{
    state_entry()
    {
        llOwnerSay("after entering the handler");
        integer a = 1;
        float t = a *= 7.0;
        llOwnerSay("after " + (string)t);
    }
}
