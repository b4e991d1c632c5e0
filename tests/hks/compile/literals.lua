-- HKS light userdata and 64-bit literals (every target reads them)
local a = 0x0hi
local b = 0xdeadbeefHI
local c = 0x10hl
local d = 0xfffffffffffffff0hl
local t = { a, b, c, d, [a] = c }
print(a, b, c, d, #t)
