/* Lift and per-operation arithmetic: exact x·x, refusal of dependent operands, errors, aliasing. */
#include <string.h>

#include "harness.h"

static ux_sources src;

static ux_real f_affine3(const ux_real *a, const void *ctx)
{
    const ux_real *k = (const ux_real *)ctx;
    return a[0] * a[1] + k[0] * a[2];
}

static void test_add_preserves_means(void)
{
    ux_value x, y, z;
    ux_sources_init(&src);
    CHECK(ux_gaussian(&x, 1, 2, 16, &src) == UX_OK);
    CHECK(ux_laplace(&y, -3, 1, 32, &src) == UX_OK);
    CHECK(ux_add(&z, &x, &y, &ux_test_ws) == UX_OK);
    CHECK(z.eta == 32 && z.count <= 32 && ux_value_check(&z) == UX_OK);
    CHECK(z.sources == (x.sources | y.sources));
    CHECK_NEAR(ux_mean(&z), ux_mean(&x) + ux_mean(&y), TOL(1e-13, 1e-5));
    CHECK(ux_sub(&z, &x, &y, &ux_test_ws) == UX_OK);
    CHECK_NEAR(ux_mean(&z), ux_mean(&x) - ux_mean(&y), TOL(1e-13, 1e-5));
    CHECK(ux_mul(&z, &x, &y, &ux_test_ws) == UX_OK);
    CHECK_NEAR(ux_mean(&z), ux_mean(&x) * ux_mean(&y), TOL(1e-12, 1e-5));
}

static void test_points_are_exact(void)
{
    ux_value a, b, c;
    ux_sources_init(&src);
    CHECK(ux_point(&a, 2, 4, &src) == UX_OK);
    CHECK(ux_point(&b, 5, 4, &src) == UX_OK);
    CHECK(ux_pow(&c, &a, &b, &ux_test_ws) == UX_OK);
    CHECK(c.count == 1 && c.x[0] == 32 && c.w[0] == 1 && c.eta == 4);
    CHECK(ux_div(&c, &b, &a, &ux_test_ws) == UX_OK && c.x[0] == (ux_real)2.5);
}

static void test_same_value_twice_is_one_input(void)
{
    ux_value x, sq;
    ux_sources_init(&src);
    CHECK(ux_gaussian(&x, 0.5, 1, 16, &src) == UX_OK);
    CHECK(ux_mul(&sq, &x, &x, &ux_test_ws) == UX_OK);
    CHECK(sq.x[0] >= 0); /* the law of X², not of a product of two copies */
    CHECK_NEAR(ux_mean(&sq), ux_moment(&x, 2), TOL(1e-13, 1e-5));
    CHECK(sq.sources == x.sources);
}

static void test_dependent_operands_are_refused(void)
{
    ux_value x, one, y, z, xc;
    ux_sources_init(&src);
    CHECK(ux_gaussian(&x, 0, 1, 8, &src) == UX_OK);
    CHECK(ux_point(&one, 1, 8, &src) == UX_OK);
    CHECK(ux_add(&y, &x, &one, &ux_test_ws) == UX_OK);
    CHECK(ux_mul(&z, &x, &y, &ux_test_ws) == UX_ERR_DEPENDENT); /* x·(x + 1) */
    CHECK(ux_independent_copy(&xc, &x, &src) == UX_OK);
    CHECK(ux_mul(&z, &xc, &y, &ux_test_ws) == UX_OK); /* an explicit independent copy is allowed */
}

static void test_domain_errors(void)
{
    ux_value x, y, zero;
    ux_sources_init(&src);
    CHECK(ux_gaussian(&x, 0, 1, 8, &src) == UX_OK);
    CHECK(ux_log(&y, &x, &ux_test_ws) == UX_ERR_DOMAIN);
    CHECK(ux_sqrt(&y, &x, &ux_test_ws) == UX_ERR_DOMAIN);
    CHECK(ux_point(&zero, 0, 8, &src) == UX_OK);
    CHECK(ux_div(&y, &x, &zero, &ux_test_ws) == UX_ERR_DOMAIN);
    CHECK(ux_exp(&y, &x, &ux_test_ws) == UX_OK && y.x[0] > 0);
    CHECK(ux_sin(&y, &x, &ux_test_ws) == UX_OK && y.x[0] >= -1 && y.x[y.count - 1] <= 1);
    CHECK(ux_cos(&y, &x, &ux_test_ws) == UX_OK && y.x[y.count - 1] <= 1);
}

static void test_workspace_errors(void)
{
    ux_value x, y, z;
    ux_workspace small = {ux_test_ws.mem, UX_LIFT_WORKSPACE_BYTES(64) - 1};
    ux_workspace odd = {(unsigned char *)ux_test_ws.mem + 1, 1 << 16};
    ux_sources_init(&src);
    CHECK(ux_gaussian(&x, 0, 1, 8, &src) == UX_OK);
    CHECK(ux_laplace(&y, 0, 1, 8, &src) == UX_OK);
    CHECK(ux_add(&z, &x, &y, &small) == UX_ERR_WORKSPACE);
    CHECK(ux_add(&z, &x, &y, &odd) == UX_ERR_WORKSPACE);
    small.bytes += 1;
    CHECK(ux_add(&z, &x, &y, &small) == UX_OK);
}

