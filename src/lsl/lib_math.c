/* Native math functions: integer/float arithmetic, trigonometry, rounding,
 * random numbers, vectors and rotations.
 *
 * Floats are computed in double and stored as 32-bit floats, as Second
 * Life's Mono runtime does.  Where the wiki is unclear, the choice is
 * written next to the function. */
#include "lsl/lib_math.h"

#include <math.h>

#include "lsl/lib.h"

#define PI_D 3.14159265358979323846

/* ---- vector/rotation helpers --------------------------------------------- */

static void hamilton(const double p[4], const double q[4], double out[4])
{
    /* p ⊗ q with (x, y, z, w) layout */
    double x = p[3] * q[0] + p[0] * q[3] + p[1] * q[2] - p[2] * q[1];
    double y = p[3] * q[1] - p[0] * q[2] + p[1] * q[3] + p[2] * q[0];
    double z = p[3] * q[2] + p[0] * q[1] - p[1] * q[0] + p[2] * q[3];
    double w = p[3] * q[3] - p[0] * q[0] - p[1] * q[1] - p[2] * q[2];
    out[0] = x; out[1] = y; out[2] = z; out[3] = w;
}

static void to_d(const float *f, double *d, int n)
{
    for (int i = 0; i < n; i++)
        d[i] = f[i];
}

void lsl_rot_mul(const float a[4], const float b[4], float out[4])
{
    double p[4], q[4], r[4];
    to_d(a, p, 4);
    to_d(b, q, 4);
    hamilton(q, p, r);
    for (int i = 0; i < 4; i++)
        out[i] = (float)r[i];
}

void lsl_rot_div(const float a[4], const float b[4], float out[4])
{
    float c[4] = {-b[0], -b[1], -b[2], b[3]};
    lsl_rot_mul(a, c, out);
}

static void vec_rot_d(const double v[3], const double r[4], double out[3])
{
    double p[4] = {v[0], v[1], v[2], 0}, c[4] = {-r[0], -r[1], -r[2], r[3]}, t[4], u[4];
    hamilton(r, p, t);
    hamilton(t, c, u);
    out[0] = u[0]; out[1] = u[1]; out[2] = u[2];
}

void lsl_vec_rot(const float v[3], const float r[4], float out[3])
{
    double dv[3], dr[4], o[3];
    to_d(v, dv, 3);
    to_d(r, dr, 4);
    vec_rot_d(dv, dr, o);
    for (int i = 0; i < 3; i++)
        out[i] = (float)o[i];
}

void lsl_vec_unrot(const float v[3], const float r[4], float out[3])
{
    float c[4] = {-r[0], -r[1], -r[2], r[3]};
    lsl_vec_rot(v, c, out);
}

float lsl_vec_dot(const float a[3], const float b[3])
{
    return (float)((double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2]);
}

void lsl_vec_cross(const float a[3], const float b[3], float out[3])
{
    double x = (double)a[1] * b[2] - (double)a[2] * b[1];
    double y = (double)a[2] * b[0] - (double)a[0] * b[2];
    double z = (double)a[0] * b[1] - (double)a[1] * b[0];
    out[0] = (float)x; out[1] = (float)y; out[2] = (float)z;
}

static gsvm_status ret_vec(lsl_value *ret, double x, double y, double z)
{
    *ret = lsl_vector((float)x, (float)y, (float)z);
    return GSVM_OK;
}

static gsvm_status ret_rot(lsl_value *ret, double x, double y, double z, double s)
{
    *ret = lsl_rotation((float)x, (float)y, (float)z, (float)s);
    return GSVM_OK;
}

/* A rotation scaled to unit length (identity if it is all zeros). */
static void unit_rot(const float *r, double q[4])
{
    double m = sqrt((double)r[0] * r[0] + (double)r[1] * r[1] + (double)r[2] * r[2] + (double)r[3] * r[3]);
    if (m == 0 || !isfinite(m)) {
        q[0] = q[1] = q[2] = 0;
        q[3] = 1;
        return;
    }
    for (int i = 0; i < 4; i++)
        q[i] = r[i] / m;
}

/* ---- integers and floats ------------------------------------------------- */

gsvm_status lsl_lib_llAbs(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* llAbs(-2147483648) stays -2147483648 (32-bit wrap, as SL). */
    uint32_t u = (uint32_t)a[0].u.i;
    return lsl_ret_int(ret, (int32_t)(a[0].u.i < 0 ? 0u - u : u));
}

gsvm_status lsl_lib_llFabs(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return lsl_ret_float(ret, fabsf(a[0].u.f));
}

