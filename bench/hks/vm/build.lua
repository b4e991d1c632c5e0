-- string building: repeated concatenation, formatting, case and byte work
local words = {}
for i = 1, 60000 do
  words[#words + 1] = string.format("%s-%d", (i % 3 == 0) and "fizz" or "w", i)
end
local line = ""
for i = 1, 4000 do line = line .. words[i] .. " " end
local up = string.upper(line)
local total = 0
for i = 1, #up, 7 do total = total + string.byte(up, i) end
local out = {}
for i = 1, #words do out[i] = words[i]:sub(1, 2) .. words[i]:len() end
local joined = table.concat(out, ";")
print(#line, total, #joined, joined:sub(1, 20), select(2, joined:gsub("fi", "")))
