-- An integer hash loop; the twin of hash.lsl.
local ROUNDS, N = 200, 20000
local total = 0
for r = 0, ROUNDS - 1 do
  local h = r
  for i = 0, N - 1 do
    h = (h * 31 + i) % 1000003
    if h % 2 == 0 then h = (h + 1) * 3 % 1000003 end
  end
  total = (total + h) % 1000003
end
print("hash " .. string.format("%d", total))
