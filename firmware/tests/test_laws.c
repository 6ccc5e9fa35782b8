/* Analytic quantization of the laws, the point / samples / mixture constructors, the incomplete beta. */
#include "betainc.h"
#include "harness.h"

static ux_sources src;

static int valid_full(const ux_value *v, unsigned eta)
{
    double s = 0;
    uint32_t i;
    if (ux_value_check(v) != UX_OK || v->count != eta || v->eta != eta)
        return 0;
    for (i = 0; i < v->count; ++i)
        s += (double)v->w[i];
    return fabs(s - 1.0) < TOL(1e-14, 1e-6);
}

static void test_gaussian_reference_atoms(void)
{
    ux_value v;
    ux_sources_init(&src);
    CHECK(ux_gaussian(&v, 0, 1, 16, &src) == UX_OK);
    CHECK(valid_full(&v, 16));
    /* docs/contract.md: mean split, not median split. */
    CHECK_NEAR(v.x[15], 2.2194, 1e-4);
    CHECK_NEAR(v.x[0], -2.2194, 1e-4);
    CHECK_NEAR(v.w[0], 0.0340, 1e-4);
    CHECK_NEAR(v.x[8], 0.0932, 1e-4);
    CHECK_NEAR(v.w[8], 0.0741, 1e-4);
    CHECK(v.x[0] == -v.x[15] && v.w[0] == v.w[15]); /* F on the left, S on the right: exactly symmetric */
}

static void test_law_means_and_variances(void)
{
    struct {
        ux_law law;
        double mean, var;
    } cases[] = {
        {{UX_LAW_GAUSSIAN, 1.5, 0.3, 0}, 1.5, 0.09},
        {{UX_LAW_LAPLACE, -2, 0.5, 0}, -2, 0.5},
        {{UX_LAW_UNIFORM, -1, 3, 0}, 1, 16.0 / 12.0},
        {{UX_LAW_EXPONENTIAL, 2, 0, 0}, 2, 4}, /* a = scale: the mean, as numpy's exponential(2) */
        {{UX_LAW_STUDENT_T, 5, 1, 2}, 1, 4.0 * 5.0 / 3.0},
        {{UX_LAW_LOGNORMAL, 0.1, 0.4, 0}, 1.1972173631218102, 0.24869823513854614},
    };
    unsigned c, eta;
    ux_sources_init(&src);
    for (c = 0; c < sizeof cases / sizeof cases[0]; ++c)
        for (eta = 1; eta <= 64; eta *= 2) {
            ux_value v;
            CHECK(ux_quantize(&cases[c].law, eta, &v, &src) == UX_OK);
            CHECK(valid_full(&v, eta));
            CHECK_NEAR(ux_mean(&v), cases[c].mean, TOL(1e-12, 2e-5));
            CHECK(ux_var(&v) <= cases[c].var * (1 + TOL(1e-12, 1e-5))); /* quantization loses spread */
            if (eta == 64 && c != 4) /* the t law with ν = 5 has heavy tails: slow convergence */
                CHECK(ux_var(&v) > 0.95 * cases[c].var);
        }
}

/* Each convenience constructor takes the law's fields a, b, c in order (docs/semantics.md). */
static int same_value(const ux_value *p, const ux_value *q)
{
    uint32_t i;
    if (p->count != q->count || p->eta != q->eta)
        return 0;
    for (i = 0; i < p->count; ++i)
        if (p->x[i] != q->x[i] || p->w[i] != q->w[i])
            return 0;
    return 1;
}

