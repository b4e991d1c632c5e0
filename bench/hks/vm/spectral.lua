-- float arithmetic with calls in the inner loop: spectral norm
local function A(i, j)
  local ij = i + j - 1
  return 1.0 / (ij * (ij - 1) * 0.5 + i)
end
-- y = A x, or y = A^T x when t is true
local function Av(x, y, N, t)
  for i = 1, N do
    local a = 0
    if t then
      for j = 1, N do a = a + x[j] * A(j, i) end
    else
      for j = 1, N do a = a + x[j] * A(i, j) end
    end
    y[i] = a
  end
end
local function AtAv(x, y, t, N) Av(x, t, N, false); Av(t, y, N, true) end
local N = 550
local u, v, t = {}, {}, {}
for i = 1, N do u[i] = 1 end
for i = 1, 10 do AtAv(u, v, t, N); AtAv(v, u, t, N) end
local vBv, vv = 0, 0
for i = 1, N do
  local ui, vi = u[i], v[i]
  vBv = vBv + ui * vi; vv = vv + vi * vi
end
print(string.format("%0.9f", math.sqrt(vBv / vv)))
