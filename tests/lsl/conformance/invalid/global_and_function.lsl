// expect-error: 3:1: Name previously declared within scope
integer go;
go() { }
default { state_entry() { } }
