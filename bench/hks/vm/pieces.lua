-- string building: concatenation in loops, table.concat, string.sub, string.format
local parts = {}
for i = 1, 200000 do
  parts[#parts + 1] = "item" .. i .. ";"
end
local s = table.concat(parts)
print(#s)
local acc = ""
for i = 1, 20000 do
  acc = acc .. string.char(65 + i % 26)
  if #acc > 1000 then acc = string.sub(acc, 500) end
end
print(#acc, acc:sub(1, 10))
local out = {}
for i = 1, 100000 do out[i] = string.format("%d:%s", i, "x") end
print(#table.concat(out, ","))
