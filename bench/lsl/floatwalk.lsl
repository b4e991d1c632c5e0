// A float loop of a third shape beside mandelbrot and floatgrid: a float
// counter in a while loop, compound assignments (`x -= 65536.0`), an inner
// loop on a float, comparisons between two float locals; every value a
// whole number below 2^21 so float32 and double agree.  The twin of
// floatwalk.lua.
integer ROUNDS = 2000;

default
{
    state_entry()
    {
        float best = 0.0;
        float sum = 0.0;
        integer r;
        for (r = 0; r < ROUNDS; ++r)
        {
            float x = (float)r;
            float y = 7.0;
            float f = 0.0;
            while (f < 2000.0)
            {
                x = x * 5.0 + y;
                while (x >= 65536.0)
                    x -= 65536.0;
                y += 2.0;
                if (y > 1000.0)
                    y -= 999.0;
                if (x > best)
                    best = x;
                sum += x - y;
                if (sum > 1048576.0)
                    sum -= 1048576.0;
                else if (sum < 0.0)
                    sum += 1048576.0;
                f += 1.0;
            }
        }
        llOwnerSay("floatwalk " + (string)((integer)sum) + " " + (string)((integer)best));
    }
}
