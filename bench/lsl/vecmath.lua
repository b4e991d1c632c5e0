-- Float vector math on three numbers a vector; the twin of vecmath.lsl.
local ROUNDS, STEPS = 3000, 2000
local sum = 0.0
for r = 0, ROUNDS - 1 do
  local px, py, pz = r % 7 + 0.0, 1.0, 2.0
  local vx, vy, vz = 0.5, 0.25, 0.125
  for i = 0, STEPS - 1 do
    px, py, pz = px + vx * 2.0, py + vy * 2.0, pz + vz * 2.0
    if px > 64.0 or px < 0.0 then vx = -vx end
    if py > 64.0 or py < 0.0 then vy = -vy end
    if pz > 64.0 or pz < 0.0 then vz = -vz end
    sum = sum + (px * 1.0 + py * 0.5 + pz * 0.25)
    if sum > 32768.0 then sum = sum - 32768.0 end
  end
end
print("vecmath " .. math.floor(sum))