gsvm_status lsl_lib_llSqrt(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* SL raises a Math Error for an imaginary result. */
    if (a[0].u.f < 0)
        return lsl_lib_raise(ctx, "Math Error");
    return lsl_ret_float(ret, (float)sqrt(a[0].u.f));
}

gsvm_status lsl_lib_llPow(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Mono returns NaN for an imaginary result (llPow(-1, 0.5)) rather than
     * raising; LSO raised a Math Error.  gsvm follows Mono. */
    return lsl_ret_float(ret, (float)pow(a[0].u.f, a[1].u.f));
}

#define UNARY_FLOAT(name, expr)                                                 \
    gsvm_status lsl_lib_##name(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret) \
    {                                                                           \
        double x = a[0].u.f;                                                    \
        return lsl_ret_float(ret, (float)(expr));                               \
    }
UNARY_FLOAT(llSin, sin(x))
UNARY_FLOAT(llCos, cos(x))
UNARY_FLOAT(llTan, tan(x))
UNARY_FLOAT(llAcos, acos(x)) /* NaN outside [-1, 1], as Mono */
UNARY_FLOAT(llAsin, asin(x))
/* llLog/llLog10 return 0.0 for val <= 0 (documented by SL). */
UNARY_FLOAT(llLog, x > 0 ? log(x) : 0.0)
UNARY_FLOAT(llLog10, x > 0 ? log10(x) : 0.0)

gsvm_status lsl_lib_llAtan2(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return lsl_ret_float(ret, (float)atan2(a[0].u.f, a[1].u.f));
}

static int32_t double_to_int(double d)
{
    if (!(d >= -2147483648.0 && d < 2147483648.0))
        return INT32_MIN; /* as the (integer) cast of an out-of-range float */
    return (int32_t)d;
}

gsvm_status lsl_lib_llFloor(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return lsl_ret_int(ret, double_to_int(floor(a[0].u.f)));
}

gsvm_status lsl_lib_llCeil(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return lsl_ret_int(ret, double_to_int(ceil(a[0].u.f)));
}

gsvm_status lsl_lib_llRound(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Halves round up (toward +infinity): llRound(2.5) == 3, llRound(-2.5) == -2,
     * i.e. floor(val + 0.5), computed in double so 0.49999997 stays 0. */
    return lsl_ret_int(ret, double_to_int(floor((double)a[0].u.f + 0.5)));
}

gsvm_status lsl_lib_llFrand(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* A float in [0, mag) (or (mag, 0] for negative mag) from the script's
     * own seeded stream, so runs and snapshots are reproducible. */
    float mag = a[0].u.f;
    if (!ctx->state)
        return gsvm_error_set(ctx->err, GSVM_ERR_USAGE, NULL, "llFrand needs a library state");
    float r = (float)(lsl_lib_random(ctx->state) * mag);
    if (mag != 0 && fabsf(r) >= fabsf(mag))
        r = nextafterf(mag, 0.0f);
    return lsl_ret_float(ret, r);
}

gsvm_status lsl_lib_llModPow(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* (base ^ exponent) % modulus with all three read as unsigned 32-bit
     * numbers (SL documents the result only for non-negative inputs);
     * modulus 0 gives 0. */
    uint64_t b = (uint32_t)a[0].u.i, e = (uint32_t)a[1].u.i, m = (uint32_t)a[2].u.i;
    if (m == 0)
        return lsl_ret_int(ret, 0);
    uint64_t r = 1 % m;
    b %= m;
    while (e) {
        if (e & 1)
            r = r * b % m;
        b = b * b % m;
        e >>= 1;
    }
    return lsl_ret_int(ret, (int32_t)(uint32_t)r);
}

/* ---- vectors ------------------------------------------------------------- */

static double vmag(const float *v)
{
    return sqrt((double)v[0] * v[0] + (double)v[1] * v[1] + (double)v[2] * v[2]);
}

gsvm_status lsl_lib_llVecMag(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return lsl_ret_float(ret, (float)vmag(a[0].u.v));
}

gsvm_status lsl_lib_llVecNorm(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* ZERO_VECTOR stays ZERO_VECTOR. */
    double m = vmag(a[0].u.v);
    if (m == 0)
        return ret_vec(ret, 0, 0, 0);
    return ret_vec(ret, a[0].u.v[0] / m, a[0].u.v[1] / m, a[0].u.v[2] / m);
}

gsvm_status lsl_lib_llVecDist(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    double dx = (double)a[0].u.v[0] - a[1].u.v[0], dy = (double)a[0].u.v[1] - a[1].u.v[1],
           dz = (double)a[0].u.v[2] - a[1].u.v[2];
    return lsl_ret_float(ret, (float)sqrt(dx * dx + dy * dy + dz * dz));
}

