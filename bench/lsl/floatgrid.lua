-- A float stencil loop; the twin of floatgrid.lsl.
local ROUNDS = 2000
local N = 300
local total = 0.0
for r = 0, ROUNDS - 1 do
  local a, b, c = 0.0, 0.5, 0.25
  for i = 0, N - 1 do
    local row = 0.0
    for j = 0, 19 do
      local t = a * 3.0 + b * 2.0 - c
      if t > 8192.0 then t = t - 8192.0 * math.floor(t / 8192.0) end
      if t < 0.0 then t = t + 8192.0 end
      a = b
      b = c
      c = t + 1.0
      row = row + c
    end
    if row > 4096.0 then row = row - 4096.0 end
    total = total + row
    if total > 1048576.0 then total = total - 1048576.0 end
  end
end
print("floatgrid " .. math.floor(total))
