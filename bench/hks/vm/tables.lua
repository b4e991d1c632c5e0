local t = {}
for i = 1, 300000 do t[i] = i * 2 end
local h = {}
for i = 1, 100000 do h["k" .. (i % 5000)] = i end
local sum = 0
for r = 1, 20 do
  for i = 1, #t do sum = sum + t[i] end
  for i = 1, 5000 do sum = sum + (h["k" .. i] or 0) end
end
for k, v in pairs(h) do sum = sum + v end
table.insert(t, 1, 0)
print(sum, #t)
