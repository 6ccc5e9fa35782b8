/* The core's elementary functions (ux/uxm.h): within one ulp of stored correctly rounded values, and IEEE
 * results on the special arguments. */
#include <math.h>
#include <string.h>

#include "harness.h"
#include "internal.h"
#include "ux/uxm.h"
#include "uxm_points.h"

typedef double (*fn_d)(double);
typedef float (*fn_f)(float);

/* In the order of scripts/uxm_points.py's functions. */
static const fn_d FNS_D[] = {uxm_exp, uxm_expm1, uxm_log, uxm_log1p, uxm_sin, uxm_cos};
static const fn_f FNS_F[] = {uxm_expf, uxm_expm1f, uxm_logf, uxm_log1pf, uxm_sinf, uxm_cosf};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static void test_double_within_one_ulp_of_correctly_rounded(void)
{
    size_t i, exact = 0;
    for (i = 0; i < COUNT(UXM_POINTS_D); i++) {
        double y = UXM_POINTS_D[i].y, got = FNS_D[UXM_POINTS_D[i].fn](UXM_POINTS_D[i].x);
        CHECK(got == y || got == nextafter(y, INFINITY) || got == nextafter(y, -INFINITY));
        exact += got == y;
    }
    CHECK(exact >= COUNT(UXM_POINTS_D) * 9 / 10); /* 95 % of these points are correctly rounded */
}

static void test_float_within_one_ulp_of_correctly_rounded(void)
{
    size_t i, exact = 0;
    for (i = 0; i < COUNT(UXM_POINTS_F); i++) {
        float y = UXM_POINTS_F[i].y, got = FNS_F[UXM_POINTS_F[i].fn](UXM_POINTS_F[i].x);
        CHECK(got == y || got == nextafterf(y, INFINITY) || got == nextafterf(y, -INFINITY));
        exact += got == y;
    }
    CHECK(exact >= COUNT(UXM_POINTS_F) * 9 / 10);
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static void test_special_arguments(void)
{
    CHECK(isnan(uxm_exp(NAN)) && isnan(uxm_log(NAN)) && isnan(uxm_sin(NAN)) && isnan(uxm_cosf(NAN)));
    CHECK(uxm_exp(INFINITY) == INFINITY && uxm_exp(-INFINITY) == 0.0 && uxm_exp(709.8) == INFINITY);
    CHECK(uxm_exp(-745.2) == 0.0 && uxm_exp(-745.0) == 0x1p-1074 && uxm_exp(0.0) == 1.0);
    CHECK(uxm_expf(88.8f) == INFINITY && uxm_expf(-104.0f) == 0.0f && uxm_expf(-103.0f) > 0.0f);
    CHECK(uxm_expm1(-INFINITY) == -1.0 && uxm_expm1(INFINITY) == INFINITY && same_bits(uxm_expm1(-0.0), -0.0));
    CHECK(uxm_log(0.0) == -INFINITY && uxm_log(-0.0) == -INFINITY && isnan(uxm_log(-1.0)));
    CHECK(uxm_log(INFINITY) == INFINITY && uxm_log(1.0) == 0.0 && uxm_log(0x1p-1074) < -744.0);
    CHECK(uxm_logf(0x1p-149f) < -103.0f && isnan(uxm_logf(-1.0f)) && uxm_logf(0.0f) == -INFINITY);
    CHECK(uxm_log1p(-1.0) == -INFINITY && isnan(uxm_log1p(-2.0)) && same_bits(uxm_log1p(-0.0), -0.0));
    CHECK(isnan(uxm_sin(INFINITY)) && isnan(uxm_cos(-INFINITY)) && isnan(uxm_sinf(INFINITY)));
    CHECK(same_bits(uxm_sin(-0.0), -0.0) && uxm_cos(-0.0) == 1.0 && uxm_sin(0x1p-1074) == 0x1p-1074);
}

/* Arguments far beyond 2π are reduced exactly: sin(2^1000) and cos(1e22), against mpmath. */
static void test_large_arguments(void)
{
    CHECK(fabs(uxm_sin(0x1p1000) - -0.15920170308624243) <= 3e-17);
    CHECK(fabs(uxm_cos(1e22) - 0.523214785395139) <= 1.2e-16);
    CHECK(fabsf(uxm_sinf(0x1p100f) - -0.8721836f) <= 6e-8f);
}

/* The core's constants log 2 and log 2π are UX_LOG's own values, in the build's precision. */
static void test_log_constants_are_ux_log(void)
{
    ux_real two = UX_R(2.0), two_pi = UX_R(2.0) * UX_PI;
    CHECK(UX_LOG_2 == UX_LOG(two) && UX_LOG_2PI == UX_LOG(two_pi));
}

void suite_uxm(void)
{
    RUN(test_log_constants_are_ux_log);
    RUN(test_double_within_one_ulp_of_correctly_rounded);
    RUN(test_float_within_one_ulp_of_correctly_rounded);
    RUN(test_special_arguments);
    RUN(test_large_arguments);
}
