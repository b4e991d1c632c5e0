-- counters in table fields: obj.count = obj.count + 1 on records, fields
-- of a nested table, a histogram keyed by small integers
local stats = {hits = 0, misses = 0, total = 0, max = 0}
for i = 1, 4500000 do
  stats.total = stats.total + 1
  if i % 4 == 0 then stats.misses = stats.misses + 1 else stats.hits = stats.hits + 1 end
  if i > stats.max then stats.max = i end
end
local world = {player = {pos = {x = 0, y = 0}, score = 0}}
for i = 1, 1500000 do
  local p = world.player
  p.pos.x = p.pos.x + 1
  p.pos.y = p.pos.y - 1
  p.score = p.score + p.pos.x % 3
end
local hist = {}
for i = 1, 10 do hist[i] = 0 end
for i = 1, 2000000 do local b = i % 10 + 1; hist[b] = hist[b] + 1 end
print(stats.hits, stats.misses, stats.total, stats.max)
print(world.player.pos.x, world.player.pos.y, world.player.score, hist[1], hist[10])
