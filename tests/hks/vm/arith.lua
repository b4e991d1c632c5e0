-- % and / as Lua 5.1 computes them: x - floor(x / y) * y, signs of zero,
-- infinities and NaN, integral and fractional operands, big quotients
-- (operands pass through a call so that none is folded at compile time)
local function v(x) return x end
local zero = v(0)
local negzero, inf = -zero, v(1) / zero
local nan = zero / zero
print(negzero % v(10), zero % v(-3), v(0.3) % 1, v(-0.3) % 1, v(5) % -3, v(-5) % 3)
print(v(1e300) % 7, v(5) % 0, inf % 2, v(-7.5) % 2, v(7.5) % -2, v(2 ^ 53) % 3)
print(v(-2 ^ 60) % 7, nan % 1, v(3) % inf, v(-3) % inf, v(3) % -inf, negzero % -inf)
print(v(4503599627370495.5) % 1, v(-4503599627370495.5) % 1, v(2147483647) % 2,
  v(-2147483648) % 3, v(-0.5) % 1, v(1e-300) % -1, v(-1e-300) % 1)
for i = -10, 10 do print(i, i % 3, i % -4, (i / 3) % 1.5, i / 4, i % 0.25) end
-- digit sums: the remainder feeds the next quotient
local acc = 0
for n = 1, 2000 do
  local x, s = n * 7919, 0
  while x > 0 do s = s + x % 10; x = (x - x % 10) / 10 end
  acc = acc + s % 9
end
print(acc)
