-- List building with floats; the twin of floatlist.lsl.
local ROUNDS, N = 3000, 2000
local total = 0
for rep = 0, ROUNDS - 1 do
  local l = {}
  for i = 0, N - 1 do
    l[#l + 1] = i * 0.5 + rep
  end
  local s = 0.0
  for i = 1, N do
    s = s + l[i]
  end
  total = total + math.floor(s) % 9973
end
print("floatlist " .. string.format("%d", total))
