-- multiple assignments whose values sit in temporaries: a call's results
-- stored from the highest register down (not `local p, q = two()`), and a
-- list shorter than its targets (the LOADNIL of the missing value is no
-- value of the source; a constant in the list is LOADKed, not an RK
-- operand).  Stripped too: the older local of a register assigned again
-- (a new web) is a target of the assignment, not a new local.
local function two() return 10, 20 end
local a = 1
local t = {}
t.x, t.y = two()
t.a, a, t.b = 5, 6
print(a, t.x, t.y, t.a, t.b)