static void test_constructors_fill_the_law_fields(void)
{
    const ux_law laws[] = {
        {UX_LAW_GAUSSIAN, 0.3, 0.6, 0}, {UX_LAW_LAPLACE, -1.5, 2, 0},   {UX_LAW_UNIFORM, -1, 3, 0},
        {UX_LAW_EXPONENTIAL, 2, 0, 0},  {UX_LAW_STUDENT_T, 5, -1.5, 2}, {UX_LAW_LOGNORMAL, 0.3, 0.6, 0},
    };
    ux_value by_call[6], by_law;
    unsigned c;
    ux_sources_init(&src);
    CHECK(ux_gaussian(&by_call[0], 0.3, 0.6, 16, &src) == UX_OK);
    CHECK(ux_laplace(&by_call[1], -1.5, 2, 16, &src) == UX_OK);
    CHECK(ux_uniform(&by_call[2], -1, 3, 16, &src) == UX_OK);
    CHECK(ux_exponential(&by_call[3], 2, 16, &src) == UX_OK);
    CHECK(ux_student_t(&by_call[4], 5, -1.5, 2, 16, &src) == UX_OK);
    CHECK(ux_lognormal(&by_call[5], 0.3, 0.6, 16, &src) == UX_OK);
    for (c = 0; c < 6; ++c) {
        CHECK(ux_quantize(&laws[c], 16, &by_law, &src) == UX_OK);
        CHECK(same_value(&by_call[c], &by_law));
    }
    CHECK_NEAR(ux_mean(&by_call[3]), 2.0, TOL(1e-12, 1e-5)); /* exponential(2): mean 2, as numpy's */
}

static void test_uniform_is_exact(void)
{
    ux_value v;
    unsigned i;
    ux_sources_init(&src);
    CHECK(ux_uniform(&v, 2, 6, 8, &src) == UX_OK);
    for (i = 0; i < 8; ++i) {
        CHECK_NEAR(v.x[i], 2 + (i + 0.5) * 0.5, TOL(1e-15, 1e-6));
        CHECK_NEAR(v.w[i], 0.125, TOL(1e-15, 1e-6));
    }
}

static void test_law_domain_errors(void)
{
    ux_value v;
    ux_law bad[] = {
        {UX_LAW_GAUSSIAN, 0, 0, 0},
        {UX_LAW_GAUSSIAN, (ux_real)NAN, 1, 0},
        {UX_LAW_LAPLACE, 0, -1, 0},
        {UX_LAW_UNIFORM, 1, 1, 0},
        {UX_LAW_EXPONENTIAL, 0, 0, 0},
        {UX_LAW_STUDENT_T, 1, 0, 1},
        {UX_LAW_LOGNORMAL, 0, (ux_real)INFINITY, 0},
        {UX_LAW_POINT, (ux_real)INFINITY, 0, 0},
    };
    ux_law good = {UX_LAW_GAUSSIAN, 0, 1, 0}, unknown = {(ux_law_kind)42, 0, 1, 0};
    unsigned i;
    ux_sources_init(&src);
    for (i = 0; i < sizeof bad / sizeof bad[0]; ++i)
        CHECK(ux_quantize(&bad[i], 8, &v, &src) == UX_ERR_DOMAIN);
    CHECK(ux_quantize(&good, 12, &v, &src) == UX_ERR_ARG);
    CHECK(ux_quantize(&good, 128, &v, &src) == UX_ERR_ARG);
    CHECK(ux_quantize(&unknown, 8, &v, &src) == UX_ERR_ARG);
    CHECK(ux_quantize(&good, 0, &v, &src) == UX_OK && v.count == UX_DEFAULT_ETA);
}

