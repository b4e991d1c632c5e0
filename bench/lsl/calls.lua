-- The twin of calls.lsl (mix's values have two fractional bits at most:
-- doubles agree with float32).
local N = 1000000

local function clamp(x, lo, hi)
  if x < lo then return lo end
  if x > hi then return hi end
  return x
end

local function mix(a, b, t)
  return a + (b - a) * t
end

local function gcdr(a, b)
  if b == 0 then return a end
  return gcdr(b, a % b)
end

local total = 0
for i = 0, N - 1 do
  total = total + clamp(i % 300 - 50, 0, 200)
  total = total + math.floor(mix(i % 1000 + 0.0, 500.0, 0.25))
  total = total + gcdr(i, 360)
end
print(string.format("calls %d", total))
