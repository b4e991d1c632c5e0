local s = 0
for i = 1, 10000000 do
  local x = i % 7
  if x < 3 then s = s + x * 2 else s = s - 1 end
end
local j, w = 0, 0
while j < 1000000 do j = j + 1; w = w + j end
print(s, w)
