-- upvalue-heavy closures: counters sharing upvalues, closures made in loops,
-- a closure chain several levels deep
local function make()
  local n, total, calls = 0, 0, 0
  local function inc(d) n = n + d; calls = calls + 1; return n end
  local function add() total = total + n; return total end
  local function get() return n, total, calls end
  return inc, add, get
end
local inc, add, get = make()
for i = 1, 1500000 do inc(1); if i % 3 == 0 then add() end end
local function outer()
  local a = 0
  return function()
    local b = 0
    return function() a = a + 1; b = b + 2; return a + b end
  end
end
local mid = outer()
local s = 0
for i = 1, 1000 do
  local f = mid()
  for j = 1, 500 do s = s + f() end
end
local fs = {}
for i = 1, 200000 do local k = i; fs[i % 100 + 1] = function() return k end end
for i = 1, 100 do s = s + fs[i]() end
print(get())
print(s)
