/*
 * sin and cos (ux/uxm.h). |x| ≤ π/4 goes to the kernels directly; a larger x is reduced to
 * x = n·π/2 + (y0 + y1), |y0 + y1| ≤ π/4, by uxm_reduce_pio2 (exact integer arithmetic), and the quadrant
 * n picks ±sin or ±cos of y0 + y1. The kernels are Taylor polynomials whose truncation error is below
 * 2^-58 of the result on |y| ≤ π/4 (sin to y^17, cos to y^18; float y^9, y^10).
 */
#define UXM_IMPLEMENTATION /* the definitions below, whatever UX_PLATFORM_LIBM says */
#include <math.h>

#include "ux/uxm.h"

#include "uxm_bits.h"
#include "uxm_reduce.h"
#include "uxm_trig_table.h"

static const double PIO4 = 0x1.921fb54442d18p-1;
static const float PIO4F = 0x1.921fb6p-1f;

/* sin(y0 + y1) = y0 + y0³·P(y0²) + y1·(1 − y0²/2), the last term the first order in the tail y1. */
static double ksin(double y0, double y1)
{
    double z = y0 * y0;
    double p = 1.0 / 355687428096000.0;
    p = -1.0 / 1307674368000.0 + z * p;
    p = 1.0 / 6227020800.0 + z * p;
    p = -1.0 / 39916800.0 + z * p;
    p = 1.0 / 362880.0 + z * p;
    p = -1.0 / 5040.0 + z * p;
    p = 1.0 / 120.0 + z * p;
    p = -1.0 / 6.0 + z * p;
    return y0 + ((z * y0) * p + (y1 - (0.5 * z) * y1));
}

/* cos(y0 + y1) = 1 − y0²/2 + y0⁴·Q(y0²) − y0·y1; 1 − y0²/2 is rounded once and its error ((1 − w) − h,
 * exact) added back, since that rounding alone is up to half an ulp of the result. */
static double kcos(double y0, double y1)
{
    double z = y0 * y0;
    double q = -1.0 / 6402373705728000.0;
    q = 1.0 / 20922789888000.0 + z * q;
    q = -1.0 / 87178291200.0 + z * q;
    q = 1.0 / 479001600.0 + z * q;
    q = -1.0 / 3628800.0 + z * q;
    q = 1.0 / 40320.0 + z * q;
    q = -1.0 / 720.0 + z * q;
    q = 1.0 / 24.0 + z * q;
    double h = 0.5 * z, w = 1.0 - h;
    return w + (((1.0 - w) - h) + ((z * z) * q - y0 * y1));
}

static float ksinf(float y0, float y1)
{
    float z = y0 * y0;
    float p = 1.0f / 362880.0f;
    p = -1.0f / 5040.0f + z * p;
    p = 1.0f / 120.0f + z * p;
    p = -1.0f / 6.0f + z * p;
    return y0 + ((z * y0) * p + (y1 - (0.5f * z) * y1));
}

static float kcosf(float y0, float y1)
{
    float z = y0 * y0;
    float q = -1.0f / 3628800.0f;
    q = 1.0f / 40320.0f + z * q;
    q = -1.0f / 720.0f + z * q;
    q = 1.0f / 24.0f + z * q;
    float h = 0.5f * z, w = 1.0f - h;
    return w + (((1.0f - w) - h) + ((z * z) * q - y0 * y1));
}

/* π/2 = PIO2_1 + PIO2_2 + PIO2_3 + PIO2_4 + O(2^-157): the first three have at most 33 significant bits, so
 * k·PIO2_i is exact for |k| < 2^20. */
static const double PIO2_1 = 0x1.921fb544p0, PIO2_2 = 0x1.0b4611a6p-34, PIO2_3 = 0x1.3198a2ep-69,
                    PIO2_4 = 0x1.b839a252049c1p-104, TWO_OVER_PI = 0x1.45f306dc9c883p-1;
#define MEDIUM 0x1p19 /* |x| below it: k < 2^19 */
#define MEDIUMF 0x1p16f /* float: k < 2^16 */

/* s + e = a + b exactly (Knuth's two-sum). */
static double two_sum(double a, double b, double *e)
{
    double s = a + b, bb = s - a;
    *e = (a - (s - bb)) + (b - bb);
    return s;
}

/* The reduction of reduce() for π/4 < |x| < MEDIUM, in doubles (Cody and Waite's, with the differences
 * carried exactly): x − k·PIO2_1 is exact, the next two pieces are subtracted with two-sums, and what is
 * left (rounding errors and k·PIO2_4) is below 2^-100 of |y|, since no double under 2^19 lies nearer a
 * multiple of π/2 than 2^-60. */
static int reduce_medium(double x, double *y0, double *y1)
{
    double kd = uxm_round(x * TWO_OVER_PI);
    double a = x - kd * PIO2_1, e1, e2;
    double s1 = two_sum(a, -(kd * PIO2_2), &e1);
    double s2 = two_sum(s1, -(kd * PIO2_3), &e2);
    double t = (e1 + e2) - kd * PIO2_4;
    *y0 = two_sum(s2, t, y1);
    return (int)((long)kd & 3);
}

