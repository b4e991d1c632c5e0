-- List manipulation: a list built element by element, read back by index,
-- sorted, searched and sliced, ROUNDS times; the twin of lists.lsl
-- (llListSort ascending = table.sort, llListFindList = a linear search,
-- llList2List = a slice).
local ROUNDS = 2400
local N = 500
local total = 0
for r = 1, ROUNDS do
  local l = {}
  for i = 0, N - 1 do
    l[#l + 1] = (i * 7919 + r) % 1000
  end
  local s = 0
  for i = 1, N do s = s + l[i] end
  local sorted = {}
  for i = 1, N do sorted[i] = l[i] end
  table.sort(sorted)
  local found = -1
  for i = 1, N do
    if sorted[i] == 500 then found = i - 1; break end
  end
  local slice = {}
  for i = 101, 200 do slice[#slice + 1] = sorted[i] end
  total = total + s + sorted[1] + sorted[N] + found + #slice + slice[1]
end
print("lists " .. total)
