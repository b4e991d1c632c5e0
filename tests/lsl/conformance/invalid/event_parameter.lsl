// expect-error: 2:12: Syntax error
go(integer touch_start) { }
default { state_entry() { } }
