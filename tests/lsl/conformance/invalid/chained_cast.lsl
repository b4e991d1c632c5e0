// expect-error: 4:28: Syntax error
default {
    state_entry() {
        string s = (string)(integer)"5";
    }
}
