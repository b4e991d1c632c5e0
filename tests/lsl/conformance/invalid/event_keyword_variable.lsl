// expect-error: 5:17: Syntax error
// `event` is a keyword of Second Life's lexer (no rule uses it): no name.
default {
    state_entry() {
        integer event = 1;
    }
}
