local parts = {}
for i = 1, 200000 do parts[#parts + 1] = "item" .. i end
local s = table.concat(parts, ",")
local n = 0
for w in s:gmatch("item(%d+)") do n = n + 1 end
local acc = ""
for i = 1, 3000 do acc = acc .. string.format("%d;", i) end
print(#s, n, #acc, s:sub(1, 12), (s:gsub("item", "x")):len())
