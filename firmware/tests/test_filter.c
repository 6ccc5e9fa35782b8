/* The filter: determinism, workspace sizing, configuration errors, fallback, steps without observation,
 * domain errors. */
#include <string.h>

#include "harness.h"

/* A deterministic pseudo-observation per system and step (no randomness needed to exercise paths). */
static double observation(unsigned id, unsigned k)
{
    double s = sin(0.7 * k + id);
    return id == 1 ? 1.5 * s : id == 2 ? 5 + 4 * s : 1.0 + 0.1 * s;
}

static int run(const ux_model *m, unsigned eta, ux_mode mode, ux_likelihood lik, unsigned T, double *means,
               ux_value *last)
{
    static ux_filter f;
    ux_filter_config cfg = {m, NULL, eta, mode, lik, NULL};
    unsigned k;
    if (ux_filter_init(&f, &cfg, ux_test_ws) != UX_OK)
        return 0;
    for (k = 0; k < T; ++k) {
        double z = observation(m->id, k);
        ux_status st;
        if (k > 0 && ux_filter_predict(&f, k, 0.0) != UX_OK)
            return 0;
        st = ux_filter_update(&f, &z, NULL, 1, 1);
        if (st < 0) { /* FALLBACK is a legitimate outcome of an outlying observation */
            printf("  system %u eta %u mode %d lik %d step %u: status %d\n", m->id, eta, mode, lik, k, st);
            return 0;
        }
        means[k] = ux_filter_mean(&f);
        if (ux_value_check(ux_filter_posterior(&f)) != UX_OK)
            return 0;
    }
    *last = *ux_filter_posterior(&f);
    return 1;
}

static void test_every_system_mode_and_path_is_deterministic(void)
{
    double a[12], b[12];
    ux_value va, vb;
    unsigned i, mode, lik;
    CHECK(ux_model_count() == 4);
    for (i = 0; i < ux_model_count(); ++i)
        for (mode = 0; mode <= UX_MODE_MIXTURE; ++mode)
            for (lik = 0; lik < 2; ++lik) {
                const ux_model *m = ux_model_at(i);
                CHECK(run(m, 8, (ux_mode)mode, (ux_likelihood)lik, 12, a, &va));
                CHECK(run(m, 8, (ux_mode)mode, (ux_likelihood)lik, 12, b, &vb));
                CHECK(memcmp(a, b, sizeof a) == 0);
                CHECK(va.count == vb.count && memcmp(va.x, vb.x, va.count * sizeof(ux_real)) == 0);
                CHECK(va.count <= 8);
            }
}

static void test_registry(void)
{
    CHECK(ux_model_find(1) == ux_model_at(0) && ux_model_find(2)->n_params == 2);
    CHECK(ux_model_find(3)->n_params == 6 && ux_model_find(0) == NULL && ux_model_find(5) == NULL);
    CHECK(ux_model_find(4) == ux_model_named("lg") && ux_model_find(4)->n_params == 3);
    CHECK(ux_model_at(4) == NULL);
}

static void test_workspace_sizes(void)
{
    static ux_filter f;
    unsigned i, eta, mode, lik;
    for (eta = 1; eta <= 64; eta *= 2)
        for (i = 0; i < ux_model_count(); ++i)
            for (mode = 0; mode <= UX_MODE_MIXTURE; ++mode)
                for (lik = 0; lik < 2; ++lik) {
                    size_t need = ux_filter_workspace_bytes(ux_model_at(i), eta, (ux_mode)mode, (ux_likelihood)lik);
                    CHECK(need > 0 && need <= UX_WORKSPACE_BYTES(eta));
                }
    {
        const ux_model *m = ux_model_find(3);
        size_t need = ux_filter_workspace_bytes(m, 16, UX_MODE_REFINED, UX_LIK_SAMPLER);
        ux_filter_config cfg = {m, NULL, 16, UX_MODE_REFINED, UX_LIK_SAMPLER, NULL};
        ux_workspace ws = {ux_test_ws.mem, need - 1};
        double z = 1.0;
        CHECK(ux_filter_init(&f, &cfg, ws) == UX_ERR_WORKSPACE);
        ws.bytes = need;
        CHECK(ux_filter_init(&f, &cfg, ws) == UX_OK);
        CHECK(ux_filter_workspace_in_use(&f) == need);
        CHECK(ux_filter_predict(&f, 1, 0) == UX_OK);
        CHECK(ux_filter_update(&f, &z, NULL, 1, 1) == UX_OK); /* the largest path fits exactly */
        ws.mem = (unsigned char *)ux_test_ws.mem + 4;
        CHECK(ux_filter_init(&f, &cfg, ws) == UX_ERR_WORKSPACE);
    }
}

