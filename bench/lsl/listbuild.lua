-- List building and reading; the twin of listbuild.lsl.
local ROUNDS = 4000
local N = 2000
local total = 0
for rep = 0, ROUNDS - 1 do
  local l = {}
  for i = 0, N - 1 do l[#l + 1] = i * 2 + rep end
  local s = 0
  for i = 1, N do s = s + l[i] end
  total = total + s % 9973
end
print("listbuild " .. total)
