-- the FromSoftware table sizes: {...}:NA,NH presizes NEWTABLE (the larger of
-- the given and the counted sizes); ':' then a name stays a method call
local t = {1, 2}:10, 4
local u = {}:, 3
local v = {x = 1}:2 * 8
local w = {1, 2, 3}:(2 + 1) - 5, -1
local o = setmetatable({}, {__index = {m = function(self, x) return x end}})
local function f(x) return o end
local r = f{1}:m(2)
return t, u, v, w, r
