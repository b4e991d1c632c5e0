-- many small records updated field by field (a particle system), and
-- counters kept in globals
local ps = {}
for i = 1, 2000 do ps[i] = {x = i, y = 0, vx = i % 7 - 3, vy = 1, alive = true, age = 0} end
ticks = 0
for step = 1, 4000 do
  ticks = ticks + 1
  for i = 1, #ps do
    local p = ps[i]
    if p.alive then
      p.x = p.x + p.vx
      p.y = p.y + p.vy
      p.age = p.age + 1
      if p.age > 2500 then p.alive = false end
    end
  end
end
local alive, sx = 0, 0
for i = 1, #ps do if ps[i].alive then alive = alive + 1 end sx = sx + ps[i].x end
print(ticks, alive, sx, ps[1].y)
