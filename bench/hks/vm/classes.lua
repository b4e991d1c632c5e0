-- method calls: classes through metatables, inheritance, colon calls on fresh objects
local Vec = {} Vec.__index = Vec
function Vec.new(x, y) return setmetatable({x = x, y = y}, Vec) end
function Vec:add(o) return Vec.new(self.x + o.x, self.y + o.y) end
function Vec:dot(o) return self.x * o.x + self.y * o.y end
function Vec:scale(k) self.x = self.x * k self.y = self.y * k return self end
local Animal = {} Animal.__index = Animal
function Animal.new(n) return setmetatable({name = n, energy = 0}, Animal) end
function Animal:eat(k) self.energy = self.energy + k end
function Animal:speak() return 1 end
local Dog = setmetatable({}, {__index = Animal}) Dog.__index = Dog
function Dog.new(n) local d = Animal.new(n) return setmetatable(d, Dog) end
function Dog:speak() return 2 end
local acc = Vec.new(0, 0)
local d = 0
for i = 1, 1000000 do
  local v = Vec.new(i % 10, 1)
  acc = acc:add(v)
  d = d + v:dot(acc) % 7
end
print(acc.x, acc.y, d)
local pets = {Animal.new("a"), Dog.new("b"), Dog.new("c")}
local s = 0
for i = 1, 1000000 do local p = pets[i % 3 + 1] p:eat(1) s = s + p:speak() end
print(s, pets[2].energy)
