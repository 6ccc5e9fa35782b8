/* Joint values: d = 1 as ux_ttr bit for bit, the kept mean, validity, rescaling, the independent product,
 * the statistics of a known value, and every refusal. */
#include <string.h>

#include "harness.h"
#include "ux/joint.h"

#define BIG 2048

static ux_real X[BIG * UX_MAX_DIM], W[BIG], X2[BIG * UX_MAX_DIM], W2[BIG];
static uint8_t CELL[BIG];

static void fill(ux_rng *r, size_t M, unsigned dim, int ties)
{
    size_t i;
    unsigned k;
    for (i = 0; i < M; ++i) {
        for (k = 0; k < dim; ++k)
            X[i * dim + k] = ties ? (ux_real)(ux_rng_next(r) % 5) : (ux_real)((ux_rng_uniform(r) * 10 - 5) * (k + 1));
        W[i] = (ux_real)(0.05 + ux_rng_uniform(r));
    }
}

static void test_d1_is_ttr_bit_for_bit(void)
{
    ux_rng r;
    unsigned rep, n;
    ux_rng_seed(&r, 11);
    for (rep = 0; rep < 60; ++rep)
        for (n = 0; n <= UX_MAX_LOG2_ETA; ++n) {
            size_t M = 1 + (size_t)(ux_rng_next(&r) % 600), a, b, i;
            fill(&r, M, 1, rep % 3 == 0);
            memcpy(X2, X, M * sizeof(ux_real));
            memcpy(W2, W, M * sizeof(ux_real));
            a = ux_ttr(X2, W2, M, n, CELL);
            CHECK(ux_joint_ttr(X, W, M, 1, n, &b, &ux_test_ws) == UX_OK);
            CHECK(a == b);
            for (i = 0; i < a; ++i) {
                CHECK(X[i] == X2[i]);
                CHECK(W[i] == W2[i]);
            }
        }
}

static void test_mean_mass_and_validity(void)
{
    ux_rng r;
    ux_sources src;
    static ux_joint v;
    unsigned rep, dim, k;
    ux_rng_seed(&r, 12);
    ux_sources_init(&src);
    for (rep = 0; rep < 80; ++rep) {
        size_t M = 1 + (size_t)(ux_rng_next(&r) % 1000), i;
        unsigned eta = 1u << (rep % 7);
        double W0 = 0, S0[UX_MAX_DIM] = {0};
        ux_real mean[UX_MAX_DIM];
        dim = 1 + rep % UX_MAX_DIM;
        fill(&r, M, dim, rep % 4 == 0);
        for (i = 0; i < M; ++i) {
            W0 += (double)W[i];
            for (k = 0; k < dim; ++k)
                S0[k] += (double)W[i] * (double)X[i * dim + k];
        }
        CHECK(ux_joint_from_atoms(&v, X, W, M, dim, eta, &src, &ux_test_ws) == UX_OK);
        CHECK(ux_joint_check(&v) == UX_OK);
        CHECK(v.count <= eta && v.dim == dim && v.eta == eta);
        CHECK(ux_joint_mean(&v, mean) == UX_OK);
        for (k = 0; k < dim; ++k)
            CHECK_NEAR(mean[k], S0[k] / W0, TOL(1e-12, 2e-5) * 5 * (k + 1));
    }
}

static void test_power_of_two_rescaling(void)
{
    ux_rng r;
    size_t M = 777, a, b, i;
    unsigned k, dim = 3;
    ux_rng_seed(&r, 13);
    fill(&r, M, dim, 0);
    for (i = 0; i < M; ++i) {
        X2[i * dim + 0] = X[i * dim + 0];
        X2[i * dim + 1] = X[i * dim + 1] * (ux_real)1024;
        X2[i * dim + 2] = X[i * dim + 2] / (ux_real)64;
        W2[i] = W[i];
    }
    CHECK(ux_joint_ttr(X, W, M, dim, 5, &a, &ux_test_ws) == UX_OK);
    CHECK(ux_joint_ttr(X2, W2, M, dim, 5, &b, &ux_test_ws) == UX_OK);
    CHECK(a == b && a == 32);
    for (i = 0; i < a; ++i) {
        CHECK(W[i] == W2[i]);
        for (k = 0; k < dim; ++k)
            CHECK(X2[i * dim + k] == X[i * dim + k] * (k == 1 ? (ux_real)1024 : k == 2 ? (ux_real)1 / 64 : 1));
    }
}

