// expect-error: 3:5: Syntax error
default {
    state_entry(integer n) { }
}
