-- a different recursive shape than fib: three arguments, deep non-tail recursion
local function tak(x, y, z)
  if y >= x then return z end
  return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y))
end
local function ack(m, n)
  if m == 0 then return n + 1 end
  if n == 0 then return ack(m - 1, 1) end
  return ack(m - 1, ack(m, n - 1))
end
local s = 0
for i = 1, 25 do s = s + tak(18, 12, 6) end
print(s, ack(2, 300), ack(3, 6))
