// expect-error: 5:56: Type mismatch
// Second Life adds only a string to a string: a key must be cast first.
default {
    state_entry() {
        llOwnerSay("key=" + (string)llGetKey() + " k=" + llGetKey());
    }
}
