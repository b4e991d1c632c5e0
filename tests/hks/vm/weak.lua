-- weak tables (__mode "k", "v", "kv") after collectgarbage("collect"):
-- entries whose weak objects nothing else holds go, strings and numbers stay
local function count(t) local n = 0 for _ in pairs(t) do n = n + 1 end return n end
local wk = setmetatable({}, {__mode = "k"})
local wv = setmetatable({}, {__mode = "v"})
local wkv = setmetatable({}, {__mode = "kv"})
local strong = {}
local keep = {}
for i = 1, 10 do
  local o = {i}
  wk[o] = i
  wv[i] = {i}
  wkv[o] = "x"
  if i % 2 == 0 then keep[#keep + 1] = o; strong[i] = wv[i] end
end
wv.name = "a string"
wv.num = 42
wk.str = {}
collectgarbage("collect")
print(count(wk), count(wv), count(wkv))
print(wv.name, wv.num, wk.str ~= nil)
local sum = 0
for k, v in pairs(wk) do if type(k) == "table" then sum = sum + v end end
print(sum)
-- a cache of objects by name: the entries go once no caller holds them
local cache = setmetatable({}, {__mode = "v"})
local function get(name) local o = cache[name]; if not o then o = {name = name}; cache[name] = o end return o end
local held = get("held")
get("tmp1"); get("tmp2")
collectgarbage("collect")
print(cache.held == held, cache.tmp1, cache.tmp2)
-- a weak value table used as an array
local arr = setmetatable({}, {__mode = "v"})
for i = 1, 5 do arr[i] = (i == 3) and held or {} end
collectgarbage()
print(arr[3] == held, arr[1], arr[5])
-- a normal table keeps everything
local plain = {}
for i = 1, 5 do plain[{}] = i end
collectgarbage("collect")
print(count(plain), type(collectgarbage("count")))
