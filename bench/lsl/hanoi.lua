-- Towers of Hanoi, recursively; the twin of hanoi.lsl.
local function hanoi(n, from, to, via)
  if n == 0 then return 0 end
  return hanoi(n - 1, from, via, to) + 1 + hanoi(n - 1, via, to, from)
end
local total = 0
for r = 0, 9 do total = total + hanoi(18 + r % 2, 1, 3, 2) end
print("hanoi " .. total)
