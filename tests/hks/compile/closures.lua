-- closures: upvalues of upvalues, shared upvalues, loops that capture,
-- recursive local functions, methods on objects
local count = 0
local function counter()
  local n = 0
  return function() n = n + 1; count = count + 1; return n end
end
local function outer()
  local a = 1
  local function mid()
    local b = 2
    local function inner() a = a + b; return a end
    return inner
  end
  return mid()
end
local fns = {}
for i = 1, 3 do
  local j = i * 2
  fns[i] = function() return i + j + count end
end
local obj = { v = 1 }
function obj:get() return self.v end
function obj.set(self, v) self.v = v end
local c1 = counter()
print(c1(), c1(), outer()(), fns[1](), fns[3](), obj:get(), obj.set(obj, 5), obj:get())
