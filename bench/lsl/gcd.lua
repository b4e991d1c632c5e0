-- Euclid's algorithm over every pair below N, ROUNDS times; the twin of gcd.lsl.
local ROUNDS, N = 30, 400
local total = 0
for r = 0, ROUNDS - 1 do
  for i = 1, N - 1 do
    for j = 1, N - 1 do
      local a, b = i, j
      while b ~= 0 do
        local t = a % b
        a = b
        b = t
      end
      total = total + a
    end
  end
end
print("gcd " .. string.format("%d", total))
