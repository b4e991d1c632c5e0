-- metamethods: arithmetic, comparison, concat, call, index/newindex chains, tostring
local V = {}
V.__index = V
local function vec(x, y) return setmetatable({x = x, y = y}, V) end
V.__add = function(a, b) return vec(a.x + b.x, a.y + b.y) end
V.__sub = function(a, b) return vec(a.x - b.x, a.y - b.y) end
V.__mul = function(a, b) if type(b) == "number" then return vec(a.x * b, a.y * b) end return a.x * b.x + a.y * b.y end
V.__unm = function(a) return vec(-a.x, -a.y) end
V.__eq = function(a, b) return a.x == b.x and a.y == b.y end
V.__lt = function(a, b) return a.x < b.x end
V.__le = function(a, b) return a.x <= b.x end
V.__concat = function(a, b) return tostring(a) .. "&" .. tostring(b) end
V.__tostring = function(a) return "(" .. a.x .. "," .. a.y .. ")" end
V.__call = function(self, k) return self[k] end
V.__len = function() return 99 end
local a, b = vec(1, 2), vec(3, 4)
print(tostring(a + b), tostring(a - b), tostring(a * 2), a * b, tostring(-a))
print(a == vec(1, 2), a ~= b, a < b, a <= b, a > b, b >= a)
print(a .. b, a .. "s", "s" .. b)
print(a("x"), a("y"), #a)
local log = {}
local proxy = setmetatable({}, {
  __index = function(t, k) log[#log + 1] = "get " .. k; return k .. "!" end,
  __newindex = function(t, k, v) log[#log + 1] = "set " .. k; rawset(t, k, v) end,
})
print(proxy.foo, proxy.bar)
proxy.foo = 1
print(proxy.foo, table.concat(log, ","))
local base = {greet = function(self) return "hi " .. self.name end}
local mid = setmetatable({kind = "mid"}, {__index = base})
local obj = setmetatable({name = "o"}, {__index = mid})
print(obj:greet(), obj.kind, obj.missing)
local ro = setmetatable({}, {__newindex = function() error("read-only table", 2) end, __metatable = "locked"})
print(pcall(function() ro.x = 1 end))
print(getmetatable(ro), pcall(setmetatable, ro, {}))
print(getmetatable("abc").__index == string, ("abc"):upper())
local cnt = setmetatable({}, {__index = function(t, k) local v = 0; rawset(t, k, v); return v end})
for _, w in ipairs({"a", "b", "a", "c", "a"}) do cnt[w] = cnt[w] + 1 end
print(cnt.a, cnt.b, cnt.c)
local mt = {__mod = function(a, b) return "mod" end, __div = function() return "div" end, __pow = function() return "pow" end}
local m = setmetatable({}, mt)
print(m % 1, m / 2, m ^ 3, 2 ^ 10, 7 % 3, -7 % 3, 7 % -3, 5.5 % 2)
