/*
 * ux/joint_filter.h — the BayesLaplace filter over a vector state (docs/semantics.md, "Joint filter"):
 * predict by the joint lift of the transition over {posterior, process noise}, update by joint
 * BayesLaplace.
 *
 *     static ux_joint_filter f;
 *     static uint64_t ws[UX_WORDS(UX_JOINT_FILTER_WORKSPACE_BYTES(32, 2))];
 *     ux_joint_filter_config cfg = { ux_joint_model_named("pendulum"), NULL, 32, UX_MODE_REFINED, NULL };
 *     ux_workspace w = { ws, sizeof ws };
 *     ux_joint_filter_init(&f, &cfg, w);
 *     for (k = 0; k < T; ++k) {
 *         if (k > 0) ux_joint_filter_predict(&f, k, u[k]);
 *         st = ux_joint_filter_update(&f, &z[k * dim_obs], NULL, 1, 1);  // UX_OK or UX_FALLBACK
 *         ux_joint_filter_mean(&f, mean);                                  // mean[0 .. dim)
 *     }
 *
 * The process noise is the joint value of its independent components (each quantized at η, their product
 * reduced to η atoms), so a predict evaluates the transition on η × η points, as the scalar filter does.
 * Numbers cross this interface as double in both builds. The staged prediction lives in the workspace
 * between predict and update: the caller must not reuse it while the filter lives.
 */
#ifndef UX_JOINT_FILTER_H
#define UX_JOINT_FILTER_H

#include "config.h"
#include "filter.h"
#include "joint.h"
#include "joint_bayes.h"
#include "joint_model.h"
#include "workspace.h"

typedef struct {
    const ux_joint_model *model;
    const double *params; /* model->n_params values; NULL for the model's defaults */
    unsigned eta; /* power of two, 1..UX_MAX_ETA */
    ux_mode mode; /* refined (default) or paper, as the scalar filter's */
    const ux_law *prior; /* NULL: the model's default; else model->dim independent component laws */
} ux_joint_filter_config;

/* Workspace a joint filter of state dimension dim needs at size eta: the staged η² predictive atoms and
 * the scratch of the larger of predict and update (an upper bound for every model of that dim). */
#define UX_JOINT_FILTER_WORKSPACE_BYTES(eta, dim)                                                                      \
    (UX_WS_REALS((size_t)(eta) * (eta) * (dim)) + UX_WS_REALS((size_t)(eta) * (eta)) +                                 \
     UX_JOINT_BAYES_WORKSPACE_BYTES((size_t)(eta) * (eta), dim, eta))

typedef struct {
    const ux_joint_model *model;
    ux_real params[UX_MODEL_MAX_PARAMS];
    unsigned eta;
    ux_mode mode;
    ux_joint posterior; /* the current belief */
    ux_joint process; /* the process noise's joint value */
    ux_law prior[UX_MAX_DIM]; /* the prior's component laws (the first update reads them again) */
    uint8_t fresh; /* 1 until the first update */
    ux_sources sources;
    ux_workspace ws;
    size_t ws_used;
    size_t staged; /* atoms of the staged prediction, 0: none */
    ux_status last; /* status of the last update */
    ux_real log_evidence; /* log p(z_k | z_0..k−1) of the last update */
    double log_likelihood; /* Σ of log_evidence since init */
    ux_evidence_tests tests; /* the innovation gate and the consistency mean (filter.h) */
} ux_joint_filter;

/*
 * Validate the configuration, quantize the prior's and the process noise's components at η and reduce
 * their products to η atoms, check the workspace. The component laws must have a location–scale form
 * (Gaussian, Laplace, uniform, exponential): their quantization is a scaled table, so it needs no stack.
 * UX_ERR_ARG: no model, η not a power of two ≤ UX_MAX_ETA, unknown mode. UX_ERR_DOMAIN: a parameter or a
 * prior law out of domain or without a location–scale form. UX_ERR_WORKSPACE: too small or misaligned, or
 * a product of more than η² points (d > 2). On error the filter is left unconfigured. Init writes the
 * workspace (it builds the products there).
 */
ux_status ux_joint_filter_init(ux_joint_filter *f, const ux_joint_filter_config *cfg, ux_workspace ws);

/* Bytes of workspace the filter needs for this model and size (≤ UX_JOINT_FILTER_WORKSPACE_BYTES). */
size_t ux_joint_filter_workspace_bytes(const ux_joint_model *model, unsigned eta);

/*
 * Predict step k with control input u: the transition on the product of the posterior's atoms and the
 * process noise's (the posterior's atom varying slowest), staged for the next update (paper mode: reduced
 * to η atoms first). A second predict without an update reduces the staged prediction to η atoms first.
 * UX_ERR_DOMAIN when the transition gives a non-finite value (the filter is unchanged).
 */
ux_status ux_joint_filter_predict(ux_joint_filter *f, uint32_t k, double u);

/*
 * Update with evidence z (J rows of dim_obs components) with weights omega (NULL: equal) standing for
 * m ≥ 1 observations; J = 0, m = 0 is a step without observation (UX_NO_EVIDENCE: the prediction reduced
 * to η). UX_OK, UX_FALLBACK (every likelihood zero: the prediction reduced) or an error, in which case
 * nothing changes. UX_OUTLIER in place of UX_OK when an evidence point fails the innovation gate (its test
 * ratio against the weighed points' predictive above gate²); with gate_outliers the update is then the step
 * without observation's, log evidence 0.
 */
ux_status ux_joint_filter_update(ux_joint_filter *f, const double *z, const double *omega, unsigned J, unsigned m);

/* The innovation gate in sd (init's: UX_OUTLIER_GATE; INFINITY turns the test off) and whether evidence that
 * fails it is not weighed (gate_outliers, init's 0), as ux_filter_set_gate. UX_ERR_ARG unless gate > 0. */
ux_status ux_joint_filter_set_gate(ux_joint_filter *f, double gate, int gate_outliers);
/* The last update's test ratio (docs/semantics.md, "Joint filter"); NaN without observation or where the
 * predictive covariance is not positive definite. */
double ux_joint_filter_test_ratio(const ux_joint_filter *f);
/* The running mean of the test ratio per observation component (docs/semantics.md, "Consistency"; 1 at init):
 * above its limit (set_consistency below) an update that would be UX_OK is UX_INCONSISTENT. */
double ux_joint_filter_nis(const ux_joint_filter *f);
/* The limit of that mean (init's: UX_NIS_LIMIT; INFINITY turns the status off). UX_ERR_ARG unless limit > 0. */
ux_status ux_joint_filter_set_consistency(ux_joint_filter *f, double limit);

size_t ux_joint_filter_sizeof(void);
const ux_joint *ux_joint_filter_posterior(const ux_joint_filter *f);
/* mean[0 .. dim) and cov[dim × dim] of the posterior (ux_joint_mean / ux_joint_cov, as doubles). */
ux_status ux_joint_filter_mean(const ux_joint_filter *f, double *mean);
ux_status ux_joint_filter_cov(const ux_joint_filter *f, double *cov);
ux_status ux_joint_filter_last_status(const ux_joint_filter *f);
double ux_joint_filter_log_evidence(const ux_joint_filter *f);
double ux_joint_filter_log_likelihood(const ux_joint_filter *f);

#endif /* UX_JOINT_FILTER_H */
