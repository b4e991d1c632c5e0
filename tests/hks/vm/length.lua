-- #t against lua5.1 on arrays with and without holes: the VM answers #t
-- without a search while the array part is values then nils, and must give
-- the border lua5.1's binary search gives in every other case.
local seed = 12345
local function rand(n) -- a fixed LCG (exact in doubles), not math.random
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed % n
end

-- appends and pops, as stacks and queues do
local s = {}
for i = 1, 100 do s[#s + 1] = i end
for i = 1, 40 do s[#s] = nil end
table.insert(s, 7)
print("stack", #s, table.remove(s), #s)

-- filled backwards by a constructor's SETLIST, then a hole in the middle
local c = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
print("ctor", #c)
c[6] = nil
print("hole", #c)
c[6] = 6
print("filled", #c)
c[13], c[15] = 13, 15
print("gap", #c)
c[14] = 14
print("closed", #c)

-- nil written past the end and over the last value
local e = {}
for i = 1, 16 do e[i] = i end
e[20] = nil
print("past", #e)
e[16] = nil; e[15] = nil
print("shrunk", #e)
e[16] = 16
print("beyond", #e)

-- one or two writes between two #t, inside an array part of 8 slots, on
-- each side of the border (the comments give the border lua5.1 finds)
local function fresh(n)
  local t = {}
  for i = 1, n do t[i] = i end
  assert(#t == n) -- the border known before the writes below
  return t
end
local r = {}
local t = fresh(5); t[7] = 7; r[#r + 1] = #t            -- values past a gap: 5
t = fresh(5); t[2] = 20; r[#r + 1] = #t                 -- a value over a value: 5
t = fresh(5); t[6], t[7] = 6, 7; r[#r + 1] = #t         -- a run of appends: 7
t = fresh(5); t[4], t[5] = 40, nil; r[#r + 1] = #t      -- value then nil at the end: 4
t = fresh(7); t[2], t[3] = 2, nil; r[#r + 1] = #t       -- a hole, values after it: 7
t = fresh(5); t[7], t[8] = 7, nil; r[#r + 1] = #t       -- past a gap, then nil: 5
t = fresh(5); t[7] = nil; r[#r + 1] = #t                -- nil past the end: 5
t = fresh(5); t[5] = nil; r[#r + 1] = #t                -- nil over the last: 4
t = fresh(7); t[2] = nil; r[#r + 1] = #t                -- a hole: 7
t = fresh(7); t[2] = nil; t[2] = 2; r[#r + 1] = #t      -- a hole closed again: 7
t = fresh(5); t[6] = 6; t[8] = 8; r[#r + 1] = #t        -- two runs: 6
print("cases", table.concat(r, " "))

-- random writes of values and nils, read back after every few
local out = {}
for round = 1, 30 do
  local t = {}
  local n = 8 + rand(120)
  for i = 1, n do t[i] = i end
  for step = 1, 200 do
    local op = rand(6)
    if op == 0 then
      t[rand(n + 8) + 1] = nil
    elseif op == 1 then
      t[rand(n + 8) + 1] = step
    elseif op == 2 then
      t[#t + 1] = step
    elseif op == 3 then
      if #t > 0 then t[#t] = nil end
    elseif op == 4 then
      table.insert(t, step)
    else
      local k = rand(n) + 1
      t[k], t[k + 1] = nil, step
    end
    if step % 25 == 0 then out[#out + 1] = #t end
  end
end
print("random", table.concat(out, " "))

-- a table filled out of order and one that only ever had holes
local o = {}
for i = 64, 1, -1 do o[i] = i end
print("reverse", #o)
local h = {}
for i = 1, 64, 2 do h[i] = i end
print("odd", #h)
for i = 2, 64, 2 do h[i] = i end
print("even", #h)

-- a weak array loses a value in the middle to the collector
local w = setmetatable({}, {__mode = "v"})
local keep = {}
for i = 1, 7 do
  w[i] = {}
  if i ~= 4 then keep[i] = w[i] end
end
print("weak before", #w)
collectgarbage()
print("weak after", w[4], #w)
