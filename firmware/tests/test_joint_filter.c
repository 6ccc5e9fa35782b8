/* The joint filter in C alone (the agreement with the reference is tests/native/test_native_joint_filter.py):
 * configuration refusals, the workspace bound, a predict that keeps the mean of a linear model, a step
 * without observation, refused evidence that changes nothing, and the same bits on a second run. */
#include <string.h>

#include "harness.h"
#include "ux/joint_filter.h"

#define ETA 16

static uint64_t ws_a[UX_WORDS(UX_JOINT_FILTER_WORKSPACE_BYTES(ETA, 2))];
static uint64_t ws_b[UX_WORDS(UX_JOINT_FILTER_WORKSPACE_BYTES(ETA, 2))];
static ux_joint_filter fa, fb;

static ux_status init(ux_joint_filter *f, const char *name, unsigned eta, uint64_t *mem, size_t bytes)
{
    ux_joint_filter_config cfg = {ux_joint_model_named(name), NULL, eta, UX_MODE_REFINED, NULL};
    ux_workspace ws = {mem, bytes};
    return ux_joint_filter_init(f, &cfg, ws);
}

static void test_configuration_refusals(void)
{
    ux_joint_filter_config cfg = {ux_joint_model_named("pendulum"), NULL, 12, UX_MODE_REFINED, NULL};
    ux_workspace ws = {ws_a, sizeof ws_a};
    double bad[4] = {0.05, 9.81, -1.0, 0.3};
    ux_law prior[2] = {{UX_LAW_GAUSSIAN, 0, -1, 0}, {UX_LAW_GAUSSIAN, 0, 1, 0}};
    double good[4] = {0.05, 9.81, 0.5, 0.3}, nan_p[4] = {0.05, (double)NAN, 0.5, 0.3};
    CHECK(ux_joint_model_named("sv") == NULL); /* a scalar system is not a joint one */
    CHECK(ux_joint_model_check_params(cfg.model, good) == -1);
    CHECK(ux_joint_model_check_params(cfg.model, bad) == 2); /* q must be > 0 */
    CHECK(ux_joint_model_check_params(cfg.model, nan_p) == 1);
    CHECK(ux_joint_filter_init(&fa, &cfg, ws) == UX_ERR_ARG);
    cfg.eta = ETA;
    cfg.mode = (ux_mode)7;
    CHECK(ux_joint_filter_init(&fa, &cfg, ws) == UX_ERR_ARG);
    cfg.mode = UX_MODE_PAPER;
    cfg.params = bad;
    CHECK(ux_joint_filter_init(&fa, &cfg, ws) == UX_ERR_DOMAIN);
    cfg.params = NULL;
    cfg.prior = prior;
    CHECK(ux_joint_filter_init(&fa, &cfg, ws) == UX_ERR_DOMAIN);
    cfg.prior = NULL;
    ws.bytes = ux_joint_filter_workspace_bytes(cfg.model, ETA) - 8;
    CHECK(ux_joint_filter_init(&fa, &cfg, ws) == UX_ERR_WORKSPACE);
    CHECK(fa.model == NULL); /* left unconfigured */
    CHECK(ux_joint_filter_predict(&fa, 1, 0) == UX_ERR_ARG);
    ws.bytes = sizeof ws_a;
    CHECK(ux_joint_filter_init(&fa, &cfg, ws) == UX_OK);
    CHECK(ux_joint_filter_workspace_bytes(cfg.model, ETA) == UX_JOINT_FILTER_WORKSPACE_BYTES(ETA, 2));
}

/* cvrange's transition is linear with zero-mean noise: a predict keeps the mean moved by (p + v·dt, v). */
static void test_predict_moves_the_mean_linearly(void)
{
    double m0[2], m1[2], dt = (double)ux_joint_model_named("cvrange")->defaults[0];
    CHECK(init(&fa, "cvrange", ETA, ws_a, sizeof ws_a) == UX_OK);
    CHECK(ux_joint_filter_mean(&fa, m0) == UX_OK);
    CHECK(ux_joint_filter_predict(&fa, 1, 0) == UX_OK);
    CHECK(ux_joint_filter_update(&fa, NULL, NULL, 0, 0) == UX_NO_EVIDENCE);
    CHECK(ux_joint_filter_log_evidence(&fa) == 0);
    CHECK(ux_joint_filter_mean(&fa, m1) == UX_OK);
    CHECK_NEAR(m1[0], m0[0] + m0[1] * dt, TOL(1e-12, 1e-5));
    CHECK_NEAR(m1[1], m0[1], TOL(1e-12, 1e-5));
    CHECK(ux_joint_filter_posterior(&fa)->count <= ETA);
}

static void test_refused_evidence_changes_nothing_and_reruns_are_identical(void)
{
    double z[3] = {10.0, 9.5, 9.0}, nan_z = (double)NAN, wide[2] = {1.0, 2.0};
    unsigned k;
    size_t i;
    CHECK(init(&fa, "cvrange", ETA, ws_a, sizeof ws_a) == UX_OK);
    CHECK(init(&fb, "cvrange", ETA, ws_b, sizeof ws_b) == UX_OK);
    for (k = 0; k < 3; ++k) {
        if (k > 0) {
            CHECK(ux_joint_filter_predict(&fa, k, 0) == UX_OK);
            CHECK(ux_joint_filter_predict(&fb, k, 0) == UX_OK);
        }
        CHECK(ux_joint_filter_update(&fa, &nan_z, NULL, 1, 1) == UX_ERR_DOMAIN);
        CHECK(ux_joint_filter_update(&fa, &z[k], wide, 1, 0) == UX_ERR_DOMAIN);
        CHECK(ux_joint_filter_update(&fa, NULL, NULL, 1, 1) == UX_ERR_ARG);
        CHECK(ux_joint_filter_update(&fa, &z[k], NULL, 1, 1) == UX_OK);
        CHECK(ux_joint_filter_update(&fb, &z[k], NULL, 1, 1) == UX_OK);
    }
    CHECK(fa.posterior.count == fb.posterior.count);
    for (i = 0; i < fa.posterior.count * 2; ++i)
        CHECK(fa.posterior.x[i] == fb.posterior.x[i]);
    for (i = 0; i < fa.posterior.count; ++i)
        CHECK(fa.posterior.w[i] == fb.posterior.w[i]);
    CHECK(ux_joint_filter_log_likelihood(&fa) == ux_joint_filter_log_likelihood(&fb));
    CHECK(ux_joint_filter_log_likelihood(&fa) < 0);
}

void suite_joint_filter(void)
{
    RUN(test_configuration_refusals);
    RUN(test_predict_moves_the_mean_linearly);
    RUN(test_refused_evidence_changes_nothing_and_reruns_are_identical);
}
