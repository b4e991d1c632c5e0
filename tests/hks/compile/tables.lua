-- table constructors: empty, array, hash, mixed, more than one SETLIST batch,
-- a last call or vararg that spreads, nested tables, computed keys
local function three() return 1, 2, 3 end
local t0 = {}
local t1 = { 1, 2, 3 }
local t2 = { a = 1, b = "two", ["c d"] = 3, [4] = 4, [true] = false }
local t3 = { 1, a = 2, 3, [10] = 4; 5; b = { c = { d = {} } } }
local t4 = { three() }
local t5 = { three(), three() }
local t6 = { (three()) }
local function v(...) return { ..., n = select('#', ...) } end
local big = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
  21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
  41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60,
  61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80,
  81, 82, 83, 84, 85, 86, 87, 88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100,
  101, 102, three() }
local k = "key"
local t7 = { [k] = k, [k .. "2"] = #k, [1 + 1] = 2 }
t7[k], t7.x, t7[#t7 + 1] = 1, 2, 3
print(#t0, #t1, t2.a, t3.b.c.d, #t4, #t5, #t6, v(1, nil, 3).n, #big, t7.key)
