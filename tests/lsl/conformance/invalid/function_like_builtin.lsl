// expect-error: 2:1: Name previously declared within scope
llOwnerSay(string m) { }
default { state_entry() { } }