static void test_configuration_errors(void)
{
    static ux_filter f;
    const ux_model *sv = ux_model_find(1);
    double params[4] = {0.98, 0, -0.2, 1};
    ux_law prior = {UX_LAW_GAUSSIAN, 0, -1, 0};
    ux_filter_config cfg = {sv, params, 8, UX_MODE_REFINED, UX_LIK_KERNEL, NULL};
    CHECK(ux_filter_check_params(sv, params) == 2);
    CHECK(ux_filter_init(&f, &cfg, ux_test_ws) == UX_ERR_DOMAIN);
    CHECK(ux_filter_posterior(&f)->count == 0 && ux_filter_workspace_in_use(&f) == 0);
    params[2] = 0.2;
    params[0] = NAN;
    CHECK(ux_filter_check_params(sv, params) == 0);
    params[0] = 1e300; /* finite in double, not in float */
    CHECK(ux_filter_check_params(sv, params) == TOL(-1, 0));
    params[0] = 0.98;
    CHECK(ux_filter_check_params(sv, params) == -1);
    cfg.eta = 12;
    CHECK(ux_filter_init(&f, &cfg, ux_test_ws) == UX_ERR_ARG);
    cfg.eta = 8;
    cfg.mode = (ux_mode)7;
    CHECK(ux_filter_init(&f, &cfg, ux_test_ws) == UX_ERR_ARG);
    cfg.mode = UX_MODE_PAPER;
    cfg.likelihood = (ux_likelihood)3;
    CHECK(ux_filter_init(&f, &cfg, ux_test_ws) == UX_ERR_ARG);
    cfg.likelihood = UX_LIK_SAMPLER;
    cfg.prior = &prior;
    CHECK(ux_filter_init(&f, &cfg, ux_test_ws) == UX_ERR_DOMAIN);
    prior.b = 1;
    CHECK(ux_filter_init(&f, &cfg, ux_test_ws) == UX_OK);
    CHECK(ux_filter_predict(NULL, 1, 0) == UX_ERR_ARG);
}

static void test_fallback_and_rejected_evidence(void)
{
    static ux_filter f;
    ux_filter_config cfg = {ux_model_find(2), NULL, 16, UX_MODE_REFINED, UX_LIK_SAMPLER, NULL};
    ux_value before;
    double z = 1e6, bad = NAN, good = 3;
    CHECK(ux_filter_init(&f, &cfg, ux_test_ws) == UX_OK);
    CHECK(ux_filter_predict(&f, 1, 0) == UX_OK);
    /* Far outside every predictive observation law: the sampler density is 0 everywhere. */
    CHECK(ux_filter_update(&f, &z, NULL, 1, 1) == UX_FALLBACK);
    CHECK(ux_filter_last_status(&f) == UX_FALLBACK);
    CHECK(ux_filter_posterior(&f)->count <= 16 && ux_value_check(ux_filter_posterior(&f)) == UX_OK);
    before = *ux_filter_posterior(&f);
    CHECK(ux_filter_update(&f, &bad, NULL, 1, 1) == UX_ERR_DOMAIN);
    CHECK(ux_filter_update(&f, &good, NULL, 1, 0) == UX_ERR_DOMAIN);
    CHECK(ux_filter_update(&f, &good, NULL, 0, 1) == UX_ERR_ARG);
    CHECK(memcmp(&before, ux_filter_posterior(&f), sizeof before) == 0); /* nothing changed */
    CHECK(ux_filter_update(&f, &good, NULL, 1, 1) == UX_OK);
}

