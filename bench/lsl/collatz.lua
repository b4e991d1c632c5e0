-- The twin of collatz.lsl.
local ROUNDS = 3
local N = 100000
local total, longest = 0, 0
for r = 1, ROUNDS do
for i = 1, N - 1 do
  local n = i
  local steps = 0
  repeat
    if n & 1 ~= 0 then n = 3 * n + 1 else n = n >> 1 end
    steps = steps + 1
  until n <= 1
  total = total + steps
  if steps > longest then longest = steps end
end
end
print("collatz " .. total .. " " .. longest)
