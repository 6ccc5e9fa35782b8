/*
 * exp and expm1 (ux/uxm.h). expm1: x = k·ln2 + r, |r| ≤ ln2/2, with k·ln2 split in two parts (hi exact, lo
 * small) so r carries no error from the reduction; e^r − 1 is a Taylor polynomial (its truncation error is
 * below 2^-57 of the result on that interval: degree 13 for double, 8 for float); then scaling by 2^k.
 * exp reduces further, by ln2/64 with a table of 2^(j/64) (float: ln2/32, 2^(j/32); uxm_exp_table.h), so that a
 * degree-6 polynomial does (float: 4): half the dependent operations, for the function the filter calls most.
 */
#define UXM_IMPLEMENTATION /* the definitions below, whatever UX_PLATFORM_LIBM says */
#include "ux/uxm.h"

#include "uxm_bits.h"
#include "uxm_exp_table.h"

/* ln2 = LN2_HI + LN2_LO; LN2_HI has 32 significant bits (float: 16), so k·LN2_HI is exact for every k
 * that can occur (|k| < 2^11, float 2^8). */
static const double LN2_HI = 0x1.62e42feep-1, LN2_LO = 0x1.a39ef35793c76p-33, INV_LN2 = 0x1.71547652b82fep0;
static const float LN2_HIF = 0x1.62e4p-1f, LN2_LOF = 0x1.7f7d1cp-20f, INV_LN2F = 0x1.715476p0f;
/* ln2/64 in the same two parts (exact quotients of the above); n·LN2_64_HI is exact for |n| < 2^21. */
#define EXP_TABLE_N (1 << UXM_EXP_TABLE_BITS)
static const double LN2_64_HI = 0x1.62e42feep-1 / EXP_TABLE_N, LN2_64_LO = 0x1.a39ef35793c76p-33 / EXP_TABLE_N,
                    INV_LN2_64 = 0x1.71547652b82fep0 * EXP_TABLE_N;

/* e^r − 1 − r for |r| ≤ ln2/2: r²·(1/2! + r/3! + … + r^11/13!). */
static double expm1_tail(double r)
{
    double p = 1.0 / 6227020800.0;
    p = 1.0 / 479001600.0 + r * p;
    p = 1.0 / 39916800.0 + r * p;
    p = 1.0 / 3628800.0 + r * p;
    p = 1.0 / 362880.0 + r * p;
    p = 1.0 / 40320.0 + r * p;
    p = 1.0 / 5040.0 + r * p;
    p = 1.0 / 720.0 + r * p;
    p = 1.0 / 120.0 + r * p;
    p = 1.0 / 24.0 + r * p;
    p = 1.0 / 6.0 + r * p;
    p = 0.5 + r * p;
    return (r * r) * p;
}

static float expm1_tailf(float r)
{
    float p = 1.0f / 40320.0f;
    p = 1.0f / 5040.0f + r * p;
    p = 1.0f / 720.0f + r * p;
    p = 1.0f / 120.0f + r * p;
    p = 1.0f / 24.0f + r * p;
    p = 1.0f / 6.0f + r * p;
    p = 0.5f + r * p;
    return (r * r) * p;
}

/* e^r − 1 − r for |r| ≤ ln2/128: r²·(1/2! + r/3! + … + r^4/6!); the next term is below 2^-64 of e^r. */
static double expm1_tail_small(double r)
{
    double p = 1.0 / 720.0;
    p = 1.0 / 120.0 + r * p;
    p = 1.0 / 24.0 + r * p;
    p = 1.0 / 6.0 + r * p;
    p = 0.5 + r * p;
    return (r * r) * p;
}

/* e^(hi − lo) − 1 − (hi − lo), from the rounded r = hi − lo: the tail at r plus its slope (≈ r) times r's
 * rounding error c, which would otherwise cost up to a third of an ulp of expm1 near |r| = ln2/2. */
static double tail(double hi, double lo)
{
    double r = hi - lo, c = (hi - r) - lo;
    return expm1_tail(r) + c * r;
}

