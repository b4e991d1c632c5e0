-- OOP method calls through metatables: a class, a subclass found through
-- two __index levels, getters and setters, a vector type with __add/__eq
local Point = {}
Point.__index = Point
function Point.new(x, y) return setmetatable({x = x, y = y}, Point) end
function Point:move(dx, dy) self.x = self.x + dx; self.y = self.y + dy end
function Point:len2() return self.x * self.x + self.y * self.y end
local Named = setmetatable({}, {__index = Point})
Named.__index = Named
function Named.new(name, x, y)
  local o = Point.new(x, y)
  o.name = name
  return setmetatable(o, Named)
end
function Named:label() return self.name end
local p, q = Point.new(0, 0), Named.new("q", 1, 1)
local acc = 0
for i = 1, 1000000 do
  p:move(1, -1)
  q:move(-1, 1)
  acc = acc + p:len2() % 7 + #q:label()
end
local V = {}
V.__index = V
V.__add = function(a, b) return setmetatable({a[1] + b[1], a[2] + b[2]}, V) end
V.__eq = function(a, b) return a[1] == b[1] and a[2] == b[2] end
local v, one, eqs = setmetatable({0, 0}, V), setmetatable({1, 2}, V), 0
for i = 1, 200000 do
  v = v + one
  if v == setmetatable({i, 2 * i}, V) then eqs = eqs + 1 end
end
print(p.x, q.y, acc, v[1], v[2], eqs)
