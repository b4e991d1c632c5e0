/* Native math functions: integer/float arithmetic, trigonometry, rounding,
 * random numbers, vectors and rotations.
 *
 * Floats are computed in double and stored as 32-bit floats, as Second
 * Life's Mono runtime does.  Where the wiki is unclear, the choice is
 * written next to the function. */
#include "lsl/lib_math.h"

#include <float.h>
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
     * raising a Math Error as LSO did; gsvm follows Mono, including its
     * corner cases: NaN in -> NaN (even to the power 0), x^0 = 1,
     * (+-1)^(+-inf) = NaN, and never -0.0. */
    double b = a[0].u.f, e = a[1].u.f;
    if (isnan(b) || isnan(e))
        return lsl_ret_float(ret, NAN);
    if (e == 0)
        return lsl_ret_float(ret, 1.0f);
    if (fabs(b) == 1.0 && isinf(e))
        return lsl_ret_float(ret, NAN);
    float r = (float)pow(b, e);
    return lsl_ret_float(ret, r == 0.0f ? 0.0f : r);
}

/* Mono's sine family: NaN for infinities, the argument itself beyond 2^63,
 * and integer-valued arguments reduced modulo 2*PI with the x87's 66-bit
 * PI (the constant below is that 2*PI times 2^64), so llSin(1e10) matches
 * Second Life rather than an exact reduction. */
static double trig_arg(double t, bool *passthrough)
{
    *passthrough = false;
    if (!(fabs(t) < 9223372036854775808.0)) {
        *passthrough = !isinf(t);
        return t;
    }
    if (t != floor(t))
        return t;
    static const unsigned __int128 two_pi_2_64 =
        ((unsigned __int128)6u << 64) | (unsigned __int128)0x487ED5110B4611A6u;
    double a = fabs(t);
    int e;
    double m = frexp(a, &e); /* a = m * 2^e, 0.5 <= m < 1 */
    uint64_t mant = (uint64_t)ldexp(m, 53);
    int shift = e - 53 + 64; /* a * 2^64 = mant * 2^shift */
    unsigned __int128 x = shift >= 0 ? (unsigned __int128)mant << shift : (unsigned __int128)(mant >> -shift);
    unsigned __int128 r = x % two_pi_2_64;
    if (t < 0 && r != 0)
        r = two_pi_2_64 - r; /* floor modulo, as the model */
    double hi = (double)(uint64_t)(r >> 64), lo = (double)(uint64_t)r;
    return ldexp(hi, 0) + ldexp(lo, -64);
}

#define TRIG(name, fn)                                                                  \
    gsvm_status lsl_lib_##name(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)    \
    {                                                                                   \
        double x = a[0].u.f;                                                            \
        if (isinf(x))                                                                   \
            return lsl_ret_float(ret, NAN);                                             \
        bool pass;                                                                      \
        double r = trig_arg(x, &pass);                                                  \
        return lsl_ret_float(ret, pass ? a[0].u.f : (float)fn(r));                      \
    }
TRIG(llSin, sin)
TRIG(llCos, cos)
TRIG(llTan, tan)

#define UNARY_FLOAT(name, expr)                                                 \
    gsvm_status lsl_lib_##name(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret) \
    {                                                                           \
        double x = a[0].u.f;                                                    \
        return lsl_ret_float(ret, (float)(expr));                               \
    }
UNARY_FLOAT(llAcos, acos(x)) /* NaN outside [-1, 1], as Mono */
UNARY_FLOAT(llAsin, asin(x))
/* llLog/llLog10 return 0.0 for val <= 0 and NaN (documented by SL). */
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
    /* floor(val + 0.5) with the addition done in 32-bit float, as SL: halves
     * round up (llRound(-2.5) == -2) and llRound(0.49999997) == 1. */
    float f = a[0].u.f;
    if (!(f >= -2147483648.0f && f < 2147483647.5f))
        return lsl_ret_int(ret, INT32_MIN);
    volatile float sum = f + 0.5f;
    return lsl_ret_int(ret, double_to_int(floor(sum)));
}

gsvm_status lsl_lib_llFrand(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* A float in [0, mag) (or (mag, 0] for a negative mag) from the script's
     * own seeded stream, so runs and snapshots are reproducible; truncated,
     * never rounded, to float.  Infinite mag gives 0, NaN gives NaN, a
     * magnitude below FLT_MIN gives (signed) zero. */
    float mag = a[0].u.f;
    if (!ctx->state)
        return gsvm_error_set(ctx->err, GSVM_ERR_USAGE, NULL, "llFrand needs a library state");
    double u = lsl_lib_random(ctx->state); /* advance even for the special cases */
    if (isinf(mag))
        return lsl_ret_float(ret, 0.0f);
    if (isnan(mag))
        return lsl_ret_float(ret, mag);
    if (fabsf(mag) < FLT_MIN)
        return lsl_ret_float(ret, mag < 0 ? -0.0f : 0.0f);
    double d = u * mag;
    float r = (float)d;
    if (fabs((double)r) > fabs(d))
        r = nextafterf(r, 0.0f);
    if (fabsf(r) >= fabsf(mag))
        r = 0.0f;
    return lsl_ret_float(ret, r);
}

