-- stores through a meta structure's __newindex (SETSLOTMT: the slot's type
-- in B, a structure id word for a structure-typed slot, then the tag chain)
hstructure Point
	x : number;
	y : number;
end

hstructure Store
	count : number;
	name : string;
	origin : Point;
	any : object;
end

hstructure BaseMeta
	__index : Store;
	__newindex : Store;
end

hstructure Base
	meta : BaseMeta;
	tag : string;
end

local b:Base = hmake Base { tag = "b" }
local p:Point = hmake Point { x = 1, y = 2 }
b.count = 3
b.count = b.count + 1
b.name = "base"
b.origin = p
b.any = {}
b.any = nil
local function set(o:Base, v)
	o.count = v
	o.name = v
end
set(b, 7)
