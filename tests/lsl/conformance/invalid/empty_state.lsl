// expect-error: 2:11: Syntax error
default { }
