// expect-error: 2:8: Syntax error
string print;
default { state_entry() { } }
