-- The twin of collatz.lua for LuaJIT (Lua 5.1: the bit library for & and >>).
local band, rshift = bit.band, bit.rshift
local ROUNDS = 3
local N = 100000
local total, longest = 0, 0
for r = 1, ROUNDS do
for i = 1, N - 1 do
  local n = i
  local steps = 0
  repeat
    if band(n, 1) ~= 0 then n = 3 * n + 1 else n = rshift(n, 1) end
    steps = steps + 1
  until n <= 1
  total = total + steps
  if steps > longest then longest = steps end
end
end
print("collatz " .. total .. " " .. longest)
