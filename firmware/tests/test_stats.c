/* Statistics and sampling. */
#include "harness.h"

static ux_value handmade(void)
{
    ux_value v;
    v.count = 4;
    v.eta = 4;
    v.sources = 1;
    v.x[0] = -1;
    v.x[1] = 0;
    v.x[2] = 2;
    v.x[3] = 5;
    v.w[0] = (ux_real)0.125;
    v.w[1] = (ux_real)0.375;
    v.w[2] = (ux_real)0.25;
    v.w[3] = (ux_real)0.25;
    return v;
}

static void test_moments(void)
{
    ux_value v = handmade();
    double mean = -0.125 + 0.5 + 1.25, var = 0, m3 = 0;
    unsigned i;
    for (i = 0; i < 4; ++i) {
        double d = (double)v.x[i] - mean;
        var += (double)v.w[i] * d * d;
        m3 += (double)v.w[i] * d * d * d;
    }
    CHECK_NEAR(ux_mean(&v), mean, TOL(1e-15, 1e-6));
    CHECK_NEAR(ux_var(&v), var, TOL(1e-15, 1e-6));
    CHECK_NEAR(ux_central_moment(&v, 2), var, TOL(1e-15, 1e-6));
    CHECK_NEAR(ux_central_moment(&v, 3), m3, TOL(1e-14, 1e-5));
    CHECK_NEAR(ux_central_moment(&v, 1), 0, TOL(1e-15, 1e-6));
    CHECK_NEAR(ux_moment(&v, 2), var + mean * mean, TOL(1e-14, 1e-6));
    CHECK_NEAR(ux_moment(&v, 0), 1, TOL(1e-15, 1e-6));
    CHECK_NEAR(ux_moment(&v, 3), -0.125 + 2 + 31.25, TOL(1e-14, 1e-6));
}

static void test_cdf_sf_quantile_support(void)
{
    ux_value v = handmade();
    ux_real lo, hi;
    unsigned i;
    CHECK(ux_cdf(&v, -2) == 0 && ux_sf(&v, -2) == 1);
    CHECK(ux_cdf(&v, 0) == (ux_real)0.5 && ux_sf(&v, 0) == (ux_real)0.5);
    CHECK(ux_cdf(&v, 5) == 1 && ux_sf(&v, 5) == 0);
    CHECK(ux_quantile(&v, 0) == -1 && ux_quantile(&v, 1) == 5);
    CHECK(ux_quantile(&v, (ux_real)0.5) == 0 && ux_quantile(&v, (ux_real)0.51) == 2);
    for (i = 0; i < 4; ++i)
        CHECK(ux_quantile(&v, ux_cdf(&v, v.x[i])) == v.x[i]);
    CHECK(isnan((double)ux_quantile(&v, (ux_real)1.5)) && isnan((double)ux_quantile(&v, (ux_real)-0.1)));
    ux_support(&v, &lo, &hi);
    CHECK(lo == -1 && hi == 5);
}

static void test_sf_keeps_small_tails(void)
{
    ux_value v;
    ux_sources src;
    ux_sources_init(&src);
    CHECK(ux_gaussian(&v, 0, 1, 64, &src) == UX_OK);
    /* P(X > x[62]) is the top atom's mass exactly, not 1 − cdf with its cancellation. */
    CHECK(ux_sf(&v, v.x[62]) == v.w[63]);
    CHECK_NEAR(ux_cdf(&v, 0.1) + ux_sf(&v, 0.1), 1, TOL(1e-14, 1e-6));
}

static void test_rng_reference_and_determinism(void)
{
    ux_rng a, b;
    uint64_t s1 = 0x6E789E6AA1B965F4ull, first;
    unsigned i, same = 1;
    ux_rng_seed(&a, 0);
    /* splitmix64 from 0: the published first outputs. */
    CHECK(a.s[0] == 0xE220A8397B1DCDAFull && a.s[1] == s1);
    first = ((s1 * 5) << 7 | (s1 * 5) >> 57) * 9;
    CHECK(ux_rng_next(&a) == first);
    ux_rng_seed(&a, 42);
    ux_rng_seed(&b, 42);
    for (i = 0; i < 1000; ++i)
        same &= ux_rng_next(&a) == ux_rng_next(&b);
    CHECK(same);
    ux_rng_seed(&b, 43);
    CHECK(ux_rng_next(&a) != ux_rng_next(&b));
    for (i = 0; i < 1000; ++i) {
        double u = ux_rng_uniform(&a);
        CHECK(u >= 0 && u < 1);
    }
}

static void test_sampling_frequencies(void)
{
    static ux_real draws[100000];
    ux_value v = handmade();
    ux_rng r;
    unsigned i, j, n = 100000;
    ux_rng_seed(&r, 7);
    ux_sample_n(&v, &r, draws, n);
    for (j = 0; j < 4; ++j) {
        double p = (double)v.w[j], c = 0;
        for (i = 0; i < n; ++i)
            c += draws[i] == v.x[j];
        CHECK(fabs(c / n - p) < 5 * sqrt(p * (1 - p) / n));
    }
}

void suite_stats(void)
{
    RUN(test_moments);
    RUN(test_cdf_sf_quantile_support);
    RUN(test_sf_keeps_small_tails);
    RUN(test_rng_reference_and_determinism);
    RUN(test_sampling_frequencies);
}
