-- nested numeric loops: a matrix product and a sieve
local n = 90
local a, b, c = {}, {}, {}
for i = 1, n do
  local ra, rb = {}, {}
  for j = 1, n do ra[j] = (i + j) % 10; rb[j] = (i * j) % 7 end
  a[i], b[i] = ra, rb
end
for i = 1, n do
  local ci, ai = {}, a[i]
  for j = 1, n do
    local s = 0
    for k = 1, n do s = s + ai[k] * b[k][j] end
    ci[j] = s
  end
  c[i] = ci
end
local sieve, count = {}, 0
for i = 2, 1000000 do
  if not sieve[i] then
    count = count + 1
    for j = i * i, 1000000, i do sieve[j] = true end
  end
end
print(c[1][1], c[n][n], count)
