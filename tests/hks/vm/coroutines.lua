-- coroutines: resume/yield values both ways, wrap, status, errors, generators
local function gen(n)
  return coroutine.wrap(function()
    for i = 1, n do coroutine.yield(i, i * i) end
    return "done"
  end)
end
local g = gen(3)
print(g()) print(g()) print(g()) print(g())
local co = coroutine.create(function(a, b)
  print("start", a, b)
  local c = coroutine.yield(a + b)
  print("got", c)
  local d, e = coroutine.yield(c * 2)
  print("got", d, e)
  return d + e, "end"
end)
print(coroutine.status(co))
print(coroutine.resume(co, 1, 2))
print(coroutine.status(co))
print(coroutine.resume(co, 10))
print(coroutine.resume(co, 3, 4))
print(coroutine.status(co), coroutine.resume(co))
local bad = coroutine.create(function() error("inside") end)
print(coroutine.resume(bad))
local bad2 = coroutine.create(function() error({code = 7}) end)
local ok, e = coroutine.resume(bad2)
print(ok, type(e), e.code)
print(coroutine.running())
local inner = coroutine.wrap(function()
  local co2 = coroutine.running()
  print(type(co2), coroutine.status(co2))
  coroutine.yield(1)
end)
inner()
-- producer / consumer
local function producer()
  return coroutine.create(function()
    for _, w in ipairs({"alpha", "beta", "gamma"}) do coroutine.yield(w) end
  end)
end
local p, out = producer(), {}
while true do
  local ok2, w = coroutine.resume(p)
  if not w then break end
  out[#out + 1] = w:upper()
end
print(table.concat(out, "+"), coroutine.status(p))
print(pcall(coroutine.yield, 1))