static void test_equal_atoms_and_constant_component(void)
{
    ux_real x[8] = {1, 2, 1, 2, 1, 2, 1, 2}, w[4] = {1, 1, 1, 1};
    ux_real y[8] = {0, 7, 1, 7, 2, 7, 3, 7}, v[4] = {1, 1, 1, 1};
    size_t r;
    CHECK(ux_joint_ttr(x, w, 4, 2, 3, &r, &ux_test_ws) == UX_OK);
    CHECK(r == 1 && x[0] == 1 && x[1] == 2 && w[0] == 4);
    /* The constant component is never split: the four atoms are separated along component 0. */
    CHECK(ux_joint_ttr(y, v, 4, 2, 2, &r, &ux_test_ws) == UX_OK);
    CHECK(r == 4 && y[0] == 0 && y[2] == 1 && y[4] == 2 && y[6] == 3 && y[7] == 7);
}

static void test_product(void)
{
    ux_sources src;
    static ux_value a, b;
    static ux_joint v;
    const ux_value *parts[3];
    ux_real mean[3], cov[9];
    unsigned i;
    ux_sources_init(&src);
    CHECK(ux_gaussian(&a, 1, 2, 8, &src) == UX_OK);
    CHECK(ux_uniform(&b, 0, 1, 4, &src) == UX_OK);
    parts[0] = &a;
    parts[1] = &b;
    CHECK(ux_joint_product(&v, parts, 2, 16, &ux_test_ws) == UX_OK);
    CHECK(ux_joint_check(&v) == UX_OK && v.dim == 2 && v.count <= 16 && v.sources == (a.sources | b.sources));
    CHECK(ux_joint_mean(&v, mean) == UX_OK);
    CHECK_NEAR(mean[0], 1, TOL(1e-14, 1e-6));
    CHECK_NEAR(mean[1], 0.5, TOL(1e-14, 1e-6));
    /* The same value twice is one input: the diagonal, a's atoms exactly. */
    parts[1] = &a;
    parts[2] = &a;
    CHECK(ux_joint_product(&v, parts, 3, 0, &ux_test_ws) == UX_OK);
    CHECK(v.count == a.count && v.eta == a.eta);
    for (i = 0; i < v.count; ++i)
        CHECK(v.x[3 * i] == a.x[i] && v.x[3 * i + 1] == a.x[i] && v.x[3 * i + 2] == a.x[i]);
    CHECK(ux_joint_cov(&v, cov) == UX_OK);
    CHECK_NEAR(cov[1], ux_var(&a), TOL(1e-14, 1e-6));
    /* A different value sharing a's source is refused. */
    b = a;
    parts[1] = &b;
    CHECK(ux_joint_product(&v, parts, 2, 0, &ux_test_ws) == UX_ERR_DEPENDENT);
}