static void test_empirical_evidence(void)
{
    static ux_filter f;
    ux_filter_config cfg = {ux_model_find(3), NULL, 8, UX_MODE_PAPER, UX_LIK_KERNEL, NULL};
    double z[3] = {0.5, 0.6, 0.55}, om[3] = {0.25, 0.25, 0.5}, var1, mean1;
    CHECK(ux_filter_init(&f, &cfg, ux_test_ws) == UX_OK);
    CHECK(ux_filter_update(&f, z, om, 3, 1) == UX_OK);
    mean1 = ux_filter_mean(&f);
    var1 = ux_filter_var(&f);
    CHECK(ux_filter_init(&f, &cfg, ux_test_ws) == UX_OK);
    CHECK(ux_filter_update(&f, z, om, 3, 20) == UX_OK);
    /* Observations of exp(−x) ≈ 0.55 pull x up; twenty of them pull harder and sharpen the belief. */
    CHECK(mean1 > 0 && ux_filter_mean(&f) > mean1 && ux_filter_var(&f) < var1);
    om[1] = -1;
    CHECK(ux_filter_update(&f, z, om, 3, 1) == UX_ERR_DOMAIN);
}

static void test_non_finite_prediction_is_refused(void)
{
    static ux_filter f;
    ux_law prior = {UX_LAW_GAUSSIAN, (ux_real)TOL(1e110, 1e30), 1, 0};
    ux_filter_config cfg = {ux_model_find(3), NULL, 8, UX_MODE_REFINED, UX_LIK_KERNEL, &prior};
    ux_value before;
    CHECK(ux_filter_init(&f, &cfg, ux_test_ws) == UX_OK);
    before = *ux_filter_posterior(&f);
    CHECK(ux_filter_predict(&f, 1, 0) == UX_ERR_DOMAIN); /* d³ overflows */
    CHECK(memcmp(before.x, ux_filter_posterior(&f)->x, before.count * sizeof(ux_real)) == 0);
}

static void test_predict_twice_and_update_without_predict(void)
{
    static ux_filter f;
    ux_filter_config cfg = {ux_model_find(1), NULL, 8, UX_MODE_REFINED, UX_LIK_KERNEL, NULL};
    double z = 0.3;
    CHECK(ux_filter_init(&f, &cfg, ux_test_ws) == UX_OK);
    CHECK(ux_filter_predict(&f, 1, 0) == UX_OK);
    CHECK(ux_filter_predict(&f, 2, 0) == UX_OK);
    CHECK(ux_filter_update(&f, &z, NULL, 1, 1) == UX_OK);
    CHECK(ux_filter_update(&f, &z, NULL, 1, 1) == UX_OK);
    CHECK(ux_filter_posterior(&f)->count <= 8);
}

static void test_step_without_observation(void)
{
    static ux_filter f;
    ux_filter_config cfg = {ux_model_find(1), NULL, 8, UX_MODE_REFINED, UX_LIK_KERNEL, NULL};
    double z = 0.3, before, phi = ux_model_find(1)->defaults[0];
    CHECK(ux_filter_init(&f, &cfg, ux_test_ws) == UX_OK);
    CHECK(ux_filter_update(&f, &z, NULL, 1, 1) == UX_OK);
    before = ux_filter_mean(&f);
    CHECK(ux_filter_predict(&f, 1, 0) == UX_OK);
    CHECK(ux_filter_update(&f, NULL, NULL, 0, 1) == UX_ERR_ARG); /* evidence counted but not given */
    /* A missing observation: the prediction reduced to η atoms. SV's default mean level c is 0, so the
     * predicted mean is φ·mean, kept by TTR. */
    CHECK(ux_filter_update(&f, NULL, NULL, 0, 0) == UX_NO_EVIDENCE);
    CHECK(ux_filter_last_status(&f) == UX_NO_EVIDENCE);
    CHECK(ux_filter_posterior(&f)->count == 8 && ux_value_check(ux_filter_posterior(&f)) == UX_OK);
    CHECK(fabs(ux_filter_mean(&f) - phi * before) <= TOL(1e-12, 1e-5));
    /* Nothing staged: the belief itself, reduced again (still η atoms, same mean). */
    before = ux_filter_mean(&f);
    CHECK(ux_filter_update(&f, NULL, NULL, 0, 0) == UX_NO_EVIDENCE);
    CHECK(fabs(ux_filter_mean(&f) - before) <= TOL(1e-12, 1e-5));
    CHECK(ux_filter_update(&f, &z, NULL, 1, 1) == UX_OK && ux_filter_last_status(&f) == UX_OK);
}

