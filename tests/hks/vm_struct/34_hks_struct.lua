-- ../shared/corpus/hks-hksc/src/34_hks_struct.lua in stock Lua 5.1: each
-- structure becomes a table, hmake a table constructor, a typed local a
-- plain one, a proxytable structure a table that holds its extra keys.
-- lua5.1 prints here what the structure chunks must print (vm_corpus.sh).
local PointMeta = {}
Point = PointMeta
Point.__index = Point;

function Point.len2(self)
  return self.x * self.x + self.y * self.y;
end

function Point.scale(self, k)
  self.x = self.x * k;
  self.y = self.y * k;
  return self;
end

local function newpoint(x, y, label)
  local p = { x = x, y = y, label = label, visible = true };
  setmetatable(p, Point);
  return p;
end

local a = newpoint(1, 2, "a");
local b = newpoint(3, 4, "b");
a.extra = b;
a.visible = false;
a.label = nil;
local l2 = a:len2() + b:len2();
b:scale(2);
local bag = { owner = a, count = 0, items = {}, 10, 20, 30, note = "proxy" };
bag.count = bag.count + 1;
bag.items[1] = b;
local sum = 0;
for i = 1, 3 do
  sum = sum + bag[i];
end
local owner = bag.owner;
print(l2, b.x, b.y, bag.count, sum, owner.label, bag.note);