static double srgb_to_linear(double c)
{
    return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

static double linear_to_srgb(double c)
{
    return c <= 0.0031308 ? c * 12.92 : 1.055 * pow(c, 1.0 / 2.4) - 0.055;
}

gsvm_status lsl_lib_llsRGB2Linear(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return ret_vec(ret, srgb_to_linear(a[0].u.v[0]), srgb_to_linear(a[0].u.v[1]),
                   srgb_to_linear(a[0].u.v[2]));
}

gsvm_status lsl_lib_llLinear2sRGB(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    return ret_vec(ret, linear_to_srgb(a[0].u.v[0]), linear_to_srgb(a[0].u.v[1]),
                   linear_to_srgb(a[0].u.v[2]));
}

/* ---- rotations ----------------------------------------------------------- */

gsvm_status lsl_lib_llEuler2Rot(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Rotation about X, then Y, then Z (LSL's order), by half angles. */
    double hx = a[0].u.v[0] * 0.5, hy = a[0].u.v[1] * 0.5, hz = a[0].u.v[2] * 0.5;
    double cx = cos(hx), sx = sin(hx), cy = cos(hy), sy = sin(hy), cz = cos(hz), sz = sin(hz);
    return ret_rot(ret, sx * cy * cz - cx * sy * sz, cx * sy * cz + sx * cy * sz,
                   cx * cy * sz - sx * sy * cz, cx * cy * cz + sx * sy * sz);
}

gsvm_status lsl_lib_llRot2Euler(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* The inverse of llEuler2Rot; at the poles (Y = ±PI/2) X is 0 and the
     * whole turn about the vertical goes into Z. */
    double x = a[0].u.v[0], y = a[0].u.v[1], z = a[0].u.v[2], s = a[0].u.v[3];
    double sqx = x * x, sqy = y * y, sqz = z * z, sqs = s * s;
    double unit = sqx + sqy + sqz + sqs;
    if (unit == 0)
        return ret_vec(ret, 0, 0, 0);
    /* R = Rz Ry Rx from the quaternion's matrix: Y = asin(-R20),
     * X = atan2(R21, R22), Z = atan2(R10, R00). */
    double sy = 2 * (y * s - x * z) / unit;
    if (sy > 0.9999999 || sy < -0.9999999) {
        double r01 = 2 * (x * y - z * s), r11 = sqs - sqx + sqy - sqz;
        return ret_vec(ret, 0, sy > 0 ? PI_D / 2 : -PI_D / 2, atan2(-r01, r11));
    }
    return ret_vec(ret, atan2(2 * (y * z + x * s), sqs - sqx - sqy + sqz), asin(sy),
                   atan2(2 * (x * y + z * s), sqs + sqx - sqy - sqz));
}

/* Unit vector `axis` (0 x, 1 y, 2 z) rotated by q. */
static gsvm_status rot_axis(const lsl_value *a, int axis, lsl_value *ret)
{
    double q[4], v[3] = {0, 0, 0}, o[3];
    unit_rot(a[0].u.v, q);
    v[axis] = 1;
    vec_rot_d(v, q, o);
    return ret_vec(ret, o[0], o[1], o[2]);
}

gsvm_status lsl_lib_llRot2Fwd(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret) { return rot_axis(a, 0, ret); }
gsvm_status lsl_lib_llRot2Left(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret) { return rot_axis(a, 1, ret); }
gsvm_status lsl_lib_llRot2Up(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret) { return rot_axis(a, 2, ret); }

gsvm_status lsl_lib_llAxes2Rot(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* fwd, left and up are the images of the x, y and z axes: the columns
     * of the rotation matrix R[i][j] = axis_j[i]. */
    double R[3][3];
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 3; i++)
            R[i][j] = a[j].u.v[i];
    double t = R[0][0] + R[1][1] + R[2][2], x, y, z, s;
    if (t > 0) {
        double k = 0.5 / sqrt(t + 1);
        s = 0.25 / k;
        x = (R[2][1] - R[1][2]) * k;
        y = (R[0][2] - R[2][0]) * k;
        z = (R[1][0] - R[0][1]) * k;
    } else if (R[0][0] > R[1][1] && R[0][0] > R[2][2]) {
        double k = 2 * sqrt(1 + R[0][0] - R[1][1] - R[2][2]);
        s = (R[2][1] - R[1][2]) / k;
        x = 0.25 * k;
        y = (R[0][1] + R[1][0]) / k;
        z = (R[0][2] + R[2][0]) / k;
    } else if (R[1][1] > R[2][2]) {
        double k = 2 * sqrt(1 + R[1][1] - R[0][0] - R[2][2]);
        s = (R[0][2] - R[2][0]) / k;
        x = (R[0][1] + R[1][0]) / k;
        y = 0.25 * k;
        z = (R[1][2] + R[2][1]) / k;
    } else {
        double k = 2 * sqrt(1 + R[2][2] - R[0][0] - R[1][1]);
        s = (R[1][0] - R[0][1]) / k;
        x = (R[0][2] + R[2][0]) / k;
        y = (R[1][2] + R[2][1]) / k;
        z = 0.25 * k;
    }
    if (!isfinite(x + y + z + s))
        return ret_rot(ret, 0, 0, 0, 1);
    return ret_rot(ret, x, y, z, s);
}

gsvm_status lsl_lib_llAxisAngle2Rot(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    double m = vmag(a[0].u.v), h = a[1].u.f * 0.5;
    if (m == 0)
        return ret_rot(ret, 0, 0, 0, 1); /* no axis: no rotation */
    double k = sin(h) / m;
    return ret_rot(ret, a[0].u.v[0] * k, a[0].u.v[1] * k, a[0].u.v[2] * k, cos(h));
}

gsvm_status lsl_lib_llRot2Angle(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* The angle in [0, PI]: a rotation and its negation are the same turn. */
    double q[4];
    unit_rot(a[0].u.v, q);
    double v = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    return lsl_ret_float(ret, (float)(2 * atan2(v, fabs(q[3]))));
}

gsvm_status lsl_lib_llRot2Axis(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* The unit axis matching llRot2Angle's non-negative angle (so the axis
     * flips with the sign of s); ZERO_VECTOR for no rotation. */
    double q[4];
    unit_rot(a[0].u.v, q);
    double v = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2]);
    if (v == 0)
        return ret_vec(ret, 0, 0, 0);
    double k = (q[3] < 0 ? -1 : 1) / v;
    return ret_vec(ret, q[0] * k, q[1] * k, q[2] * k);
}