static void test_output_may_alias_an_input(void)
{
    ux_value x, y, z;
    ux_sources_init(&src);
    CHECK(ux_gaussian(&x, 0, 1, 16, &src) == UX_OK);
    CHECK(ux_uniform(&y, 0, 1, 16, &src) == UX_OK);
    CHECK(ux_add(&z, &x, &y, &ux_test_ws) == UX_OK);
    CHECK(ux_add(&x, &x, &y, &ux_test_ws) == UX_OK);
    CHECK(memcmp(x.x, z.x, z.count * sizeof(ux_real)) == 0 && x.count == z.count);
}

static void test_three_inputs_and_explicit_eta(void)
{
    ux_value a, b, c, out;
    const ux_value *in[4];
    ux_real k = 3;
    ux_sources_init(&src);
    CHECK(ux_gaussian(&a, 1, 1, 8, &src) == UX_OK);
    CHECK(ux_uniform(&b, 0, 2, 4, &src) == UX_OK);
    CHECK(ux_exponential(&c, 1, 16, &src) == UX_OK);
    in[0] = &a;
    in[1] = &b;
    in[2] = &c;
    CHECK(ux_lift(&out, f_affine3, &k, in, 3, 0, &ux_test_ws) == UX_OK);
    CHECK(out.eta == 16);
    CHECK_NEAR(ux_mean(&out), ux_mean(&a) * ux_mean(&b) + 3 * ux_mean(&c), TOL(1e-12, 1e-5));
    CHECK(ux_lift(&out, f_affine3, &k, in, 3, 4, &ux_test_ws) == UX_OK && out.count <= 4 && out.eta == 4);
    CHECK(ux_lift(&out, f_affine3, &k, in, 3, 6, &ux_test_ws) == UX_ERR_ARG);
    CHECK(ux_lift(&out, f_affine3, &k, in, 0, 0, &ux_test_ws) == UX_ERR_ARG);
    in[3] = &a; /* a repeated input is still one input */
    CHECK(ux_lift(&out, f_affine3, &k, in + 1, 3, 0, &ux_test_ws) == UX_OK);
}

static ux_real f_sub(const ux_real *a, const void *ctx)
{
    (void)ctx;
    return a[0] - a[1];
}

static void test_lift_points_are_the_outer_product(void)
{
    static ux_real x[64 * 64], w[64 * 64];
    ux_value a, b;
    const ux_value *in[2];
    size_t count = 0, i;
    double total = 0;
    ux_sources_init(&src);
    CHECK(ux_gaussian(&a, 0, 1, 64, &src) == UX_OK);
    CHECK(ux_gaussian(&b, 0, 2, 64, &src) == UX_OK);
    in[0] = &a;
    in[1] = &b;
    CHECK(ux_lift_points(x, w, &count, NULL, NULL, in, 2) == UX_ERR_ARG);
    CHECK(ux_lift_points(x, w, &count, f_sub, NULL, in, 2) == UX_OK);
    CHECK(count == 64 * 64);
    for (i = 0; i < count; ++i) {
        total += (double)w[i];
        /* evaluation order: the first input varies slowest */
        CHECK(x[i] == a.x[i / 64] - b.x[i % 64] && w[i] == a.w[i / 64] * b.w[i % 64]);
    }
    CHECK_NEAR(total, 1.0, TOL(1e-13, 1e-5));
}

static ux_real f_additive(const ux_real *a, const void *ctx)
{
    (void)ctx;
    return a[0] / (ux_real)3.0 + (ux_real)25.0 * a[0] / ((ux_real)1.0 + a[0] * a[0]) + a[1];
}

/* exp(−x)(1 + m) + h: additive in its third argument (the Beer–Lambert observation's form). */
static ux_real f_additive3(const ux_real *a, const void *ctx)
{
    (void)ctx;
    return (ux_real)exp(-(double)a[0]) * ((ux_real)1.0 + a[1]) + a[2];
}

/* ε·exp(x/2): multiplicative in its second argument (the stochastic-volatility observation's form). */
static ux_real f_scaled(const ux_real *a, const void *ctx)
{
    (void)ctx;
    return a[1] * (ux_real)exp((double)a[0] / 2.0);
}

/* Two values with the same atoms, bit for bit. */
static int same_value(const ux_value *a, const ux_value *b)
{
    return a->count == b->count && memcmp(a->x, b->x, a->count * sizeof(ux_real)) == 0 &&
           memcmp(a->w, b->w, a->count * sizeof(ux_real)) == 0;
}

/* Two point sets with the same points and weights, bit for bit. */
static int same_points(const ux_real *x1, const ux_real *w1, size_t n1, const ux_real *x2, const ux_real *w2, size_t n2)
{
    return n1 == n2 && memcmp(x1, x2, n1 * sizeof(ux_real)) == 0 && memcmp(w1, w2, n1 * sizeof(ux_real)) == 0;
}

