// expect-error: 4:46: Syntax error
// LSL reads a component (.x .y .z .s) of a variable only: a vector literal
// or a call has none (the grammar has no rule for it).
default { state_entry() { float f = <1, 2, 3>.z; llOwnerSay((string)f); } }
