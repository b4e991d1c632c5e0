-- recursion with table arguments (towers of Hanoi) and a recursive quicksort
local moves = 0
local function hanoi(n, from, to, via, pegs)
  if n == 0 then return end
  hanoi(n - 1, from, via, to, pegs)
  moves = moves + 1
  pegs[to] = pegs[to] + 1
  pegs[from] = pegs[from] - 1
  hanoi(n - 1, via, to, from, pegs)
end
local pegs = {21, 0, 0}
hanoi(21, 1, 3, 2, pegs)
local function qsort(a, lo, hi)
  if lo >= hi then return end
  local p = a[lo + (hi - lo - (hi - lo) % 2) / 2]
  local i, j = lo, hi
  while i <= j do
    while a[i] < p do i = i + 1 end
    while a[j] > p do j = j - 1 end
    if i <= j then a[i], a[j] = a[j], a[i]; i = i + 1; j = j - 1 end
  end
  qsort(a, lo, j)
  qsort(a, i, hi)
end
local a, seed = {}, 42
for i = 1, 400000 do seed = (seed * 16807) % 2147483647; a[i] = seed % 100000 end
qsort(a, 1, #a)
local ok = true
for i = 2, #a do if a[i - 1] > a[i] then ok = false end end
print(moves, pegs[1], pegs[2], pegs[3], ok, a[1], a[#a])
