-- closures as iterators and callbacks: a generic for over a closure
-- iterator, map/filter/reduce with function arguments, a memoizer
local function range(n, step)
  local i = 0
  return function()
    i = i + step
    if i <= n then return i end
  end
end
local s = 0
for rep = 1, 30 do
  for v in range(300000, 1) do s = s + v % 7 end
end
local function map(t, f) local r = {} for i = 1, #t do r[i] = f(t[i]) end return r end
local function filter(t, f) local r = {} for i = 1, #t do if f(t[i]) then r[#r + 1] = t[i] end end return r end
local function reduce(t, f, acc) for i = 1, #t do acc = f(acc, t[i]) end return acc end
local base = {}
for i = 1, 1000 do base[i] = i end
local total = 0
for rep = 1, 900 do
  local k = rep % 4
  local m = map(base, function(x) return x * 2 + k end)
  local f = filter(m, function(x) return x % 3 == 0 end)
  total = total + reduce(f, function(a, b) return a + b end, 0)
end
local function memo(f)
  local cache = {}
  return function(n)
    local v = cache[n]
    if v == nil then v = f(n); cache[n] = v end
    return v
  end
end
local sq = memo(function(n) return n * n end)
local m = 0
for i = 1, 6000000 do m = m + sq(i % 1000) end
print(s, total, m)
