// expect-error: 2:8: Name previously declared within scope
string llGetKey = "x";
default { state_entry() { } }