/* ux_law_moments: the closed forms of the location–scale kinds, refused for the others and on overflow. */
static void test_law_moments(void)
{
    ux_law gauss = {UX_LAW_GAUSSIAN, 1, 2, 0}, laplace = {UX_LAW_LAPLACE, -1, 0.5, 0};
    ux_law uniform = {UX_LAW_UNIFORM, 2, 5, 0}, expo = {UX_LAW_EXPONENTIAL, 3, 0, 0};
    ux_law t = {UX_LAW_STUDENT_T, 5, 0, 1}, huge = {UX_LAW_GAUSSIAN, 0, (ux_real)1e30, 0};
    ux_real m = 0, v = 0;
    CHECK(ux_law_moments(&gauss, &m, &v) == UX_OK && m == 1 && v == 4);
    CHECK(ux_law_moments(&laplace, &m, &v) == UX_OK && m == -1 && v == (ux_real)0.5);
    CHECK(ux_law_moments(&uniform, &m, &v) == UX_OK && m == (ux_real)3.5 && v == (ux_real)0.75);
    CHECK(ux_law_moments(&expo, &m, &v) == UX_OK && m == 3 && v == 9);
    m = v = -7;
    CHECK(ux_law_moments(&t, &m, &v) == UX_ERR_DOMAIN && m == -7 && v == -7);
#ifdef UX_REAL_FLOAT
    CHECK(ux_law_moments(&huge, &m, &v) == UX_ERR_DOMAIN); /* 1e60 overflows a float */
#else
    huge.b = (ux_real)1e200;
    CHECK(ux_law_moments(&huge, &m, &v) == UX_ERR_DOMAIN);
#endif
}

static void test_fresh_sources(void)
{
    ux_value a, b, c;
    ux_sources_init(&src);
    CHECK(ux_gaussian(&a, 0, 1, 4, &src) == UX_OK);
    CHECK(ux_point(&b, 3, 0, &src) == UX_OK);
    CHECK(ux_independent_copy(&c, &a, &src) == UX_OK);
    CHECK(a.sources != 0 && b.sources != 0 && c.sources != 0);
    CHECK((a.sources & b.sources) == 0 && (a.sources & c.sources) == 0 && (b.sources & c.sources) == 0);
    CHECK(b.count == 1 && b.x[0] == 3 && b.w[0] == 1 && b.eta == UX_DEFAULT_ETA);
    CHECK(c.count == a.count && c.x[2] == a.x[2] && c.eta == a.eta);
    CHECK(ux_point(&b, (ux_real)NAN, 0, &src) == UX_ERR_DOMAIN);
}

static void test_from_samples(void)
{
    ux_real s[1000], w[1000];
    ux_value v, u;
    ux_rng r;
    unsigned i;
    double mean = 0;
    ux_sources_init(&src);
    ux_rng_seed(&r, 9);
    for (i = 0; i < 1000; ++i) {
        s[i] = (ux_real)(ux_rng_uniform(&r) * 4 - 1);
        mean += (double)s[i] / 1000;
        w[i] = 1;
    }
    CHECK(ux_from_samples(&v, s, NULL, 1000, 32, &src, &ux_test_ws) == UX_OK);
    CHECK(valid_full(&v, 32));
    CHECK_NEAR(ux_mean(&v), mean, TOL(1e-12, 1e-4));
    CHECK(ux_from_samples(&u, s, w, 1000, 32, &src, &ux_test_ws) == UX_OK);
    CHECK(u.x[5] == v.x[5] && u.w[31] == v.w[31]); /* equal weights are the unweighted case */
    w[3] = 0;
    w[4] = 0;
    CHECK(ux_from_samples(&u, s, w, 1000, 32, &src, &ux_test_ws) == UX_OK);
    w[3] = -1;
    CHECK(ux_from_samples(&u, s, w, 1000, 32, &src, &ux_test_ws) == UX_ERR_DOMAIN);
    CHECK(ux_from_samples(&u, s, NULL, 0, 32, &src, &ux_test_ws) == UX_ERR_DOMAIN);
    CHECK(ux_from_samples(&u, s, NULL, 3, 0, &src, &ux_test_ws) == UX_OK && u.count == 3 && u.eta == UX_DEFAULT_ETA);
}

