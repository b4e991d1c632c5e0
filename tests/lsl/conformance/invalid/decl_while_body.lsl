// expect-error: 4:23: Declaration requires a new scope -- use { and }
default {
    state_entry() {
        while (FALSE) string s;
    }
}
