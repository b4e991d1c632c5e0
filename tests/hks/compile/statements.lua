-- every statement form: locals, assignments, functions, branches, loops,
-- break (with captured locals), do blocks, returns, varargs
local a, b, c = 1, 2
local d
local e, f = (function() return 1, 2, 3 end)()
x, y = 10, 20, 30
a, b = b, a
local t = {}
t.x, t[1], t["k"] = 1, 2, 3
t[a], t[b] = t[b], t[a]
function g1() return 1 end
function t.m1(p) return p end
function t:m2(p) return self, p end
local function lf(n) if n > 0 then return lf(n - 1) end return 0 end
if a then b = 1 elseif c then b = 2 elseif d then b = 3 else b = 4 end
if not a then b = 5 end
if a and b or c then b = 6 end
while a < 10 do a = a + 1 if a == 5 then break end end
repeat a = a - 1 until a <= 0
repeat local r = a; local fn = function() return r end; a = a + 1 until fn() > 3
for i = 1, 10 do t[i] = i end
for i = 10, 1, -2 do t[i] = -i end
for i = 1.5, 3.5, 0.5 do d = i end
for k, v in pairs(t) do d = k end
for k in next, t do if k == 3 then break end end
for i = 1, 3 do local cap = i; t[i] = function() return cap end; if i == 2 then break end end
while true do local w = 1; t.f = function() return w end; break end
do local z = 1; t.z = function() z = z + 1; return z end end
do local q = 2 end
local semi = 1;
local function va(...)
  local n = select('#', ...)
  local first, second = ...
  local all = {...}
  return n, first, second, #all, ...
end
local function tail(...) return va(...) end
local function notail(...) return (va(...)) end
local function none() return end
local function multi() return 1, 2, 3 end
print(va(1, 2, 3), tail(4, 5), notail(6), none(), multi())
print(lf(3), g1(), t.m1(7), t:m2(8))
return a, b, c
