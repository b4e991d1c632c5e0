-- table library and table behaviour: insert/remove positions, sort with and
-- without comparators, concat ranges, # with holes from the array end, next
local t = {}
for i = 1, 10 do table.insert(t, i * 10) end
table.insert(t, 1, 5)
table.insert(t, 4, 25)
print(#t, table.concat(t, " "))
print(table.remove(t), table.remove(t, 1), table.remove(t, 3), #t, table.concat(t, ","))
local words = {"pear", "apple", "fig", "banana", "cherry", "date"}
table.sort(words)
print(table.concat(words, " "))
table.sort(words, function(x, y) return #x < #y or (#x == #y and x < y) end)
print(table.concat(words, " "))
local nums = {}
for i = 1, 200 do nums[i] = (i * 37) % 101 end
table.sort(nums, function(x, y) return x > y end)
print(nums[1], nums[2], nums[100], nums[200])
print(table.concat({1, 2, 3, 4, 5}, "-", 2, 4), table.concat({}, "x"), table.maxn({1, 2, [10] = 3}))
local h = {n = 1, [1] = "a", [2] = "b", [4] = "d"}
print(#h == 2 or #h == 4, h.n, table.getn({1, 2, 3}))
local keys = {}
for k in pairs({a = 1, b = 2, c = 3, d = 4, e = 5}) do keys[#keys + 1] = k end
table.sort(keys)
print(table.concat(keys))
local big = {}
for i = 1, 1000 do big[i] = i end
for i = 1, 1000, 2 do big[i] = nil end
local c = 0
for k, v in pairs(big) do c = c + 1 end
print(c, big[1000], big[999])
local m = {[1.5] = "x", [true] = "y", [-0] = "z"}
print(m[1.5], m[true], m[0])
local s = 0
for i = 10, 1, -2.5 do s = s + i end
print(s)
for i = 1, 3 do local x = i end
local fns = {}
for i = 1, 3 do fns[i] = function() return i end end
print(fns[1](), fns[2](), fns[3]())
print(pcall(function() local z = {}; z[nil] = 1 end))
print(select("#", unpack({1, nil, 3})), next({}, nil))
