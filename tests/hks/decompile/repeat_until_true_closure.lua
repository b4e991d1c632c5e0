-- repeat ... until true whose body's local is captured: the exit is a break
-- (CLOSE, JMP) followed by the body block's own CLOSE, so in stripped code
-- the do ... end block has to end after the second CLOSE, the break inside it
local fs = {}
repeat
  local once = "r"
  fs[#fs + 1] = function() return once end
until true
for i = 1, 2 do
  repeat
    local x = i * 2
    fs[#fs + 1] = function() return x end
  until true
end
print(#fs, fs[1](), fs[3]())
