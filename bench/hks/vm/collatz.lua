-- while and repeat loops with integer arithmetic: Collatz chain lengths
local best, bestn = 0, 0
for n = 1, 200000 do
  local x, len = n, 1
  while x ~= 1 do
    if x % 2 == 0 then x = x / 2 else x = 3 * x + 1 end
    len = len + 1
  end
  if len > best then best, bestn = len, n end
end
local s, i = 0, 0
repeat i = i + 1; s = s + i % 13 until i >= 2000000
print(best, bestn, s)
