-- The twin of strings.lua for LuaJIT (Lua 5.1: no math.tointeger); the
-- same result.
local ROUNDS = 1800
local N = 600
local total = 0
for r = 1, ROUNDS do
  local s = ""
  for i = 0, N - 1 do
    s = s .. tostring((i * 7 + r) % 1000) .. ";"
  end
  total = total + #s
  local at = string.find(s, "99", 1, true)
  total = total + (at and at - 1 or -1)
  local cut = s:sub(101, 200)
  total = total + #cut + (tonumber(s:sub(1, 2):match("^%d+")) or 0)
  local words = 0
  for i = 0, 199 do
    if s:sub(i + 1, i + 1) == ";" then words = words + 1 end
  end
  total = total + words
end
print("strings " .. total)
