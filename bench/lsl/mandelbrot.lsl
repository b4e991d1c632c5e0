// Mandelbrot escape counts on a 128x128 grid over [-2,1]x[-1,1], at most 60
// iterations a point, the whole grid ROUNDS times; the twin of mandelbrot.lua.
// The grid steps are powers of two apart, so LSL's float32 variables (double
// temporaries, as Mono) and Lua's doubles give the same counts (checksum
// 327238 a round); at 64 iterations one point of the grid escapes apart.
integer ROUNDS = 40;
integer N = 128;
integer MAXI = 60;

default
{
    state_entry()
    {
        integer sum = 0;
        float stepx = 3.0 / N;
        float stepy = 2.0 / N;
        integer r;
        for (r = 0; r < ROUNDS; ++r)
        {
            integer y;
            for (y = 0; y < N; ++y)
            {
                float ci = y * stepy - 1.0;
                integer x;
                for (x = 0; x < N; ++x)
                {
                    float cr = x * stepx - 2.0;
                    float zr = 0.0;
                    float zi = 0.0;
                    float zr2 = 0.0;
                    float zi2 = 0.0;
                    integer i = 0;
                    while (i < MAXI && zr2 + zi2 <= 4.0)
                    {
                        zi = 2.0 * zr * zi + ci;
                        zr = zr2 - zi2 + cr;
                        zr2 = zr * zr;
                        zi2 = zi * zi;
                        ++i;
                    }
                    sum += i;
                }
            }
        }
        llOwnerSay("mandelbrot " + (string)sum);
    }
}