/* x = n·π/2 + y0 + y1 for a finite |x| > π/4; returns n mod 4. */
static int reduce(double x, double *y0, double *y1)
{
    if (x > -MEDIUM && x < MEDIUM)
        return reduce_medium(x, y0, y1);
    uint64_t u = uxm_bits(x), mant[2];
    int e = (int)((u >> 52) & 0x7ff) - 1075, exp2, neg;
    int n = uxm_reduce_pio2((u & 0x000fffffffffffffu) | 0x0010000000000000u, e, mant, &exp2, &neg);
    /* |y| = (a + b·2^-11)·2^(exp2 + 75): a the top 53 bits of the mantissa (exact), b the rest (rounded). */
    double a = (double)(mant[0] >> 11), b = (double)(mant[0] & 0x7ffu) + (double)(mant[1] >> 11) * 0x1p-53;
    double hi = a + b * 0x1p-11, lo = (a - hi) + b * 0x1p-11; /* fast two-sum: |a| ≥ |b·2^-11| */
    double scale = (neg != (x < 0)) ? -uxm_pow2(exp2 + 75) : uxm_pow2(exp2 + 75);
    *y0 = hi * scale;
    *y1 = lo * scale;
    return x < 0 ? (4 - n) & 3 : n;
}

static float two_sumf(float a, float b, float *e)
{
    float s = a + b, bb = s - a;
    *e = (a - (s - bb)) + (b - bb);
    return s;
}

/* The reduction of reducef() for π/4 < |x| < MEDIUMF, in floats: π/2 = Σ UXM_PIO2F[i], pieces of at most 8
 * significant bits but the last (uxm_trig_table.h), so k·UXM_PIO2F[i] is exact for |k| < 2^16. The first two
 * differences are exact (their operands share a grid fine enough); the rest are two-sums whose errors are
 * summed apart; π/2 − Σ pieces is below 2^-73, which every float of the range (tried, each one) leaves
 * within the ulp bound. */
static int reduce_mediumf(float x, float *y0, float *y1)
{
    float kf = uxm_roundf(x * UXM_TWO_OVER_PIF);
    float s = (x - kf * UXM_PIO2F[0]) - kf * UXM_PIO2F[1], e = 0.0f, err;
    for (int i = 2; i < UXM_PIO2F_PIECES; i++) {
        s = two_sumf(s, -(kf * UXM_PIO2F[i]), &err);
        e += err;
    }
    *y0 = two_sumf(s, e, y1);
    return (int)kf & 3;
}

static int reducef(float x, float *y0, float *y1)
{
    if (x > -MEDIUMF && x < MEDIUMF)
        return reduce_mediumf(x, y0, y1);
    uint32_t u = uxm_bitsf(x);
    uint64_t mant[2];
    int e = (int)((u >> 23) & 0xff) - 150, exp2, neg;
    int n = uxm_reduce_pio2((u & 0x007fffffu) | 0x00800000u, e, mant, &exp2, &neg);
    /* |y| = (a + b·2^-24)·2^(exp2 + 104), a the top 24 bits, b the next 24 (the rest is below float's reach). */
    float a = (float)(uint32_t)(mant[0] >> 40), b = (float)(uint32_t)((mant[0] >> 16) & 0xffffffu);
    float hi = a + b * 0x1p-24f, lo = (a - hi) + b * 0x1p-24f;
    float scale = (neg != (x < 0)) ? -uxm_pow2f(exp2 + 104) : uxm_pow2f(exp2 + 104);
    *y0 = hi * scale;
    *y1 = lo * scale;
    return x < 0 ? (4 - n) & 3 : n;
}

/* sin(n·π/2 + y0 + y1): ±sin y or ±cos y by the quadrant n. */
static double quadrant(int n, double y0, double y1)
{
    double v = (n & 1) ? kcos(y0, y1) : ksin(y0, y1);
    return (n & 2) ? -v : v;
}

static float quadrantf(int n, float y0, float y1)
{
    float v = (n & 1) ? kcosf(y0, y1) : ksinf(y0, y1);
    return (n & 2) ? -v : v;
}

double uxm_sin(double x)
{
    double ax = x < 0 ? -x : x;
    if (x != x || ax == (double)INFINITY)
        return x - x; /* NaN */
    if (ax < 0x1p-26)
        return x; /* sin x = x(1 − x²/6) rounds to x; keeps −0 */
    if (ax <= PIO4)
        return ksin(x, 0.0);
    double y0, y1;
    int n = reduce(x, &y0, &y1);
    return quadrant(n, y0, y1);
}

double uxm_cos(double x)
{
    double ax = x < 0 ? -x : x;
    if (x != x || ax == (double)INFINITY)
        return x - x;
    if (ax <= PIO4)
        return kcos(x, 0.0);
    double y0, y1;
    int n = reduce(x, &y0, &y1);
    return quadrant(n + 1, y0, y1); /* cos y = sin(y + π/2) */
}

float uxm_sinf(float x)
{
    float ax = x < 0 ? -x : x;
    if (x != x || ax == (float)INFINITY)
        return x - x;
    if (ax < 0x1p-12f)
        return x;
    if (ax <= PIO4F)
        return ksinf(x, 0.0f);
    float y0, y1;
    int n = reducef(x, &y0, &y1);
    return quadrantf(n, y0, y1);
}

float uxm_cosf(float x)
{
    float ax = x < 0 ? -x : x;
    if (x != x || ax == (float)INFINITY)
        return x - x;
    if (ax <= PIO4F)
        return kcosf(x, 0.0f);
    float y0, y1;
    int n = reducef(x, &y0, &y1);
    return quadrantf(n + 1, y0, y1);
}
