// expect-error: 3:13: Syntax error
// A global's initializer is a literal, a constant or an earlier global: no cast.
integer g = (integer)"5";
default { state_entry() { } }
