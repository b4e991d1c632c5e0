-- The same work as loop.lua, run by the reference interpreter.
local function work()
  local x = 0
  for i = 1, 1000000 do x = x + i % 7 end
  return x
end
for _ = 1, tonumber(arg[1] or 100) do work() end
