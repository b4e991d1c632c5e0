local log = {}
local p = newproxy(true)
local mt = getmetatable(p)
mt.__gc = function(u) print("gc", u == p, type(u)) end
mt.__len = function(u) return 42 end
mt.__index = function(u, k) return k .. "!" end
mt.__tostring = function() return "proxy" end
print(type(p), #p, p.foo, tostring(p))
local q = newproxy(p)
print(getmetatable(q) == mt, #q)
print(pcall(newproxy, {}))
print(type(newproxy()), getmetatable(newproxy(false)))
do
  for i = 1, 3 do
    local u = newproxy(true)
    getmetatable(u).__gc = function() print("collected", i) end
  end
end
collectgarbage()
collectgarbage()
print("after collect")
local w = setmetatable({}, {__mode = "v"})
local keep = newproxy(true)
getmetatable(keep).__gc = function() print("at exit") end
print(#{1,2,3}, select('#', setmetatable({}, {__len = function() return 9 end})))
print(#setmetatable({1,2}, {__len = function() return 9 end}))