/* The additive lifts give ux_lift_points' points and ux_lift's value bit for bit: rows that take the fast
 * path, rows with underflowing weights (dropped point by point), three inputs, and the same errors. */
static void test_additive_lift_is_the_outer_product(void)
{
    static ux_real x1[16 * 16 * 16], w1[16 * 16 * 16], x2[16 * 16 * 16], w2[16 * 16 * 16];
    ux_value a, b, c, huge, big, v1, v2;
    const ux_value *in[3];
    size_t n1 = 0, n2 = 0;
    ux_sources_init(&src);
    CHECK(ux_gaussian(&a, 0.3, 4, 32, &src) == UX_OK);
    CHECK(ux_gaussian(&b, 0, 2, 32, &src) == UX_OK);
    CHECK(ux_laplace(&c, 0, 0.1, 16, &src) == UX_OK);
    in[0] = &a;
    in[1] = &b;
    in[2] = &c;
    a.w[3] = (ux_real)TOL(1.5e-322, 4.2e-44); /* subnormal: the row's products with small noise weights underflow */
    a.w[5] = 0; /* a whole row of zero weights */
    CHECK(ux_lift_points(x1, w1, &n1, f_additive, NULL, in, 2) == UX_OK);
    CHECK(ux_lift_points_additive(x2, w2, &n2, f_additive, NULL, in, 2) == UX_OK);
    CHECK(n1 < 32 * 32 - 32 && same_points(x1, w1, n1, x2, w2, n2));
    CHECK(ux_lift(&v1, f_additive, NULL, in, 2, 8, &ux_test_ws) == UX_OK);
    CHECK(ux_lift_additive(&v2, f_additive, NULL, in, 2, 8, &ux_test_ws) == UX_OK);
    CHECK(same_value(&v1, &v2));
    /* three inputs, additive in the last: f once per (x, m) row */
    CHECK(ux_gaussian(&a, 0.3, 0.5, 16, &src) == UX_OK);
    CHECK(ux_gaussian(&b, 0, 0.2, 16, &src) == UX_OK);
    CHECK(ux_lift_points(x1, w1, &n1, f_additive3, NULL, in, 3) == UX_OK);
    CHECK(ux_lift_points_additive(x2, w2, &n2, f_additive3, NULL, in, 3) == UX_OK);
    CHECK(n1 == 16 * 16 * 16 && same_points(x1, w1, n1, x2, w2, n2));
    /* multiplicative: f(x, 1)·ε, the same value as the lift at every point, at two sizes */
    CHECK(ux_lift(&v1, f_scaled, NULL, in, 2, 8, &ux_test_ws) == UX_OK);
    CHECK(ux_lift_multiplicative(&v2, f_scaled, NULL, in, 2, 8, &ux_test_ws) == UX_OK);
    CHECK(same_value(&v1, &v2));
    CHECK(ux_lift(&v1, f_scaled, NULL, in, 2, 16, &ux_test_ws) == UX_OK);
    CHECK(ux_lift_multiplicative(&v2, f_scaled, NULL, in, 2, 16, &ux_test_ws) == UX_OK);
    CHECK(same_value(&v1, &v2));
    /* refused: no f, the last input also used elsewhere, a single input */
    CHECK(ux_lift_points_additive(x2, w2, &n2, NULL, NULL, in, 2) == UX_ERR_ARG);
    in[2] = &a;
    CHECK(ux_lift_points_additive(x2, w2, &n2, f_additive3, NULL, in, 3) == UX_ERR_ARG);
    CHECK(ux_lift_additive(&v2, f_additive, NULL, in, 1, 8, &ux_test_ws) == UX_ERR_ARG);
    /* f(x, 0) ≈ x/3 plus a noise atom near the largest real overflows: refused like ux_lift_points. */
    CHECK(ux_point(&huge, (ux_real)TOL(3e307, 3e38), 8, &src) == UX_OK);
    CHECK(ux_point(&big, (ux_real)TOL(1.79e308, 3.3e38), 8, &src) == UX_OK);
    in[0] = &huge;
    in[1] = &big;
    CHECK(ux_lift_points_additive(x2, w2, &n2, f_additive, NULL, in, 2) == UX_ERR_DOMAIN);
    CHECK(ux_lift_points(x1, w1, &n1, f_additive, NULL, in, 2) == UX_ERR_DOMAIN);
    CHECK(ux_lift_multiplicative(&v2, f_scaled, NULL, in, 2, 8, &ux_test_ws) == UX_ERR_DOMAIN); /* 1.79e308·e^huge */
}

void suite_lift(void)
{
    RUN(test_add_preserves_means);
    RUN(test_points_are_exact);
    RUN(test_same_value_twice_is_one_input);
    RUN(test_dependent_operands_are_refused);
    RUN(test_domain_errors);
    RUN(test_workspace_errors);
    RUN(test_output_may_alias_an_input);
    RUN(test_three_inputs_and_explicit_eta);
    RUN(test_lift_points_are_the_outer_product);
    RUN(test_additive_lift_is_the_outer_product);
}
