-- string library calls on short strings: sub, byte, char, upper, find,
-- rep and # (a Caesar cipher, a checksum, a search)
local text = string.rep("The quick brown fox jumps over the lazy dog. ", 40)
local n = #text
local sum = 0
for rep = 1, 2400 do
  for i = 1, n do sum = (sum + string.byte(text, i) * i) % 1000003 end
end
local out = {}
for rep = 1, 600 do
  for i = 1, n do
    local c = string.byte(text, i)
    if c >= 97 and c <= 122 then c = (c - 97 + rep) % 26 + 97 end
    out[i] = string.char(c)
  end
end
local enc = table.concat(out)
local found, pos = 0, 1
for rep = 1, 12000 do
  pos = 1
  while true do
    local s, e = string.find(text, "fox", pos, true)
    if not s then break end
    found = found + 1
    pos = e + 1
  end
end
local up = 0
for i = 1, 2400000 do up = up + #string.upper(string.sub(text, i % 100 + 1, i % 100 + 8)) end
print(sum, string.sub(enc, 1, 20), found, up)
