// An ABI-2 script that faults when touched (its string doubles past the
// 16 MiB limit): crossed to a region that lacked its program, the fault
// must still name its line:column (the line table travels with the .fpc).
string s = "ab";
default {
    state_entry() { llOwnerSay("ready"); }
    touch_start(integer d) {
        integer i = 0;
        while (i < 30) {
            s = s + s;
            i = i + 1;
        }
        llOwnerSay("never");
    }
}
