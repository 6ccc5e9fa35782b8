/* BayesLaplace: conjugate sanity, fallback, evidence counting, errors, the sampler path. */
#include <string.h>

#include "harness.h"

static ux_sources src;

/* Observation z = x + v: location x, scale from ctx. */
static void k_identity(const ux_real *a, const void *ctx, ux_real *loc, ux_real *scale)
{
    *loc = a[0];
    *scale = *(const ux_real *)ctx;
}

static ux_real s_additive(const ux_real *a, const void *ctx)
{
    (void)ctx;
    return a[0] + a[1];
}

static ux_observation kernel_obs(ux_law_kind family, const ux_real *scale)
{
    ux_observation o;
    memset(&o, 0, sizeof o);
    o.form = UX_LIK_KERNEL;
    o.ctx = scale;
    o.family = family;
    o.kernel = k_identity;
    return o;
}

static void test_gaussian_conjugate(void)
{
    ux_value prior, post;
    ux_real one = 1, z = 1;
    ux_observation o = kernel_obs(UX_LAW_GAUSSIAN, &one);
    ux_evidence ev = {&z, NULL, 1, 1};
    ux_sources_init(&src);
    CHECK(ux_gaussian(&prior, 0, 1, 64, &src) == UX_OK);
    CHECK(ux_bayes_laplace_value(&post, &o, &prior, &ev, &src, &ux_test_ws) == UX_OK);
    /* N(0,1) prior, z = 1 with unit noise: N(0.5, 0.5). */
    CHECK(fabs((double)ux_mean(&post) - 0.5) < 2e-3);
    CHECK(fabs((double)ux_var(&post) - 0.5) < 2e-2);
    CHECK(ux_value_check(&post) == UX_OK && post.eta == 64);
    CHECK((post.sources & prior.sources) == 0);
}

static void test_count_m_is_repeated_evidence(void)
{
    ux_value prior, a, b;
    ux_real one = 1, z1 = (ux_real)0.7, z2[2] = {(ux_real)0.7, (ux_real)0.7}, om[2] = {1, 1};
    ux_observation o = kernel_obs(UX_LAW_LAPLACE, &one);
    ux_evidence e1 = {&z1, NULL, 1, 2}, e2 = {z2, om, 2, 1};
    ux_sources_init(&src);
    CHECK(ux_student_t(&prior, 4, 0, 1, 32, &src) == UX_OK);
    CHECK(ux_bayes_laplace_value(&a, &o, &prior, &e1, &src, &ux_test_ws) == UX_OK);
    CHECK(ux_bayes_laplace_value(&b, &o, &prior, &e2, &src, &ux_test_ws) == UX_OK);
    CHECK(a.count == b.count && memcmp(a.x, b.x, a.count * sizeof(ux_real)) == 0 &&
          memcmp(a.w, b.w, a.count * sizeof(ux_real)) == 0);
}

static void test_fallback_keeps_the_prior(void)
{
    ux_value prior, post;
    ux_real half = (ux_real)0.5, z = 100;
    ux_observation o = kernel_obs(UX_LAW_UNIFORM, &half);
    ux_evidence ev = {&z, NULL, 1, 1};
    ux_sources_init(&src);
    CHECK(ux_gaussian(&prior, 0, 1, 16, &src) == UX_OK);
    CHECK(ux_bayes_laplace_value(&post, &o, &prior, &ev, &src, &ux_test_ws) == UX_FALLBACK);
    CHECK(post.count == prior.count && memcmp(post.x, prior.x, prior.count * sizeof(ux_real)) == 0);
    z = (ux_real)0.1; /* inside the uniform window of some hypotheses only */
    CHECK(ux_bayes_laplace_value(&post, &o, &prior, &ev, &src, &ux_test_ws) == UX_OK);
    CHECK(post.x[0] >= (ux_real)-0.15 && post.x[post.count - 1] <= (ux_real)0.35);
}

