-- The same algorithm as int_loop.lsl (Lua integers are 64-bit, so the sum
-- differs; the work does not).
local i, sum = 0, 0
while i < 3000000 do
    sum = sum + i * 3 - 7
    i = i + 1
end
print(sum)
