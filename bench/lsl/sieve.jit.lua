-- The twin of sieve.lua for LuaJIT (Lua 5.1: no // or bitwise operators,
-- the bit library and math.floor instead); the same result.
local bit = require("bit")
local ROUNDS = 2000
local LIMIT = 2048
local WORDS = math.floor(LIMIT / 32)
local count, total = 0, 0
for r = 1, ROUNDS do
  local bits = {}
  for w = 1, WORDS do bits[w] = 0 end
  count, total = 0, 0
  for p = 2, LIMIT - 1 do
    local w = math.floor(p / 32) + 1
    if bit.band(bits[w], bit.lshift(1, p % 32)) == 0 then
      count = count + 1
      total = total + p
      local m = p * p
      while m < LIMIT do
        local mw = math.floor(m / 32) + 1
        bits[mw] = bit.bor(bits[mw], bit.lshift(1, m % 32))
        m = m + p
      end
    end
  end
end
print("sieve " .. count .. " " .. total)
