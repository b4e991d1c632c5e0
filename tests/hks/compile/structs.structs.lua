-- Structures of our own: a self-referencing list node, a meta chain two
-- levels deep, methods stored in slots, proxytable fields, upvalues and
-- multiple assignment to slots.
hstructure Base
  __index : Base;
  describe : ifunction;
  area : ifunction;
end

hstructure ShapeMeta
  meta : Base;
  __index : ShapeMeta;
  grow : ifunction;
end

hstructure Shape
  meta : ShapeMeta;
  w : number;
  h : number;
  name : string;
  next : Shape;
  draw : ifunction;
  tag : object;
  solid : boolean;
  owner : table;
end

hstructure Registry
  proxytable;
  first : Shape;
  count : number;
end

local base:Base = hmake Base { describe = function(s) return s.name end };
base.__index = base;
local meta:ShapeMeta = hmake ShapeMeta { __index = nil, grow = nil };
meta.__index = meta;

local function newshape(w:number, h:number, name:string, nxt:Shape)
  local s:Shape = hmake Shape { w = w, h = h, name = name, next = nxt, solid = true, tag = nil };
  s.draw = function(self) return self.w .. "x" .. self.h end;
  return s;
end

local a:Shape = newshape(1, 2, "a", nil);
local b:Shape = newshape(3, 4, "b", a);
b.w, b.h = b.h, b.w;
a.tag = "first";
a.solid = false;
a.owner = {};
a.next = nil;
print(b:draw(), b:grow(2), b:describe(), b.next.name, b.next.next);
local area = b.area;
local reg:Registry = hmake Registry { first = b, count = 2, 7, 8, [9] = "nine", extra = true };
reg.count = reg.count + 1;
reg.label = "shapes";
local function walk()
  local n = 0;
  local s:Shape = reg.first;
  while s do
    n = n + s.w * s.h;
    s = s.next;
  end
  return n, reg[1] + reg[2], reg.label;
end
local total:number = walk();
for i:number = 1, reg.count do
  local s:Shape = reg.first;
  s.w = s.w + i;
end
print(total, area, #reg, a.solid and 1 or 0);