static void test_mixture(void)
{
    ux_value a, b, m;
    ux_sources_init(&src);
    CHECK(ux_gaussian(&a, -3, 1, 16, &src) == UX_OK);
    CHECK(ux_uniform(&b, 2, 4, 8, &src) == UX_OK);
    CHECK(ux_mixture(&m, &a, &b, (ux_real)0.25, 0, &src) == UX_OK);
    CHECK(m.eta == 16 && ux_value_check(&m) == UX_OK);
    CHECK_NEAR(ux_mean(&m), 0.25 * ux_mean(&a) + 0.75 * ux_mean(&b), TOL(1e-13, 1e-5));
    CHECK_NEAR(ux_cdf(&m, 0), 0.25, TOL(1e-13, 1e-5)); /* far-apart modes stay separated */
    CHECK(ux_mixture(&m, &a, &b, 0, 0, &src) == UX_ERR_DOMAIN);
    CHECK(ux_mixture(&m, &a, &b, 1, 0, &src) == UX_ERR_DOMAIN);
    CHECK(ux_mixture(&m, &a, &b, (ux_real)0.5, 4, &src) == UX_OK && m.count <= 4);
}

/* Closed forms of I_x(a, b) the continued fraction must reproduce. */
static void test_betainc_closed_forms(void)
{
    double x;
    for (x = 0.01; x < 1; x += 0.07) {
        ux_real xr = (ux_real)x, yr = (ux_real)(1 - x);
        CHECK_NEAR(ux_betainc(1, 1, xr, yr), x, TOL(1e-14, 1e-5));
        CHECK_NEAR(ux_betainc(1, 3.5, xr, yr), 1 - pow(1 - x, 3.5), TOL(1e-14, 1e-5));
        CHECK_NEAR(ux_betainc(2.5, 1, xr, yr), pow(x, 2.5), TOL(1e-14, 1e-5));
        /* ν = 1 (Cauchy) and ν = 2 Student-t lower tails, z ≤ 0: I_{ν/(ν+z²)}(ν/2, ½) = 2 F(z). */
        {
            double z = -x * 30, c1 = 0.5 + atan(z) / TEST_PI, c2 = 0.5 + z / (2 * sqrt(2 + z * z));
            CHECK_NEAR(ux_betainc(0.5, 0.5, (ux_real)(1 / (1 + z * z)), (ux_real)(z * z / (1 + z * z))) / (2 * c1), 1,
                       TOL(1e-13, 1e-5));
            CHECK_NEAR(ux_betainc(1, 0.5, (ux_real)(2 / (2 + z * z)), (ux_real)(z * z / (2 + z * z))) / (2 * c2), 1,
                       TOL(1e-13, 1e-5));
        }
    }
    CHECK_NEAR(ux_betainc(7, 7, 0.5, 0.5), 0.5, TOL(1e-14, 1e-6));
    CHECK(ux_betainc(2, 3, 0, 1) == 0 && ux_betainc(2, 3, 1, 0) == 1);
    CHECK(isnan((double)ux_betainc(-1, 3, 0.5, 0.5)));
}

static void test_std_logpdf(void)
{
    CHECK_NEAR(ux_std_logpdf(UX_LAW_GAUSSIAN, 0), -0.5 * log(2 * TEST_PI), TOL(1e-15, 1e-6));
    CHECK_NEAR(ux_std_logpdf(UX_LAW_GAUSSIAN, 2), -2 - 0.5 * log(2 * TEST_PI), TOL(1e-15, 1e-6));
    CHECK_NEAR(ux_std_logpdf(UX_LAW_LAPLACE, -1), -1 - log(2.0), TOL(1e-15, 1e-6));
    CHECK(ux_std_logpdf(UX_LAW_UNIFORM, (ux_real)0.5) == 0);
    CHECK(isinf((double)ux_std_logpdf(UX_LAW_UNIFORM, (ux_real)0.51)));
    CHECK(isnan((double)ux_std_logpdf(UX_LAW_EXPONENTIAL, 0)));
}

void suite_laws(void)
{
    RUN(test_gaussian_reference_atoms);
    RUN(test_law_means_and_variances);
    RUN(test_uniform_is_exact);
    RUN(test_constructors_fill_the_law_fields);
    RUN(test_law_domain_errors);
    RUN(test_law_moments);
    RUN(test_fresh_sources);
    RUN(test_from_samples);
    RUN(test_mixture);
    RUN(test_betainc_closed_forms);
    RUN(test_std_logpdf);
}
