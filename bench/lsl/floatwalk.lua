-- The twin of floatwalk.lsl (whole numbers below 2^21: doubles agree with
-- LSL's float32 variables).
local ROUNDS = 2000
local best, sum = 0.0, 0.0
for r = 0, ROUNDS - 1 do
  local x = r + 0.0
  local y = 7.0
  local f = 0.0
  while f < 2000.0 do
    x = x * 5.0 + y
    while x >= 65536.0 do x = x - 65536.0 end
    y = y + 2.0
    if y > 1000.0 then y = y - 999.0 end
    if x > best then best = x end
    sum = sum + (x - y)
    if sum > 1048576.0 then
      sum = sum - 1048576.0
    elseif sum < 0.0 then
      sum = sum + 1048576.0
    end
    f = f + 1.0
  end
end
print(string.format("floatwalk %d %d", math.floor(sum), math.floor(best)))
