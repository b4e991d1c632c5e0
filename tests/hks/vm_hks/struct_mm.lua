-- struct_mm.hks with tables in place of structures (what lua5.1 prints)
local Vec = {}
Vec.__index = Vec
local function new(x, y) local v = {x = x, y = y}; setmetatable(v, Vec); return v end
Vec.__add = function(a, b) return new(a.x + b.x, a.y + b.y) end
Vec.__eq = function(a, b) return a.x == b.x and a.y == b.y end
Vec.__lt = function(a, b) return a:norm1() < b:norm1() end
Vec.__concat = function(a, b) return "(" .. a.x .. "," .. a.y .. ")" .. tostring(b) end
Vec.__call = function(a, k) return new(a.x * k, a.y * k) end
Vec.norm1 = function(a) return math.abs(a.x) + math.abs(a.y) end
local a, b = new(1, 2), new(10, -20)
local c = a + b
print(c.x, c.y, a == new(1, 2), a == b, a < b, b < a, a <= b)
print(a .. "!", a(3).y)
local s = 0
for i = 1, 100 do s = s + (a + new(i, 0)).x end
print(s)
