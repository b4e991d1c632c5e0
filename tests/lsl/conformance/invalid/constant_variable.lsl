// expect-error: 2:7: Syntax error
float PI = 3.0;
default { state_entry() { } }