/* Mixture mode: every update's evidence is its density's log Z, bit for bit what the density reports —
 * and at the first update, what the refined filter's density reports of the same prior; the posterior is
 * a valid η-atom value; a mixture filter needs more workspace than refined at small η, and its largest
 * path fits exactly in what it asks for. */
/* A prior 1,000 times the observation noise (lg): the 64 prior atoms are ~80 apart against a likelihood of
 * width 1, so the first update in mixture mode refocuses (docs/semantics.md, "Filter") onto the Kalman
 * posterior, in a workspace of exactly the configuration's size; refined mode takes the linear update
 * ("Linear update"), the Kalman posterior itself; paper mode does neither, nor a narrow prior read where its
 * atoms are dense. */
static void test_diffuse_prior_refocuses(void)
{
    static ux_filter f;
    const ux_model *lg = ux_model_named("lg");
    const double s = 1000, r = lg->defaults[2], z = 3.7, central = 0.3;
    const double mean = z * s * s / (s * s + r * r), var = s * s * r * r / (s * s + r * r);
    const double log_z = -0.5 * log(2 * 3.14159265358979323846 * (s * s + r * r)) - 0.5 * z * z / (s * s + r * r);
    ux_law wide = {UX_LAW_GAUSSIAN, 0, (ux_real)s, 0}, narrow = {UX_LAW_GAUSSIAN, 0, 1, 0};
    unsigned mode;
    for (mode = 0; mode <= UX_MODE_MIXTURE; ++mode) {
        ux_filter_config cfg = {lg, NULL, 8, (ux_mode)mode, UX_LIK_KERNEL, &wide};
        ux_workspace ws = {ux_test_ws.mem, ux_filter_workspace_bytes(lg, 8, (ux_mode)mode, UX_LIK_KERNEL)};
        ux_status st;
        CHECK(ux_filter_init(&f, &cfg, ws) == UX_OK);
        st = ux_filter_update(&f, &z, NULL, 1, 1);
        if (mode == UX_MODE_PAPER) {
            CHECK(st == UX_OK);
            continue;
        }
        if (mode == UX_MODE_REFINED) { /* N(ν; 0, S) with the 64 atoms' variance, 0.15 % below the prior's */
            CHECK(st == UX_OK && ux_filter_last_status(&f) == UX_OK);
            CHECK(fabs(ux_filter_mean(&f) - mean) < TOL(1e-6, 1e-3) * sqrt(var));
            CHECK(fabs(ux_filter_var(&f) / var - 1) < TOL(1e-6, 1e-3));
            CHECK(fabs(ux_filter_log_evidence(&f) - log_z) < 1e-3);
        } else {
            CHECK(st == UX_REFOCUSED && ux_filter_last_status(&f) == UX_REFOCUSED);
            CHECK(fabs(ux_filter_mean(&f) - mean) < 0.1 * sqrt(var));
            CHECK(fabs(ux_filter_var(&f) / var - 1) < 0.2);
            CHECK(fabs(ux_filter_log_evidence(&f) - log_z) < TOL(1e-6, 1e-3));
        }
        CHECK(ux_value_check(ux_filter_posterior(&f)) == UX_OK);
        cfg.prior = &narrow; /* a reading where the prior's atoms are dense: enough effective points */
        CHECK(ux_filter_init(&f, &cfg, ws) == UX_OK);
        CHECK(ux_filter_update(&f, &central, NULL, 1, 1) == UX_OK);
    }
}

/* The innovation gate (docs/semantics.md, "Innovation gate"), lg from its prior N(0, 2²), r = 1: the first
 * update's ratio is z²/(Var of the 64 prior atoms + r²); a reading 10⁴ r off fails the default gate of 5
 * (UX_OUTLIER), is weighed unless the filter gates outliers, and a gated one leaves exactly what a step
 * without observation leaves; a gate ≤ 0 or NaN is refused, and infinity turns the test off. */