static void test_evidence_errors(void)
{
    ux_value prior, post;
    ux_real one = 1, z = (ux_real)NAN, om = 0;
    ux_observation o = kernel_obs(UX_LAW_GAUSSIAN, &one);
    ux_evidence ev = {&z, NULL, 1, 1};
    ux_sources_init(&src);
    CHECK(ux_gaussian(&prior, 0, 1, 8, &src) == UX_OK);
    CHECK(ux_bayes_laplace_value(&post, &o, &prior, &ev, &src, &ux_test_ws) == UX_ERR_DOMAIN);
    z = 0;
    ev.m = 0;
    CHECK(ux_bayes_laplace_value(&post, &o, &prior, &ev, &src, &ux_test_ws) == UX_ERR_DOMAIN);
    ev.m = 1;
    ev.omega = &om;
    CHECK(ux_bayes_laplace_value(&post, &o, &prior, &ev, &src, &ux_test_ws) == UX_ERR_DOMAIN);
    ev.omega = NULL;
    ev.count = 0;
    CHECK(ux_bayes_laplace_value(&post, &o, &prior, &ev, &src, &ux_test_ws) == UX_ERR_ARG);
    ev.count = 1;
    o.family = UX_LAW_STUDENT_T; /* no standard density for a kernel */
    CHECK(ux_bayes_laplace_value(&post, &o, &prior, &ev, &src, &ux_test_ws) == UX_ERR_ARG);
}

static void test_sampler_path(void)
{
    ux_value prior, noise, post_s, post_k;
    const ux_value *noises[1];
    ux_real one = 1, z = (ux_real)0.8;
    ux_observation ok = kernel_obs(UX_LAW_GAUSSIAN, &one), os;
    ux_evidence ev = {&z, NULL, 1, 1};
    ux_sources_init(&src);
    CHECK(ux_gaussian(&prior, 0, 1, 32, &src) == UX_OK);
    CHECK(ux_gaussian(&noise, 0, 1, 32, &src) == UX_OK);
    noises[0] = &noise;
    memset(&os, 0, sizeof os);
    os.form = UX_LIK_SAMPLER;
    os.sampler = s_additive;
    os.noise = noises;
    os.n_noise = 1;
    CHECK(ux_bayes_laplace_value(&post_s, &os, &prior, &ev, &src, &ux_test_ws) == UX_OK);
    CHECK(ux_bayes_laplace_value(&post_k, &ok, &prior, &ev, &src, &ux_test_ws) == UX_OK);
    /* The density estimate from 32 atoms is close to the exact kernel. */
    CHECK(fabs((double)ux_mean(&post_s) - (double)ux_mean(&post_k)) < 0.02);
    z = 50; /* outside every y_i's bins */
    CHECK(ux_bayes_laplace_value(&post_s, &os, &prior, &ev, &src, &ux_test_ws) == UX_FALLBACK);
    os.n_noise = 0;
    CHECK(ux_bayes_laplace_value(&post_s, &os, &prior, &ev, &src, &ux_test_ws) == UX_ERR_ARG);
}

static void test_workspace_too_small(void)
{
    ux_value prior, post;
    ux_real one = 1, z = 0;
    ux_observation o = kernel_obs(UX_LAW_GAUSSIAN, &one);
    ux_evidence ev = {&z, NULL, 1, 1};
    ux_workspace small = {ux_test_ws.mem, 16};
    ux_sources_init(&src);
    CHECK(ux_gaussian(&prior, 0, 1, 8, &src) == UX_OK);
    CHECK(ux_bayes_laplace_value(&post, &o, &prior, &ev, &src, &small) == UX_ERR_WORKSPACE);
}

void suite_bayes(void)
{
    RUN(test_gaussian_conjugate);
    RUN(test_count_m_is_repeated_evidence);
    RUN(test_fallback_keeps_the_prior);
    RUN(test_evidence_errors);
    RUN(test_sampler_path);
    RUN(test_workspace_too_small);
}
