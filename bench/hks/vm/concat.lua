-- string building: .. of numbers and strings in a loop, a table of parts
-- joined with table.concat, string.format of several values
local parts = {}
for i = 1, 200000 do parts[#parts + 1] = "item" .. i .. ":" .. (i * 3) % 17 end
local joined = table.concat(parts, ",")
local acc = ""
local lens = 0
for i = 1, 20000 do
  acc = acc .. string.char(65 + i % 26)
  if #acc > 200 then lens = lens + #acc; acc = "" end
end
local f = 0
for i = 1, 150000 do f = f + #string.format("%d-%s-%5.2f", i, "x", i / 7) end
print(#joined, lens, f)