static void test_statistics_of_a_known_value(void)
{
    static ux_joint v;
    static ux_value m;
    ux_real mean[2], cov[4], t;
    v.count = 3;
    v.eta = 4;
    v.dim = 2;
    v.sources = 1;
    v.x[0] = 0, v.x[1] = 1, v.x[2] = 1, v.x[3] = 0, v.x[4] = 1, v.x[5] = 1;
    v.w[0] = 0.25, v.w[1] = 0.25, v.w[2] = 0.5;
    CHECK(ux_joint_check(&v) == UX_OK);
    CHECK(ux_joint_marginal(&m, &v, 0) == UX_OK);
    CHECK(m.count == 2 && m.x[0] == 0 && m.x[1] == 1 && m.w[0] == 0.25 && m.w[1] == 0.75);
    CHECK(ux_joint_sf(&v, 0, 0.5, &t) == UX_OK && t == 0.75);
    CHECK(ux_joint_cdf(&v, 1, 0.5, &t) == UX_OK && t == 0.25);
    CHECK(ux_joint_quantile(&v, 1, 0.3, &t) == UX_OK && t == 1);
    CHECK(ux_joint_mean(&v, mean) == UX_OK && mean[0] == 0.75 && mean[1] == 0.75);
    CHECK(ux_joint_cov(&v, cov) == UX_OK);
    CHECK(cov[0] == 0.1875 && cov[1] == -0.0625 && cov[2] == -0.0625 && cov[3] == 0.1875);
    CHECK(ux_joint_quantile(&v, 1, 1.5, &t) == UX_ERR_DOMAIN);
    CHECK(ux_joint_sf(&v, 2, 0, &t) == UX_ERR_ARG);
    v.x[4] = 0, v.x[5] = 1; /* atom 2 equals atom 0 */
    CHECK(ux_joint_check(&v) == UX_ERR_DOMAIN);
}

static void test_refusals(void)
{
    ux_sources src;
    static ux_joint v;
    ux_real x[4] = {0, 1, 2, 3}, w[2] = {1, 1};
    uint64_t small[4];
    ux_workspace tiny = {small, sizeof small};
    size_t r;
    ux_sources_init(&src);
    CHECK(ux_joint_ttr(x, w, 2, 0, 1, &r, &ux_test_ws) == UX_ERR_ARG);
    CHECK(ux_joint_ttr(x, w, 2, UX_MAX_DIM + 1, 1, &r, &ux_test_ws) == UX_ERR_ARG);
    CHECK(ux_joint_ttr(x, w, 0, 2, 1, &r, &ux_test_ws) == UX_ERR_ARG);
    CHECK(ux_joint_ttr(x, w, 2, 2, UX_MAX_LOG2_ETA + 1, &r, &ux_test_ws) == UX_ERR_ARG);
    CHECK(ux_joint_ttr(x, w, 2, 2, 6, &r, &tiny) == UX_ERR_WORKSPACE);
    CHECK(ux_joint_from_atoms(&v, x, w, 2, 2, 3, &src, &ux_test_ws) == UX_ERR_ARG);
    w[1] = -1;
    CHECK(ux_joint_from_atoms(&v, x, w, 2, 2, 4, &src, &ux_test_ws) == UX_ERR_DOMAIN);
    w[0] = w[1] = 0;
    CHECK(ux_joint_from_atoms(&v, x, w, 2, 2, 4, &src, &ux_test_ws) == UX_ERR_DOMAIN);
    w[0] = w[1] = 1;
    x[3] = (ux_real)NAN;
    CHECK(ux_joint_from_atoms(&v, x, w, 2, 2, 4, &src, &ux_test_ws) == UX_ERR_DOMAIN);
    x[3] = 3;
    CHECK(ux_joint_from_atoms(&v, x, w, 2, 2, 4, &src, &ux_test_ws) == UX_OK);
    CHECK(ux_joint_mean(&v, NULL) == UX_ERR_ARG);
}

static void test_workspace_macro_is_what_the_reduction_needs(void)
{
    ux_rng r;
    size_t M = 500, got;
    unsigned dim, n;
    ux_rng_seed(&r, 14);
    for (dim = 1; dim <= UX_MAX_DIM; ++dim)
        for (n = 0; n <= UX_MAX_LOG2_ETA; ++n) {
            ux_workspace exact = {ux_test_ws.mem, UX_JOINT_TTR_WORKSPACE_BYTES(M, dim, 1u << n)};
            ux_workspace short_ = {ux_test_ws.mem, exact.bytes - 8};
            fill(&r, M, dim, 0);
            CHECK(ux_joint_ttr(X, W, M, dim, n, &got, &short_) == UX_ERR_WORKSPACE);
            CHECK(ux_joint_ttr(X, W, M, dim, n, &got, &exact) == UX_OK);
        }
}