gsvm_status lsl_lib_llModPow(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* Second Life's algorithm: all three read as unsigned 32-bit numbers;
     * modulus 0 or 1 gives 0, exponent 0 gives 1; each product is cut to
     * 32 bits BEFORE the modulo (so results differ from true modular
     * exponentiation once products exceed 2^32 -- a known SL quirk). */
    uint64_t b = (uint32_t)a[0].u.i, e = (uint32_t)a[1].u.i, m = (uint32_t)a[2].u.i;
    if (m <= 1)
        return lsl_ret_int(ret, 0);
    if (e == 0)
        return lsl_ret_int(ret, 1);
    uint64_t prod = b, r = 1;
    for (;;) {
        if (e & 1)
            r = ((r * prod) & 0xFFFFFFFFu) % m;
        e >>= 1;
        if (!e)
            break;
        prod = ((prod * prod) & 0xFFFFFFFFu) % m;
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
    /* Second Life's formula (the Hamilton product qx qy qz of the half-angle
     * turns, i.e. applied to a vector Z first, then Y, then X in the fixed
     * frame), followed by its choice of sign between q and -q. */
    double v0 = a[0].u.v[0], v1 = a[0].u.v[1], v2 = a[0].u.v[2];
    double c0 = cos(v0 * 0.5), s0 = sin(v0 * 0.5), c1 = cos(v1 * 0.5), s1 = sin(v1 * 0.5),
           c2 = cos(v2 * 0.5), s2 = sin(v2 * 0.5);
    float r[4] = {(float)(s0 * c1 * c2 + c0 * s1 * s2), (float)(c0 * s1 * c2 - s0 * c1 * s2),
                  (float)(c0 * c1 * s2 + s0 * s1 * c2), (float)(c0 * c1 * c2 - s0 * s1 * s2)};
    c0 = cos(v0); s0 = sin(v0); c1 = cos(v1); s1 = sin(v1); c2 = cos(v2); s2 = sin(v2);
    double d1 = c1 * c2, d2 = c0 * c2 - s0 * s1 * s2, d3 = c0 * c1;
    int i = 3;
    if (!(d1 + d2 + d3 > 0)) {
        i = 0;
        if (d2 > d1)
            i = 1;
        if (d1 < d3 && d3 > d2)
            i = 2;
    }
    float sign = r[i] < 0 ? -1.0f : 1.0f;
    *ret = lsl_rotation(r[0] * sign, r[1] * sign, r[2] * sign, r[3] * sign);
    return GSVM_OK;
}

/* Second Life renormalises a rotation only when its squared length is
 * outside [0x1.FFFFBCp-1, 0x1.000024p0]; all zeros count as identity. */
static void renorm(const float *in, double q[4])
{
    for (int i = 0; i < 4; i++)
        q[i] = in[i];
    if (q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0)
        q[3] = 1;
    double m2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
    if (m2 >= 1.0000021457672119140625 || m2 <= 0.99999797344207763671875) {
        double m = sqrt(m2);
        for (int i = 0; i < 4; i++)
            q[i] /= m;
    }
}

gsvm_status lsl_lib_llRot2Euler(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* The inverse of llEuler2Rot.  Near the poles (|sin Y| > 0.99999) X is
     * 0 and the whole turn about the vertical goes into Z. */
    double q[4];
    renorm(a[0].u.v, q);
    double x = q[0], y = q[1], z = q[2], s = q[3];
    double sy = 2 * (x * z + y * s);
    if (fabs(sy) > 0.99999)
        return ret_vec(ret, 0, asin(sy > 1 ? 1 : sy < -1 ? -1 : sy),
                       atan2(z * s + x * y, 0.5 - (x * x + z * z)));
    return ret_vec(ret, atan2(x * s - y * z, 0.5 - (x * x + y * y)), asin(sy),
                   atan2(z * s - x * y, 0.5 - (z * z + y * y)));
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
    /* fwd, left and up are the images of the x, y and z axes.  As SL: when
     * the trace is positive the quaternion is returned as computed (not
     * normalised); otherwise the largest diagonal element picks the branch
     * and the result is normalised. */
    const float *f = a[0].u.v, *l = a[1].u.v, *u = a[2].u.v;
    double t = (double)f[0] + l[1] + u[2], q[4];
    if (t > 0) {
        double r = sqrt(1 + t), k = 0.5 / r;
        return ret_rot(ret, k * ((double)l[2] - u[1]), k * ((double)u[0] - f[2]), k * ((double)f[1] - l[0]), r * 0.5);
    }
    if (l[1] <= f[0] && f[0] >= u[2]) {
        double r = sqrt(1.0 + f[0] - l[1] - u[2]), k = 0.5 / r;
        q[0] = r * 0.5; q[1] = k * ((double)f[1] + l[0]); q[2] = k * ((double)u[0] + f[2]); q[3] = k * ((double)l[2] - u[1]);
    } else if (f[0] <= l[1] && l[1] >= u[2]) {
        double r = sqrt(1.0 - f[0] + l[1] - u[2]), k = 0.5 / r;
        q[0] = k * ((double)f[1] + l[0]); q[1] = r * 0.5; q[2] = k * ((double)l[2] + u[1]); q[3] = k * ((double)u[0] - f[2]);
    } else {
        double r = sqrt(1.0 - f[0] - l[1] + u[2]), k = 0.5 / r;
        q[0] = k * ((double)u[0] + f[2]); q[1] = k * ((double)l[2] + u[1]); q[2] = r * 0.5; q[3] = k * ((double)f[1] - l[0]);
    }
    if (q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0)
        q[3] = 1;
    double m = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(m > 0) || !isfinite(m))
        return ret_rot(ret, 0, 0, 0, 1);
    return ret_rot(ret, q[0] / m, q[1] / m, q[2] / m, q[3] / m);
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
    /* llRot2Angle(a / b), all-zero rotations counting as identity. */
    float p[4], q[4];
    for (int i = 0; i < 4; i++) {
        p[i] = a[0].u.v[i];
        q[i] = a[1].u.v[i];
    }
    if (!p[0] && !p[1] && !p[2] && !p[3])
        p[3] = 1;
    if (!q[0] && !q[1] && !q[2] && !q[3])
        q[3] = 1;
    /* the product in double, then the angle of the result */
    double pd[4], cd[4] = {-(double)q[0], -(double)q[1], -(double)q[2], q[3]}, r[4];
    to_d(p, pd, 4);
    hamilton(cd, pd, r);
    return lsl_ret_float(ret, (float)(2 * atan2(sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]), fabs(r[3]))));
}

