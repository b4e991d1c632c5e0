-- numeric for with float steps, while and repeat loops, math library calls
local s, n = 0, 0
for x = 0, 3000, 0.001 do s = s + x * 0.5; n = n + 1 end
for x = 100, 0, -0.25 do s = s - x end
local i, w = 0, 0
while i < 4000000 do
  i = i + 1
  if i % 2 == 0 then w = w + i / 2 else w = w - 1 end
end
local r, k = 1, 0
repeat r = r * 1.0000001; k = k + 1 until r > 1.1
local m = 0
for j = 1, 300000 do m = m + math.floor(j / 3) + math.abs(-j) % 5 + math.max(j, 7) - math.min(j, 3) end
print(n, string.format("%.6f", s), w, k, m)
