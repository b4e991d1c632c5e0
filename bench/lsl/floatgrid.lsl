// A float loop of another shape beside mandelbrot: a 2-D stencil over a
// grid of floats kept in locals (multiply-add chains, comparisons), every
// value a whole number below 2^20 so float32 and double agree; the twin of
// floatgrid.lua.
integer ROUNDS = 2000;
integer N = 300;

default
{
    state_entry()
    {
        float total = 0.0;
        integer r;
        for (r = 0; r < ROUNDS; ++r)
        {
            float a = 0.0;
            float b = 0.5;
            float c = 0.25;
            integer i;
            for (i = 0; i < N; ++i)
            {
                integer j;
                float row = 0.0;
                for (j = 0; j < 20; ++j)
                {
                    float t = a * 3.0 + b * 2.0 - c;
                    if (t > 8192.0)
                        t = t - 8192.0 * (integer)(t / 8192.0);
                    if (t < 0.0)
                        t = t + 8192.0;
                    a = b;
                    b = c;
                    c = t + 1.0;
                    row += c;
                }
                if (row > 4096.0)
                    row = row - 4096.0;
                total += row;
                if (total > 1048576.0)
                    total = total - 1048576.0;
            }
        }
        llOwnerSay("floatgrid " + (string)((integer)total));
    }
}