static void test_innovation_gate(void)
{
    static ux_filter f, g;
    const ux_model *lg = ux_model_named("lg");
    ux_filter_config cfg = {lg, NULL, 8, UX_MODE_REFINED, UX_LIK_KERNEL, NULL};
    const double near = 1.0, far = 1e4;
    static uint64_t ws_g[UX_WORDS(UX_WORKSPACE_BYTES(8))];
    ux_workspace wg = {ws_g, sizeof ws_g};
    double ratio, before;
    CHECK(ux_filter_init(&f, &cfg, ux_test_ws) == UX_OK);
    CHECK(isnan(ux_filter_test_ratio(&f)));
    CHECK(ux_filter_update(&f, &near, NULL, 1, 1) == UX_OK);
    ratio = ux_filter_test_ratio(&f);
    CHECK(fabs(ratio - near * near / (4.0 + 1.0)) < 0.02 * ratio); /* the 64 atoms hold ~99 % of the 2² */
    before = ux_filter_mean(&f);
    CHECK(ux_filter_predict(&f, 1, 0) == UX_OK);
    CHECK(ux_filter_update(&f, &far, NULL, 1, 1) == UX_OUTLIER && ux_filter_last_status(&f) == UX_OUTLIER);
    CHECK(ux_filter_test_ratio(&f) > UX_OUTLIER_GATE * UX_OUTLIER_GATE);
    CHECK(ux_filter_mean(&f) > before + 1); /* weighed: the posterior went to the far reading's side */
    /* gated, against the same filter with the reading missing */
    CHECK(ux_filter_init(&f, &cfg, ux_test_ws) == UX_OK && ux_filter_init(&g, &cfg, wg) == UX_OK);
    CHECK(ux_filter_set_gate(&f, UX_OUTLIER_GATE, 1) == UX_OK);
    CHECK(ux_filter_update(&f, &near, NULL, 1, 1) == UX_OK && ux_filter_update(&g, &near, NULL, 1, 1) == UX_OK);
    CHECK(ux_filter_predict(&f, 1, 0) == UX_OK && ux_filter_predict(&g, 1, 0) == UX_OK);
    CHECK(ux_filter_update(&f, &far, NULL, 1, 1) == UX_OUTLIER);
    CHECK(ux_filter_update(&g, NULL, NULL, 0, 0) == UX_NO_EVIDENCE);
    CHECK(ux_filter_mean(&f) == ux_filter_mean(&g) && ux_filter_var(&f) == ux_filter_var(&g));
    CHECK(ux_filter_log_likelihood(&f) == ux_filter_log_likelihood(&g));
    /* the gate's argument */
    CHECK(ux_filter_set_gate(&f, 0.0, 0) == UX_ERR_ARG && ux_filter_set_gate(&f, -1.0, 0) == UX_ERR_ARG);
    CHECK(ux_filter_set_gate(&f, NAN, 0) == UX_ERR_ARG && ux_filter_set_gate(NULL, 5.0, 0) == UX_ERR_ARG);
    CHECK(ux_filter_set_gate(&f, INFINITY, 0) == UX_OK);
    /* no gate, no OUTLIER; but the second far reading in three updates lifts the consistency mean past its limit
     * (each counted as UX_NIS_CAP: 1 → 2.5 → 3.9) */
    CHECK(ux_filter_predict(&f, 2, 0) == UX_OK && ux_filter_update(&f, &far, NULL, 1, 1) == UX_INCONSISTENT);
    CHECK(ux_filter_nis(&f) > UX_NIS_LIMIT && ux_filter_nis(&f) < 4.0);
}

