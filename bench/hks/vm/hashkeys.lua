-- hash-key lookups with string keys: records by field name, a dictionary of
-- words, counting with t[k] = (t[k] or 0) + 1, nested field paths
local recs = {}
for i = 1, 50000 do recs[i] = {name = "r" .. i, hp = i % 100, mana = i % 37, level = i % 10} end
local total = 0
for r = 1, 10 do
  for i = 1, #recs do
    local e = recs[i]
    total = total + e.hp + e.mana * e.level
    e.hp = e.hp + 1
  end
end
local words = {"alpha", "beta", "gamma", "delta", "eps", "zeta", "eta", "theta", "iota", "kappa"}
local counts = {}
for i = 1, 1000000 do
  local w = words[i % 10 + 1]
  counts[w] = (counts[w] or 0) + 1
end
local cfg = {video = {res = {w = 1920, h = 1080}, vsync = true}, audio = {vol = 3}}
local s = 0
for i = 1, 1000000 do s = s + cfg.video.res.w + cfg.audio.vol end
print(total, counts.alpha, counts.kappa, s)