/* Constant-velocity target, dt = 1 (noise on both components). */
static void cv(ux_real *out, const ux_real *x, const ux_real *w, const void *ctx)
{
    (void)ctx;
    out[0] = x[0] + x[1] + w[0];
    out[1] = x[1] + w[1];
}

static ux_real gss1(const ux_real *a, const void *ctx)
{
    (void)ctx;
    return a[0] / 2 + 25 * a[0] / (1 + a[0] * a[0]) + a[1];
}

static void gss1_joint(ux_real *out, const ux_real *x, const ux_real *w, const void *ctx)
{
    ux_real args[2];
    args[0] = x[0];
    args[1] = w[0];
    out[0] = gss1(args, ctx);
}

static void test_lift(void)
{
    ux_sources src;
    static ux_value a, b, n0, n1, scalar;
    static ux_joint state, v, one;
    const ux_value *parts[2], *noise[2];
    ux_real mean[2], m0[2];
    unsigned i;
    ux_sources_init(&src);
    CHECK(ux_gaussian(&a, 0, 1, 16, &src) == UX_OK);
    CHECK(ux_gaussian(&b, 1, 0.5, 16, &src) == UX_OK);
    CHECK(ux_gaussian(&n0, 0.1, 0.3, 16, &src) == UX_OK);
    CHECK(ux_gaussian(&n1, 0, 0.2, 8, &src) == UX_OK);
    parts[0] = &a;
    parts[1] = &b;
    CHECK(ux_joint_product(&state, parts, 2, 0, &ux_test_ws) == UX_OK);
    noise[0] = &n0;
    noise[1] = &n1;
    CHECK(ux_joint_lift(&v, cv, NULL, 2, &state, noise, 2, 0, &ux_test_ws) == UX_OK);
    CHECK(ux_joint_check(&v) == UX_OK && v.eta == 16 && v.dim == 2);
    CHECK(ux_joint_mean(&state, m0) == UX_OK && ux_joint_mean(&v, mean) == UX_OK);
    CHECK_NEAR(mean[0], m0[0] + m0[1] + ux_mean(&n0), TOL(1e-13, 1e-5));
    CHECK_NEAR(mean[1], m0[1] + ux_mean(&n1), TOL(1e-13, 1e-5));
    /* d = 1: the scalar lift of the same function, bit for bit. */
    one.count = a.count;
    one.eta = a.eta;
    one.dim = 1;
    one.sources = a.sources;
    memcpy(one.x, a.x, a.count * sizeof(ux_real));
    memcpy(one.w, a.w, a.count * sizeof(ux_real));
    parts[1] = &n0;
    CHECK(ux_lift(&scalar, gss1, NULL, parts, 2, 0, &ux_test_ws) == UX_OK);
    CHECK(ux_joint_lift(&v, gss1_joint, NULL, 1, &one, noise, 1, 0, &ux_test_ws) == UX_OK);
    CHECK(v.count == scalar.count);
    for (i = 0; i < v.count; ++i)
        CHECK(v.x[i] == scalar.x[i] && v.w[i] == scalar.w[i]);
    /* A noise sharing the state's source is refused. */
    noise[1] = &a;
    CHECK(ux_joint_lift(&v, cv, NULL, 2, &state, noise, 2, 0, &ux_test_ws) == UX_ERR_DEPENDENT);
    CHECK(ux_joint_lift(&v, cv, NULL, 0, &state, noise, 2, 0, &ux_test_ws) == UX_ERR_ARG);
}

void suite_joint(void)
{
    RUN(test_d1_is_ttr_bit_for_bit);
    RUN(test_mean_mass_and_validity);
    RUN(test_power_of_two_rescaling);
    RUN(test_equal_atoms_and_constant_component);
    RUN(test_product);
    RUN(test_statistics_of_a_known_value);
    RUN(test_refusals);
    RUN(test_workspace_macro_is_what_the_reduction_needs);
    RUN(test_lift);
}
