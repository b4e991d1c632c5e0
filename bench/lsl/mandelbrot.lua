-- Mandelbrot escape counts on a 128x128 grid over [-2,1]x[-1,1], at most 60
-- iterations a point, the whole grid ROUNDS times; the twin of mandelbrot.lsl.
-- The grid steps are powers of two apart, so LSL's float32 variables (double
-- temporaries, as Mono) and Lua's doubles give the same counts (checksum
-- 327238 a round); at 64 iterations one point of the grid escapes apart.
local ROUNDS = 40
local N, MAXI = 128, 60
local sum = 0
local stepx, stepy = 3.0 / N, 2.0 / N
for r = 1, ROUNDS do
  for y = 0, N - 1 do
    local ci = y * stepy - 1.0
    for x = 0, N - 1 do
      local cr = x * stepx - 2.0
      local zr, zi, zr2, zi2 = 0.0, 0.0, 0.0, 0.0
      local i = 0
      while i < MAXI and zr2 + zi2 <= 4.0 do
        zi = 2.0 * zr * zi + ci
        zr = zr2 - zi2 + cr
        zr2 = zr * zr
        zi2 = zi * zi
        i = i + 1
      end
      sum = sum + i
    end
  end
end
print("mandelbrot " .. sum)
