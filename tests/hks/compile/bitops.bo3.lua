-- Black Ops 3's bit operators next to arithmetic and comparisons
local a, b = 12, 5
local r = { a << 2, a >> 1, a & b, a | b, 1 << b, 3 & 1 | 4, a << b + 1, (a | b) == 13 }
print(r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8])
