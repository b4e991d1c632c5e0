default {
    state_entry() {
        integer n = "five";
    }
}
