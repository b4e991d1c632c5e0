-- closures reading and writing upvalues of enclosing functions: an
-- accumulator object made of closures, nested closures two levels up,
-- closures created per iteration and called later
local function account(start)
  local balance, ops = start, 0
  local self = {}
  function self.deposit(v) balance = balance + v; ops = ops + 1 end
  function self.withdraw(v) if v <= balance then balance = balance - v; ops = ops + 1 end end
  function self.get() return balance, ops end
  return self
end
local acc = account(100)
for i = 1, 4000000 do
  if i % 3 == 0 then acc.withdraw(2) else acc.deposit(1) end
end
local function level1()
  local x = 0
  local function level2()
    local y = 0
    local function level3() x = x + 1; y = y + x; return y end
    return level3
  end
  return level2, function() return x end
end
local l2, getx = level1()
local f3 = l2()
local s = 0
for i = 1, 4000000 do s = s + f3() % 11 end
local fs = {}
for i = 1, 200000 do local j = i * 2; fs[i] = function() return j + i end end
local t = 0
for i = 1, #fs do t = t + fs[i]() end
print(acc.get())
print(getx(), s, t)
