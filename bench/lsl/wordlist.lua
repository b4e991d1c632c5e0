-- The twin of wordlist.lsl (table.concat = llDumpList2String, gmatch =
-- llParseString2List with no empty parts).
local ROUNDS = 1500
local N = 400
local total = 0
for r = 0, ROUNDS - 1 do
  local words = {}
  for i = 0, N - 1 do words[#words + 1] = "w" .. tostring((i * 31 + r) % 97) end
  local joined = table.concat(words, ",")
  total = total + #joined
  local hits = 0
  for i = 1, N do
    if words[i] == "w7" then hits = hits + 1 end
  end
  total = total + hits
  local parts = {}
  for w in joined:gmatch("[^,]+") do parts[#parts + 1] = w end
  total = total + #parts + #parts[#parts]
end
print("wordlist " .. total)