/* e^r − 1 − r for |r| ≤ ln2/64 (float): r²·(1/2! + r/3! + r²/4!); the next term is below 2^-39 of e^r. */
static float expm1_tail_smallf(float r)
{
    float p = 1.0f / 24.0f;
    p = 1.0f / 6.0f + r * p;
    p = 0.5f + r * p;
    return (r * r) * p;
}

static float tailf(float hi, float lo)
{
    float r = hi - lo, c = (hi - r) - lo;
    return expm1_tailf(r) + c * r;
}

/* 2^k·(1 + v) for a result below the normals (2^k·(1 + v) < 2^-1022), rounded once: forming 1 + v first and
 * then scaling would round twice. y = 2^(k+1022)·(1 + v) < 1 is kept as y + e exactly; adding 1 rounds it on
 * the grid of 2^-52, which 2^-1022 maps onto the subnormals' own; removing the 1 and scaling are exact. */
static double subnormal(double v, int k)
{
    double s = uxm_pow2(k + 1022), sv = s * v;
    double y = s + sv, e = (s - y) + sv;
    double one = 1.0 + y;
    e = ((1.0 - one) + y) + e;
    return ((one + e) - 1.0) * 0x1p-1022;
}

static float subnormalf(float v, int k)
{
    float s = uxm_pow2f(k + 126), sv = s * v;
    float y = s + sv, e = (s - y) + sv;
    float one = 1.0f + y;
    e = ((1.0f - one) + y) + e;
    return ((one + e) - 1.0f) * 0x1p-126f;
}

/* x = n·ln2/64 + r = (64k + j)·ln2/64 + r: e^x = 2^k · 2^(j/64) · (1 + v), v = e^r − 1, and
 * 2^(j/64)·(1 + v) = t_hi + s to well below t_hi's last place. */
struct exp_parts {
    double t_hi, s, v;
    int k, j;
};

static inline struct exp_parts exp_parts(double x)
{
    struct exp_parts p;
    double nd = uxm_round(x * INV_LN2_64);
    int n = (int)nd;
    p.j = n & (EXP_TABLE_N - 1);
    p.k = (n - p.j) / EXP_TABLE_N;
    double hi = x - nd * LN2_64_HI, lo = nd * LN2_64_LO; /* hi exact (Sterbenz) */
    double r = hi - lo, c = (hi - r) - lo;
    p.v = hi + ((expm1_tail_small(r) + c * r) - lo);
    p.t_hi = UXM_EXP2[2 * p.j];
    p.s = p.t_hi * p.v + UXM_EXP2[2 * p.j + 1];
    return p;
}

/* NaN, overflow, underflow and the results near the subnormals: what uxm_exp's range test sends here. */
static double exp_edge(double x)
{
    if (x != x)
        return x + x;
    if (x > 710.0)
        return x * 0x1p1023; /* +inf */
    if (x < -746.0)
        return 0.0; /* e^x < 2^-1076: rounds to 0 */
    struct exp_parts p = exp_parts(x);
    if (p.k < -1022 || (p.k == -1022 && p.j == 0 && p.v < 0.0))
        return subnormal((p.t_hi - 1.0) + p.s, p.k); /* t_hi − 1 exact; one more rounding, far below the result's */
    return uxm_scale(p.t_hi + p.s, p.k);
}

double uxm_exp(double x)
{
    /* On [−708, 709] (NaN fails the test) e^x is normal and finite and −1022 ≤ k ≤ 1022: one exact scaling,
     * the same bits as exp_edge's, for the arguments the filter takes without its tests. */
    if (!(x >= -708.0 && x <= 709.0))
        return exp_edge(x);
    struct exp_parts p = exp_parts(x);
    return (p.t_hi + p.s) * uxm_pow2(p.k);
}

/* As exp_parts, with the float table of 2^(j/32); n·UXM_LN2_32_HIF is exact (11 bits times |n| < 2^13), so
 * hi is too (Sterbenz). */
struct expf_parts {
    float t_hi, s, v;
    int k, j;
};