gsvm_status lsl_lib_llAngleBetween(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* The angle of the turn from a to b, in [0, PI]. */
    const float *p = a[0].u.v, *q = a[1].u.v;
    double dot = (double)p[0] * q[0] + (double)p[1] * q[1] + (double)p[2] * q[2] + (double)p[3] * q[3];
    double n = sqrt(((double)p[0] * p[0] + (double)p[1] * p[1] + (double)p[2] * p[2] + (double)p[3] * p[3]) *
                    ((double)q[0] * q[0] + (double)q[1] * q[1] + (double)q[2] * q[2] + (double)q[3] * q[3]));
    if (n == 0)
        return lsl_ret_float(ret, 0);
    double c = fabs(dot) / n;
    if (c > 1)
        c = 1;
    return lsl_ret_float(ret, (float)(2 * acos(c)));
}

gsvm_status lsl_lib_llRotBetween(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* The shortest turn taking the direction of a onto that of b.  Opposite
     * vectors turn PI about an axis perpendicular to a; a zero vector gives
     * ZERO_ROTATION. */
    double u[3], w[3];
    double mu = vmag(a[0].u.v), mw = vmag(a[1].u.v);
    if (mu == 0 || mw == 0)
        return ret_rot(ret, 0, 0, 0, 1);
    for (int i = 0; i < 3; i++) {
        u[i] = a[0].u.v[i] / mu;
        w[i] = a[1].u.v[i] / mw;
    }
    double d = u[0] * w[0] + u[1] * w[1] + u[2] * w[2];
    double c[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
    if (d < -0.999999) {
        /* axis: a perpendicular of u, built from the smallest component */
        double p[3] = {0, 0, 0};
        int k = fabs(u[0]) <= fabs(u[1]) && fabs(u[0]) <= fabs(u[2]) ? 0 : fabs(u[1]) <= fabs(u[2]) ? 1 : 2;
        p[k] = 1;
        double ax[3] = {u[1] * p[2] - u[2] * p[1], u[2] * p[0] - u[0] * p[2], u[0] * p[1] - u[1] * p[0]};
        double m = sqrt(ax[0] * ax[0] + ax[1] * ax[1] + ax[2] * ax[2]);
        return ret_rot(ret, ax[0] / m, ax[1] / m, ax[2] / m, 0);
    }
    double q[4] = {c[0], c[1], c[2], 1 + d};
    double m = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    return ret_rot(ret, q[0] / m, q[1] / m, q[2] / m, q[3] / m);
}
