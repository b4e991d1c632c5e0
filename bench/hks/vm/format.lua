-- string building with string.format and .. in loops, table.concat, tostring
local rows = {}
for i = 1, 40000 do
  rows[#rows + 1] = string.format("%5d|%-8s|%6.2f|%x", i, "n" .. i % 97, i / 7, i)
end
local out = table.concat(rows, "\n")
local keys = {}
for i = 1, 40000 do keys[i] = "key_" .. tostring(i) .. "_" .. (i * 3) end
local n = 0
for i = 1, #keys do n = n + #keys[i] end
local csv = {}
for i = 1, 20000 do csv[i] = i .. "," .. i * 2 .. "," .. i * 3 end
print(#out, n, #table.concat(csv, ";"), rows[12345], keys[99])
