// expect-error: 2:9: Name previously declared within scope
integer two;
default { state_entry() { } }
state two { state_entry() { } }
