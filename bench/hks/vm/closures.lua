local Account = {}
Account.__index = Account
function Account.new(b) return setmetatable({balance = b}, Account) end
function Account:deposit(v) self.balance = self.balance + v end
function Account:get() return self.balance end
local a = Account.new(0)
for i = 1, 3000000 do a:deposit(1) end
local function counter()
  local n = 0
  return function() n = n + 1; return n end
end
local c, total = counter(), 0
for i = 1, 3000000 do total = total + c() end
local adders = {}
for i = 1, 100000 do adders[i] = function(x) return x + i end end
for i = 1, 100000 do total = total + adders[i](1) end
print(a:get(), total)
