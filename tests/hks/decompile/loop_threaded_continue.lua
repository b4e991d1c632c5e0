-- a while loop whose body ends with an if / else: the then-branch's escape
-- jump is merged into the loop's back jump (Lua 5.1's luaK_jump takes the
-- pending jumps along), so it jumps to the loop's start itself.  With
-- `while true` the body starts there too: that jump is no inner loop (whose
-- break would be a JMP of its own).  And a call's arguments after a numeric
-- for whose loop variable had the same register: the FORLOOP sets the
-- variable before the body, so the loop does not read the argument's value
local function sift(t, root, stop)
  while true do
    local child = root * 2
    if child > stop then return end
    if t[root] < t[child] then
      t[root], t[child] = t[child], t[root]
      root = child
    else
      return
    end
  end
end
local function walk(t, lo, hi, f)
  while lo < hi do
    if hi - lo < 3 then
      for i = lo, hi do f(t[i]) end
      return
    end
    local p = math.floor((lo + hi) / 2)
    if p - lo < hi - p then
      walk(t, lo, p - 1, f)
      lo = p + 1
    else
      walk(t, p + 1, hi, f)
      hi = p - 1
    end
  end
end
local t = {1, 5, 3, 9, 2, 8}
sift(t, 1, #t)
walk(t, 1, #t, print)
print(t[1], t[2], t[3])
