-- values whose tests exit both with a value and with a constant: `not a`
-- or a comparison jumps to a LOADBOOL pair (true or false), the other
-- operands carry their own value to the end, and the value computed last
-- jumps over the pair (Lua 5.1's exp2reg when a jump needs a value)
local function f(a, b, c)
  return not a or b or c
end
local function g(a, b, c)
  return a or not b or c
end
local function h(a, b, n)
  local v = a or n > 3 or b
  return v
end
local function k(a, b)
  return a and not b and a
end
print(f(nil, nil, 3), f(1, nil, nil), g(nil, 1, 5), g(nil, nil, 5), h(nil, 9, 5), h(nil, 9, 1))
print(k(1, nil), k(1, 2), k(nil, nil))