gsvm_status lsl_lib_llRotBetween(lsl_call_ctx *ctx, const lsl_value *a, lsl_value *ret)
{
    /* The shortest turn taking the direction of a onto that of b (SL's
     * algorithm): a zero vector gives ZERO_ROTATION; parallel vectors give
     * ZERO_ROTATION; opposite vectors turn PI about <a.y, -a.x, 0>
     * normalised, or about Z when a is vertical. */
    const float *v1 = a[0].u.v, *v2 = a[1].u.v;
    double d11 = (double)v1[0] * v1[0] + (double)v1[1] * v1[1] + (double)v1[2] * v1[2];
    double d22 = (double)v2[0] * v2[0] + (double)v2[1] * v2[1] + (double)v2[2] * v2[2];
    double aabb = sqrt(d11 * d22);
    if (aabb == 0)
        return ret_rot(ret, 0, 0, 0, 1);
    double ab = ((double)v1[0] * v2[0] + (double)v1[1] * v2[1] + (double)v1[2] * v2[2]) / aabb;
    double c[3] = {((double)v1[1] * v2[2] - (double)v1[2] * v2[1]) / aabb,
                   ((double)v1[2] * v2[0] - (double)v1[0] * v2[2]) / aabb,
                   ((double)v1[0] * v2[1] - (double)v1[1] * v2[0]) / aabb};
    double cc = c[0] * c[0] + c[1] * c[1] + c[2] * c[2];
    if (cc != 0) {
        double s = ab > -0.7071067811865476 ? 1 + ab : cc / (1 + sqrt(1 - cc));
        double m = sqrt(cc + s * s);
        return ret_rot(ret, c[0] / m, c[1] / m, c[2] / m, s / m);
    }
    if (ab > 0)
        return ret_rot(ret, 0, 0, 0, 1);
    double m = sqrt((double)v1[0] * v1[0] + (double)v1[1] * v1[1]);
    if (m != 0)
        return ret_rot(ret, v1[1] / m, -v1[0] / m, 0, 0);
    return ret_rot(ret, 0, 0, 1, 0);
}
