// expect-error: 3:12: Syntax error
default { state_entry() { state two; } }
state two {}
