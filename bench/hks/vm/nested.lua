-- nested numeric loops (for, while, repeat) with integer arithmetic and branches
local total = 0
for i = 1, 40000 do
  local j = 0
  while j < 300 do
    local x = (i * j) % 97
    if x > 50 then total = total + x else total = total - 1 end
    j = j + 1
  end
end
print(total)
local c = 0
local n = 1
repeat
  n = n + 1
  if n % 3 == 0 or n % 5 == 0 then c = c + n end
until n >= 15000000
print(c)