static void test_mixture_mode(void)
{
    static ux_filter mix, ref;
    unsigned i, k;
    for (i = 0; i < ux_model_count(); ++i) {
        const ux_model *m = ux_model_at(i);
        ux_filter_config cm = {m, NULL, 8, UX_MODE_MIXTURE, UX_LIK_KERNEL, NULL};
        ux_filter_config cr = {m, NULL, 8, UX_MODE_REFINED, UX_LIK_KERNEL, NULL};
        static uint64_t ws_ref[UX_WORDS(UX_WORKSPACE_BYTES(8))];
        ux_workspace wr = {ws_ref, sizeof ws_ref};
        double z = observation(m->id, 0);
        ux_status st;
        CHECK(ux_filter_init(&mix, &cm, ux_test_ws) == UX_OK && ux_filter_init(&ref, &cr, wr) == UX_OK);
        CHECK(ux_filter_update(&mix, &z, NULL, 1, 1) == UX_OK);
        st = ux_filter_update(&ref, &z, NULL, 1, 1);
        CHECK(st == UX_OK || st == UX_REFOCUSED);
        CHECK(ux_filter_density_form(&mix) == UX_DENSITY_PRIOR);
        CHECK(ux_filter_log_evidence(&mix) == ux_filter_density_log_evidence(&ref));
        /* the η²-point sum differs, unless refined refocused (smooth refined: too few effective points) */
        CHECK((ux_filter_log_evidence(&mix) == ux_filter_log_evidence(&ref)) == (st == UX_REFOCUSED));
        for (k = 1; k < 10; ++k) {
            z = observation(m->id, k);
            CHECK(ux_filter_predict(&mix, k, 0.0) == UX_OK && ux_filter_update(&mix, &z, NULL, 1, 1) == UX_OK);
            CHECK(ux_filter_density_form(&mix) == UX_DENSITY_MIXTURE);
            CHECK(ux_filter_log_evidence(&mix) == ux_filter_density_log_evidence(&mix));
            CHECK(ux_value_check(ux_filter_posterior(&mix)) == UX_OK && ux_filter_posterior(&mix)->count <= 8);
        }
    }
    {
        const ux_model *m = ux_model_find(1);
        size_t need = ux_filter_workspace_bytes(m, 4, UX_MODE_MIXTURE, UX_LIK_KERNEL);
        ux_filter_config cfg = {m, NULL, 4, UX_MODE_MIXTURE, UX_LIK_KERNEL, NULL};
        ux_workspace ws = {ux_test_ws.mem, need};
        double z = 0.5;
        /* The nodes' scratch: the density's quadrature in every mode, mixture mode's every update, refined
         * mode's first (its region, refocus). */
        CHECK(need == ux_filter_workspace_bytes(m, 4, UX_MODE_PAPER, UX_LIK_KERNEL));
        CHECK(need == ux_filter_workspace_bytes(m, 4, UX_MODE_REFINED, UX_LIK_KERNEL));
        cfg.mode = UX_MODE_PAPER; /* paper mode within its bound: its density's log Z has its nodes */
        CHECK(ux_filter_init(&mix, &cfg, ws) == UX_OK);
        CHECK(ux_filter_update(&mix, &z, NULL, 1, 1) == UX_OK && ux_filter_predict(&mix, 1, 0) == UX_OK);
        CHECK(ux_filter_update(&mix, &z, NULL, 1, 1) == UX_OK && ux_filter_density_form(&mix) == UX_DENSITY_MIXTURE);
        CHECK(isfinite(ux_filter_density_log_evidence(&mix)) &&
              ux_filter_density_log_evidence(&mix) != ux_filter_log_evidence(&mix));
        cfg.mode = UX_MODE_MIXTURE;
        CHECK(ux_filter_init(&mix, &cfg, ws) == UX_OK);
        CHECK(ux_filter_update(&mix, &z, NULL, 1, 1) == UX_OK && ux_filter_predict(&mix, 1, 0) == UX_OK);
        CHECK(ux_filter_update(&mix, &z, NULL, 1, 1) == UX_OK && ux_filter_density_form(&mix) == UX_DENSITY_MIXTURE);
        ws.bytes = need - 1;
        CHECK(ux_filter_init(&mix, &cfg, ws) == UX_ERR_WORKSPACE);
    }
}

void suite_filter(void)
{
    RUN(test_every_system_mode_and_path_is_deterministic);
    RUN(test_registry);
    RUN(test_workspace_sizes);
    RUN(test_configuration_errors);
    RUN(test_fallback_and_rejected_evidence);
    RUN(test_empirical_evidence);
    RUN(test_non_finite_prediction_is_refused);
    RUN(test_predict_twice_and_update_without_predict);
    RUN(test_step_without_observation);
    RUN(test_mixture_mode);
    RUN(test_diffuse_prior_refocuses);
    RUN(test_innovation_gate);
}
