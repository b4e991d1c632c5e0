// A second vector shape beside vecmath: a particle under gravity bouncing
// in a box, compound vector assignments (+=, *), a vector built from
// components, the squared distance to a centre as a dot product, a global
// vector.  Every value is a multiple of 1/64 below 2^17, so float32 and
// double agree.  The twin of vecbounce.lua.
integer ROUNDS = 2000;
integer STEPS = 2000;
vector G = <0.0, 0.0, -0.5>;

default
{
    state_entry()
    {
        integer near = 0;
        float energy = 0.0;
        integer r;
        for (r = 0; r < ROUNDS; ++r)
        {
            vector pos = <r % 5, r % 3, 8.0>;
            vector vel = <0.25, -0.125, 0.375>;
            vector centre = <2.0, 1.0, 4.0>;
            integer i;
            for (i = 0; i < STEPS; ++i)
            {
                vel += G * 0.25;
                pos += vel;
                if (pos.z < 0.0)
                {
                    pos.z = -pos.z;
                    vel.z = -vel.z;
                }
                if (pos.x > 16.0 || pos.x < -16.0)
                    vel.x = -vel.x;
                if (pos.y < -16.0 || pos.y > 16.0)
                    vel = <vel.x, -vel.y, vel.z>;
                vector d = pos - centre;
                float d2 = d * d;
                if (d2 < 16.0)
                    ++near;
                energy += d2;
                if (energy > 65536.0)
                    energy -= 65536.0;
            }
        }
        llOwnerSay("vecbounce " + (string)near + " " + (string)((integer)energy));
    }
}
