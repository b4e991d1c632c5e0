-- float arithmetic: a Mandelbrot set count
local w, h, iter = 700, 700, 100
local inside = 0
for y = 0, h - 1 do
  local ci = 2.0 * y / h - 1.0
  for x = 0, w - 1 do
    local cr = 2.5 * x / w - 2.0
    local zr, zi, n = 0.0, 0.0, 0
    while n < iter and zr * zr + zi * zi <= 4.0 do
      zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
      n = n + 1
    end
    if n == iter then inside = inside + 1 end
  end
end
print(inside)
