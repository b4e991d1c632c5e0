-- multiple assignments whose last target is stored straight from its
-- value, before the others' temporaries (Lua 5.1 stores the last value
-- first, as an RK operand or a local's register): a constant into a table
-- field, a local into a table and into a global, with a local, a table
-- entry and globals as the other targets
local t = {}
local i = 1
local k = "key"
i, t[i] = i + 1, 20
g1, g2, t.g3 = 7, 8, 9
t.a, t.b, t.c = 1, 2, 3
t.d, t[k] = i * 2, k
t.e, g4 = 5, k
print(i, g1, g2, t.g3, t.a, t.b, t.c, t.d, t[k], t.e, g4)
