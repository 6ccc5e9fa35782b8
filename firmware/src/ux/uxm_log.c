/*
 * log and log1p (ux/uxm.h). x = 2^k·(1 + f), √2/2 ≤ 1 + f < √2; with s = f/(2 + f),
 * log(1 + f) = 2s + s·R, R = Σ 2s^2n/(2n + 1) (atanh's series, truncated where its remainder is below
 * 2^-60 of the result: n ≤ 10, float n ≤ 5); written f − (f²/2 − s·(f²/2 + R)) so the large part f is
 * added last and exactly. k·ln2 is split as in uxm_exp.c.
 */
#define UXM_IMPLEMENTATION /* the definitions below, whatever UX_PLATFORM_LIBM says */
#include <math.h>

#include "ux/uxm.h"

#include "uxm_bits.h"

static const double LN2_HI = 0x1.62e42feep-1, LN2_LO = 0x1.a39ef35793c76p-33, SQRT2 = 0x1.6a09e667f3bcdp0;
static const float LN2_HIF = 0x1.62e4p-1f, LN2_LOF = 0x1.7f7d1cp-20f, SQRT2F = 0x1.6a09e6p0f;

/* k·ln2 + log(1 + f) + c, for a small correction c (log1p's rounding of 1 + x; 0 for log). */
static double log_parts(int k, double f, double c)
{
    double s = f / (2.0 + f), z = s * s;
    double R = 2.0 / 21.0;
    R = 2.0 / 19.0 + z * R;
    R = 2.0 / 17.0 + z * R;
    R = 2.0 / 15.0 + z * R;
    R = 2.0 / 13.0 + z * R;
    R = 2.0 / 11.0 + z * R;
    R = 2.0 / 9.0 + z * R;
    R = 2.0 / 7.0 + z * R;
    R = 2.0 / 5.0 + z * R;
    R = 2.0 / 3.0 + z * R;
    R = z * R;
    double hfsq = 0.5 * (f * f), dk = (double)k;
    return dk * LN2_HI - ((hfsq - (s * (hfsq + R) + (dk * LN2_LO + c))) - f);
}

static float log_partsf(int k, float f, float c)
{
    float s = f / (2.0f + f), z = s * s;
    float R = 2.0f / 11.0f;
    R = 2.0f / 9.0f + z * R;
    R = 2.0f / 7.0f + z * R;
    R = 2.0f / 5.0f + z * R;
    R = 2.0f / 3.0f + z * R;
    R = z * R;
    float hfsq = 0.5f * (f * f), dk = (float)k;
    return dk * LN2_HIF - ((hfsq - (s * (hfsq + R) + (dk * LN2_LOF + c))) - f);
}

/* x = 2^k·m, √2/2 ≤ m < √2, for a positive normal finite x: returns m, writes k. */
static double split(double x, int *k)
{
    uint64_t u = uxm_bits(x);
    *k = (int)(u >> 52) - 1023;
    double m = uxm_from_bits((u & 0x000fffffffffffffu) | 0x3ff0000000000000u);
    if (m >= SQRT2) {
        m = 0.5 * m;
        *k += 1;
    }
    return m;
}

static float splitf(float x, int *k)
{
    uint32_t u = uxm_bitsf(x);
    *k = (int)(u >> 23) - 127;
    float m = uxm_from_bitsf((u & 0x007fffffu) | 0x3f800000u);
    if (m >= SQRT2F) {
        m = 0.5f * m;
        *k += 1;
    }
    return m;
}

/* NaN, ±inf, 0, x < 0 and the subnormals (made normal by 2^54, float 2^25): what uxm_log's range test sends
 * here. */
static double log_edge(double x)
{
    if (x != x || x == INFINITY)
        return x + x;
    if (x == 0.0)
        return -INFINITY;
    if (x < 0.0)
        return NAN;
    int k;
    double m = split(x * 0x1p54, &k);
    return log_parts(k - 54, m - 1.0, 0.0);
}

static float logf_edge(float x)
{
    if (x != x || x == INFINITY)
        return x + x;
    if (x == 0.0f)
        return -INFINITY;
    if (x < 0.0f)
        return NAN;
    int k;
    float m = splitf(x * 0x1p25f, &k);
    return log_partsf(k - 25, m - 1.0f, 0.0f);
}

double uxm_log(double x)
{
    if (!(x >= 0x1p-1022 && x < INFINITY)) /* NaN fails it too */
        return log_edge(x);
    int k;
    double m = split(x, &k);
    return log_parts(k, m - 1.0, 0.0); /* m − 1 exact (Sterbenz) */
}

float uxm_logf(float x)
{
    if (!(x >= 0x1p-126f && x < INFINITY))
        return logf_edge(x);
    int k;
    float m = splitf(x, &k);
    return log_partsf(k, m - 1.0f, 0.0f);
}

double uxm_log1p(double x)
{
    if (x != x || x == INFINITY)
        return x + x;
    if (x == -1.0)
        return -INFINITY;
    if (x < -1.0)
        return NAN;
    if (x > -0x1p-54 && x < 0x1p-54)
        return x; /* keeps −0 */
    double u = 1.0 + x; /* at least 2^-53: normal, as split needs */
    int k;
    double m = split(u, &k);
    if (k == 0)
        return log_parts(0, x, 0.0); /* 1 + x = m: f is x itself, exactly */
    /* 1 + x = u + c exactly (two-sum: c is u's rounding error); log(u + c) = log u + c/u to within c²/u². */
    double b = u - 1.0, c = (1.0 - (u - b)) + (x - b);
    return log_parts(k, m - 1.0, c / u);
}

float uxm_log1pf(float x)
{
    if (x != x || x == INFINITY)
        return x + x;
    if (x == -1.0f)
        return -INFINITY;
    if (x < -1.0f)
        return NAN;
    if (x > -0x1p-25f && x < 0x1p-25f)
        return x;
    float u = 1.0f + x;
    int k;
    float m = splitf(u, &k);
    if (k == 0)
        return log_partsf(0, x, 0.0f);
    float b = u - 1.0f, c = (1.0f - (u - b)) + (x - b);
    return log_partsf(k, m - 1.0f, c / u);
}
