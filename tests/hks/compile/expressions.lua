-- expressions: operators, precedence, constant folding, comparisons with
-- constants on either side, logic chains, concatenation, literals
local a, b, s = 3, 4, "str"
local n1 = 1 + 2 * 3 - 4 / 2 % 3 ^ 2 ^ 0.5
local n2 = -a + -(-b) - -3
local n3 = 1 / 0
local n4 = 0 / 0
local n5 = 5 % 0
local n6 = 2 ^ 10 .. ""
local n7 = -0
local n8 = 0x1F + 0XaB + 1e3 + 1.5e-2 + .5 + 5. + 3e+2
local c1 = a < b, a <= b, a > b, a >= b, a == b, a ~= b
local c2 = 1 < a, 1 <= a, 1 > a, 1 >= a, 1 == a, 1 ~= a
local c3 = a < 1, "x" == s, nil == a, true ~= b, 1 == 1, "a" < "b"
local l1 = a and b, a or b, not a, not not a, a and b or s
local l2 = (a > 1 and b < 2) or (s == "x" and not b) or nil
local l3 = not (a and b), nil and a, false or nil, true and false
local cc = s .. a .. b .. "x" .. (a + b) .. s
local ln = #s + #{1, 2, 3} + #"abc"
local esc = "\a\b\f\n\r\t\v\\\"\'\065\10x\
continued" .. 'single' .. [[long
string]] .. [==[with ]] inside]==]
local p = (a), ((b)), (s):upper(), s:len()
local f = function(...) return ... end
local r = { f(1, 2), (f(1, 2)), f(f(3)) }
if a < b and b < 10 or s ~= "" then a = b end
while not (a > 20) do a = a + 1 end
local x = a > b and "big" or "small"
print(n1, n2, n3, n4 ~= n4, n5, n6, n7, n8, c1, c2, c3, l1, l2, l3, cc, ln, esc, p, x, #r)
print(s:sub(1, 2), s.len(s), ("x"):rep(3), print "lit", print { 1 })
