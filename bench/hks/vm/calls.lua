-- many small non-recursive calls: helpers called from loops, several
-- arguments and results, a vararg helper
local function add3(a, b, c) return a + b + c end
local function swap(a, b) return b, a end
local function clamp(x, lo, hi) if x < lo then return lo elseif x > hi then return hi end return x end
local function pick(n, ...) return (select(n, ...)) end
local s = 0
for i = 1, 8000000 do
  s = add3(s, i % 5, 1)
  local a, b = swap(i, s)
  s = s + clamp(a - b, -3, 3)
end
local v = 0
for i = 1, 1000000 do v = v + pick(2, i, 1, 2) end
print(s, v)
