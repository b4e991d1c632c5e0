-- generic for over Lua iterators (run inside the interpreter's loop):
-- results, errors, yields, tail calls and the C-boundary depth
local function range(n)
  local i = 0
  return function() i = i + 1; if i <= n then return i, i * i, -i end end
end
local s = 0
for a in range(5) do s = s + a end
print("one var", s)
for a, b, c, d in range(3) do print("four vars", a, b, c, d) end
for a, b in function(st, c) if c < 3 then return c + 1 end end, nil, 0 do print("stateless", a, b) end
-- an iterator whose return is a tail call (to a Lua function and to next)
local t = {x = 1}
local function tnext(tt, k) return next(tt, k) end
for k, v in tnext, t do print("tail to C", k, v) end
local function step(st, c) if c < 2 then return c + 1, "v" .. c end end
local function tl(st, c) return step(st, c) end
for c, v in tl, nil, 0 do print("tail to Lua", c, v) end
-- an error in the iterator, caught by pcall around the loop
local ok, msg = pcall(function()
  for v in function(_, c) if c == 2 then error("boom at " .. c) end return (c or 0) + 1 end do end
end)
print("error", ok, msg)
-- the loop goes on after a caught error, iterators still nest
local n = 0
for i in range(3) do for j in range(i) do n = n + j end end
print("nested", n)
-- a yield inside a Lua iterator crosses the for's boundary, as in Lua 5.1;
-- a yield in the loop's body does not
local co = coroutine.create(function()
  for v in function(_, c) c = (c or 0) + 1; if c <= 2 then coroutine.yield(c) return c end end do end
end)
local okc, mc = coroutine.resume(co) -- (gsvm's message has a position, lua5.1's none)
print("yield in iterator", okc, (string.find(mc, "attempt to yield across metamethod/C-call boundary", 1, true)) ~= nil)
co = coroutine.wrap(function() for v in range(3) do coroutine.yield(v) end return "done" end)
print("yield in body", co(), co(), co(), co())
-- iterators that recurse through generic fors reach the C-boundary limit
local function deep(d)
  for v in function(_, c) if not c then return deep(d + 1) end end do end
  return d
end
local ok2, msg2 = pcall(deep, 1)
print("deep", ok2, (string.find(msg2, "stack overflow", 1, true)) ~= nil)
local function shallow(d)
  if d == 0 then return 0 end
  for v in function(_, c) if not c then return shallow(d - 1) + 1 end end do return v end
end
print("shallow", shallow(50))
