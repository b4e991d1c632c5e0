// expect-error: 4:19: Declaration requires a new scope -- use { and }
default {
    state_entry() {
        if (TRUE) integer x = 2;
    }
}
