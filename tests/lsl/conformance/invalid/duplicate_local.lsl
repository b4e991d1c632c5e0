// expect-error: 5:17: Name previously declared within scope
default {
    state_entry() {
        integer x;
        integer x;
    }
}
