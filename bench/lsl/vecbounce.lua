-- The twin of vecbounce.lsl, three numbers a vector.
local ROUNDS, STEPS = 2000, 2000
local gx, gy, gz = 0.0, 0.0, -0.5
local near, energy = 0, 0.0
for r = 0, ROUNDS - 1 do
  local px, py, pz = r % 5 + 0.0, r % 3 + 0.0, 8.0
  local vx, vy, vz = 0.25, -0.125, 0.375
  local cx, cy, cz = 2.0, 1.0, 4.0
  for i = 0, STEPS - 1 do
    vx, vy, vz = vx + gx * 0.25, vy + gy * 0.25, vz + gz * 0.25
    px, py, pz = px + vx, py + vy, pz + vz
    if pz < 0.0 then
      pz = -pz
      vz = -vz
    end
    if px > 16.0 or px < -16.0 then vx = -vx end
    if py < -16.0 or py > 16.0 then vx, vy, vz = vx, -vy, vz end
    local dx, dy, dz = px - cx, py - cy, pz - cz
    local d2 = dx * dx + dy * dy + dz * dz
    if d2 < 16.0 then near = near + 1 end
    energy = energy + d2
    if energy > 65536.0 then energy = energy - 65536.0 end
  end
end
print("vecbounce " .. near .. " " .. math.floor(energy))
