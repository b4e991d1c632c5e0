-- numeric loops over an array: a sieve of Eratosthenes, repeated, then a
-- nested triangle sum with integer arithmetic and comparisons
local N = 1000000
local count = 0
for rep = 1, 5 do
  local flags = {}
  for i = 2, N do flags[i] = true end
  count = 0
  for i = 2, N do
    if flags[i] then
      count = count + 1
      for j = i + i, N, i do flags[j] = false end
    end
  end
end
local t = 0
for i = 1, 2000 do
  for j = 1, i do
    if (i + j) % 3 == 0 then t = t + j else t = t - 1 end
  end
end
print(count, t)
