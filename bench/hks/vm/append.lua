-- table.insert and #t appends, table.remove, ipairs walks, array reuse
local t = {}
for i = 1, 300000 do table.insert(t, i) end
local u = {}
for i = 1, 300000 do u[#u + 1] = i * 2 end
local sum = 0
for _, v in ipairs(t) do sum = sum + v end
for i = 1, #u do sum = sum + u[i] end
for i = 1, 100000 do sum = sum + table.remove(t) end
local st = {}
for r = 1, 30 do
  for i = 1, 5000 do st[#st + 1] = i end
  while #st > 0 do sum = sum + st[#st]; st[#st] = nil end
end
print(sum, #t, #u, #st)