static inline struct expf_parts expf_parts(float x)
{
    struct expf_parts p;
    float nd = uxm_roundf(x * UXM_INV_LN2_32F);
    int n = (int)nd;
    p.j = n & ((1 << UXM_EXPF_TABLE_BITS) - 1);
    p.k = (n - p.j) / (1 << UXM_EXPF_TABLE_BITS);
    float hi = x - nd * UXM_LN2_32_HIF, lo = nd * UXM_LN2_32_LOF;
    float r = hi - lo, c = (hi - r) - lo;
    p.v = hi + ((expm1_tail_smallf(r) + c * r) - lo);
    p.t_hi = UXM_EXP2F[2 * p.j];
    p.s = p.t_hi * p.v + UXM_EXP2F[2 * p.j + 1];
    return p;
}

static float expf_edge(float x)
{
    if (x != x)
        return x + x;
    if (x > 89.0f)
        return x * 0x1p127f;
    if (x < -104.0f)
        return 0.0f;
    struct expf_parts p = expf_parts(x);
    if (p.k < -126 || (p.k == -126 && p.j == 0 && p.v < 0.0f))
        return subnormalf((p.t_hi - 1.0f) + p.s, p.k);
    return uxm_scalef(p.t_hi + p.s, p.k);
}

float uxm_expf(float x)
{
    /* On [−87, 88]: a normal finite result, −126 ≤ k ≤ 126 (as uxm_exp) */
    if (!(x >= -87.0f && x <= 88.0f))
        return expf_edge(x);
    struct expf_parts p = expf_parts(x);
    return (p.t_hi + p.s) * uxm_pow2f(p.k);
}

/* 2^k·(1 + hi + (p − lo)) − 1 for k ≥ −53 (float −24): 1 − 2^-k is exact up to k = 53 (24) and taken as
 * the leading part; past that, 2^-k is small enough to join the tail. The leading part plus hi is summed
 * exactly (two-sum, its rounding error kept as err), so one rounding remains before the exact scaling. */
static double expm1_scaled(double hi, double lo, double p, int k)
{
    double a = 1.0, t = p - lo;
    if (k <= 53)
        a = 1.0 - uxm_pow2(-k);
    else if (k < 1000)
        t = t - uxm_pow2(-k);
    double s = a + hi, b = s - a, err = (a - (s - b)) + (hi - b); /* s + err = a + hi exactly */
    return uxm_scale(s + (err + t), k);
}

static float expm1_scaledf(float hi, float lo, float p, int k)
{
    float a = 1.0f, t = p - lo;
    if (k <= 24)
        a = 1.0f - uxm_pow2f(-k);
    else if (k < 100)
        t = t - uxm_pow2f(-k);
    float s = a + hi, b = s - a, err = (a - (s - b)) + (hi - b);
    return uxm_scalef(s + (err + t), k);
}

double uxm_expm1(double x)
{
    if (x != x)
        return x + x;
    if (x > 710.0)
        return x * 0x1p1023;
    if (x < -38.0)
        return -1.0; /* e^x < 2^-54: −1 + e^x rounds to −1 */
    if (x > -0x1p-54 && x < 0x1p-54)
        return x; /* keeps −0 */
    double kd = uxm_round(x * INV_LN2);
    int k = (int)kd;
    double hi = x - kd * LN2_HI, lo = kd * LN2_LO;
    double p = tail(hi, lo);
    if (k == 0)
        return x + p;
    if (k < -53) /* the result is −1 + e^x, e^x < 2^-53: the rounding of the first sum hardly matters */
        return uxm_scale(1.0 + (hi + (p - lo)), k) - 1.0;
    return expm1_scaled(hi, lo, p, k);
}

float uxm_expm1f(float x)
{
    if (x != x)
        return x + x;
    if (x > 89.0f)
        return x * 0x1p127f;
    if (x < -18.0f)
        return -1.0f;
    if (x > -0x1p-25f && x < 0x1p-25f)
        return x;
    float kd = uxm_roundf(x * INV_LN2F);
    int k = (int)kd;
    float hi = x - kd * LN2_HIF, lo = kd * LN2_LOF;
    float p = tailf(hi, lo);
    if (k == 0)
        return x + p;
    if (k < -24)
        return uxm_scalef(1.0f + (hi + (p - lo)), k) - 1.0f;
    return expm1_scaledf(hi, lo, p, k);
}
