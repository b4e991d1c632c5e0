// expect-error: 4:17: Syntax error
default {
    state_entry() {
        integer timer = 1;
    }
}
