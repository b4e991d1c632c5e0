// Conformance: evaluation order in a script that fits ABI 2's slice
// (integer and string, llOwnerSay, one state, no functions).  Second Life
// evaluates an operator's operands right to left, so `(string)(++a) + " " +
// (string)(++a)` is "2 1"; ABI 2's opcodes take operands left to right, so
// the compiler must pick ABI 3 for such a script (it never changes meaning
// with the ABI).  Checks are written out (no helper functions, which ABI 2
// lacks): each FAIL line names one, the last line is "PASS 0".
integer a;
default
{
    state_entry()
    {
        string got = (string)(++a) + " " + (string)(++a);
        if (got != "2 1")
            llOwnerSay("FAIL string operands right to left: got " + got + " want 2 1");
        a = 1;
        integer n = a * 10 + (a = 5);
        if (n != 55)
            llOwnerSay("FAIL integer operands right to left: got " + (string)n + " want 55");
        llOwnerSay("PASS 0");
    }
}
