-- ordinary calls with several arguments and results, multiple results
-- through recursion, and mutual recursion
local function add3(a, b, c) return a + b + c end
local function minmax(a, b) if a < b then return a, b else return b, a end end
local function fibpair(n)
  if n == 0 then return 0, 1 end
  local a, b = fibpair(n - 1)
  return b, a + b
end
local is_odd
local function is_even(n) if n == 0 then return true end return is_odd(n - 1) end
function is_odd(n) if n == 0 then return false end return is_even(n - 1) end
local s = 0
for i = 1, 6000000 do
  local lo, hi = minmax(i, 1000000 - i)
  s = s + add3(lo, hi, i % 7)
end
print(s)
local f, e = 0, 0
for i = 1, 60000 do
  local a = fibpair(40 + i % 20)
  f = (f + a) % 1000007
  if is_even(i % 300) then e = e + 1 end
end
print(f, e)
