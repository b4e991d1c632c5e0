// expect-error: 4:13: Syntax error
// Only a number takes a minus in a global's initializer (not a variable).
integer a = 1;
integer b = -a;
default { state_entry() { } }
