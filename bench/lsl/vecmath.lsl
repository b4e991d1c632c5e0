// Float vector math: a particle stepped with vector adds, scaling and a dot
// product each iteration, bounced inside a box; every value a multiple of
// 1/16 below 2^16 so float32 and double agree.  The twin of vecmath.lua.
integer ROUNDS = 3000;
integer STEPS = 2000;

default
{
    state_entry()
    {
        float sum = 0.0;
        integer r;
        for (r = 0; r < ROUNDS; ++r)
        {
            vector p = <r % 7, 1.0, 2.0>;
            vector v = <0.5, 0.25, 0.125>;
            integer i;
            for (i = 0; i < STEPS; ++i)
            {
                p = p + v * 2.0;
                if (p.x > 64.0 || p.x < 0.0) v.x = -v.x;
                if (p.y > 64.0 || p.y < 0.0) v.y = -v.y;
                if (p.z > 64.0 || p.z < 0.0) v.z = -v.z;
                sum += p * <1.0, 0.5, 0.25>;
                if (sum > 32768.0)
                    sum -= 32768.0;
            }
        }
        llOwnerSay("vecmath " + (string)((integer)sum));
    }
}
