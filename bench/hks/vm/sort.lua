-- table-heavy work: table.sort with and without a comparator, a quicksort in Lua
local seed = 12345
local function rnd() seed = (seed * 1103515245 + 12345) % 2147483648; return seed end
local t = {}
for i = 1, 60000 do t[i] = rnd() % 100000 end
table.sort(t)
local recs = {}
for i = 1, 30000 do recs[i] = {id = i, key = rnd() % 1000} end
table.sort(recs, function(x, y) if x.key ~= y.key then return x.key < y.key end return x.id < y.id end)
local function qsort(a, lo, hi)
  if lo >= hi then return end
  local p, i = a[hi], lo - 1
  for j = lo, hi - 1 do
    if a[j] <= p then i = i + 1; a[i], a[j] = a[j], a[i] end
  end
  a[i + 1], a[hi] = a[hi], a[i + 1]
  qsort(a, lo, i)
  qsort(a, i + 2, hi)
end
local q = {}
for i = 1, 60000 do q[i] = rnd() % 1000000 end
qsort(q, 1, #q)
local ok = true
for i = 2, #q do if q[i - 1] > q[i] then ok = false end end
print(t[1], t[#t], recs[1].key, recs[#recs].id, ok, q[1], q[#q])
