-- Takeuchi's function; the twin of tak.lsl.
local function tak(x, y, z)
  if y >= x then return z end
  return tak(tak(x - 1, y, z), tak(y - 1, z, x), tak(z - 1, x, y))
end
local total = 0
for r = 0, 11 do total = total + tak(22 + r % 2, 16, 8) end
print("tak " .. total)
