-- closures: counter factories, upvalue updates, map and filter with fresh closures
local function counter() local n = 0 return function() n = n + 1 return n end end
local function map(f, t) local r = {} for i = 1, #t do r[i] = f(t[i]) end return r end
local function filter(p, t) local r = {} for i = 1, #t do if p(t[i]) then r[#r + 1] = t[i] end end return r end
local total = 0
for rep = 1, 10000 do
  local c = counter()
  for i = 1, 1000 do c() end
  total = total + c()
end
print(total)
local t = {}
for i = 1, 1000 do t[i] = i end
local s = 0
for rep = 1, 5000 do
  local k = rep
  local m = map(function(x) return x * k end, t)
  local f = filter(function(x) return x % 3 == 0 end, m)
  s = s + #f + f[1]
end
print(s)
