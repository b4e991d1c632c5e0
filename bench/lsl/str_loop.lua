-- The same algorithm as str_loop.lsl.
local n, last = 0, nil
while n < 3000 do
    local s = ""
    local i = 0
    while i < 100 do
        s = s .. tostring(i) .. ","
        i = i + 1
    end
    last = s
    n = n + 1
end
print(last)
