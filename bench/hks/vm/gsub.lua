-- patterns: gmatch to split words, gsub with a function and a string
-- replacement, match with captures
local line = "alpha=1, beta=22, gamma=333, delta=4444, epsilon=55555"
local words, total = 0, 0
for rep = 1, 100000 do
  for k, v in string.gmatch(line, "(%a+)=(%d+)") do
    words = words + 1
    total = total + #k + tonumber(v) % 7
  end
end
local s = 0
for rep = 1, 100000 do
  local r = string.gsub(line, "%d+", function(d) return #d end)
  s = s + #r
  local r2, n = string.gsub(line, "a", "A")
  s = s + n
end
local m = 0
for rep = 1, 200000 do
  local a, b = string.match("key" .. rep .. " = value" .. rep % 10, "^(%w+)%s*=%s*(%w+)$")
  if a then m = m + #a + #b end
end
print(words, total, s, m)
