-- table insert and lookup: table.insert, #t, string keys, table.remove, nested arrays
local t = {}
for i = 1, 600000 do table.insert(t, i * 3) end
local s = 0
for i = 1, #t do s = s + t[i] end
print(s)
local h = {}
for i = 1, 100000 do h["k" .. (i % 5000)] = (h["k" .. (i % 5000)] or 0) + i end
local c = 0
for k, v in pairs(h) do c = c + v end
print(c)
local q = {}
for i = 1, 200000 do q[#q + 1] = i end
while #q > 0 do table.remove(q) end
print(#q)
local grid = {}
for y = 1, 300 do local row = {} grid[y] = row for x = 1, 300 do row[x] = x + y end end
local g = 0
for r = 1, 150 do for y = 1, 300 do local row = grid[y] for x = 1, 300 do g = g + row[x] end end end
print(g)
