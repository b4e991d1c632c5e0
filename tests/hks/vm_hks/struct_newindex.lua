-- struct_newindex.hks with tables in place of structures
local store = { count = 0 }
local b = setmetatable({ tag = "b" }, { __index = store, __newindex = store })
local p = { x = 1, y = 2 }
b.count = 3
b.count = b.count + 1
b.origin = p
print(b.tag, b.count, store.count, b.origin.x, store.origin.y)
b.origin = nil
print(store.origin)
