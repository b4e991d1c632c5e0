// An ABI-2 script (it fits the document's slice: integer and string,
// state_entry and touch_start, llOwnerSay): its VM and its queue cross.
integer n;
default {
    state_entry() { llOwnerSay("ready"); }
    touch_start(integer d) {
        n = n + d;
        llOwnerSay("touched " + (string)n);
    }
}
