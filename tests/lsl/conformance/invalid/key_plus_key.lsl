// expect-error: 4:34: Type mismatch
key k;
default {
    state_entry() { string s = k + k; }
}
