-- ordinary calls with several arguments and results, and deep recursion (Ackermann)
local function add3(a, b, c) return a + b + c end
local function minmax(a, b) if a < b then return a, b else return b, a end end
local function ack(m, n)
  if m == 0 then return n + 1 end
  if n == 0 then return ack(m - 1, 1) end
  return ack(m - 1, ack(m, n - 1))
end
local s = 0
for i = 1, 6000000 do
  local lo, hi = minmax(i, 1000000 - i)
  s = s + add3(lo, hi, i % 7)
end
print(s)
print(ack(2, 2000), ack(3, 7))
