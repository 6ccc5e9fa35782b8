/*
 * ux/joint_cells.h — the cell filter over a vector state (docs/semantics.md, "Cell filter"): a belief of at
 * most η Gaussian cells (weight, mean, covariance), each carried through the transition and the observation
 * by its 2d+1 sigma points, so a step costs O(η·d) model calls where the atom filter (ux/joint_filter.h)
 * weighs η² points.
 *
 *     static ux_joint_cells f;
 *     static uint64_t ws[UX_WORDS(UX_JOINT_CELLS_WORKSPACE_BYTES(16, 2))];
 *     ux_joint_filter_config cfg = { ux_joint_model_named("pendulum"), NULL, 16, UX_MODE_CELLS, NULL };
 *     ux_workspace w = { ws, sizeof ws };
 *     ux_joint_cells_init(&f, &cfg, w);
 *     for (k = 0; k < T; ++k) {
 *         if (k > 0) ux_joint_cells_predict(&f, k, u[k]);
 *         st = ux_joint_cells_update(&f, &z[k * dim_obs], NULL, 1, 1);  // UX_OK, OUTLIER, DEPARTED, FALLBACK
 *         ux_joint_cells_mean(&f, mean);
 *     }
 *
 * The belief starts as one cell, the prior's mean and (diagonal) covariance. Before each update, while there
 * are fewer than η cells, the cell of largest weight × spread (the top eigenvalue of its covariance against
 * the belief's) among those the model bends over (UX_CELLS_BEND) is split in two along that direction, each
 * half its half-space's conditional moments; the closest pair of cells is merged first when that costs less
 * than the split gains. After the update a cell lighter than UX_CELLS_MERGE_WEIGHT is merged into the cell
 * nearest it. Splits and merges keep the belief's mean and covariance; on a linear-Gaussian model nothing
 * splits and the filter is the Kalman filter. The model's noise must be additive (f(x, w) = f(x, w̄) + A·(w − w̄)) and its
 * prior and noise laws must have a mean and a variance (Gaussian, Laplace, uniform, exponential).
 * Numbers cross this interface as double in both builds; cfg->mode is not read (the link's CELLS names it).
 */
#ifndef UX_JOINT_CELLS_H
#define UX_JOINT_CELLS_H

#include "config.h"
#include "joint_filter.h"
#include "joint_model.h"
#include "workspace.h"

/* A cell lighter than this after an update is merged into its nearest cell (the Mahalanobis distance of the
 * means under the belief's covariance), freeing its place for a split. */
#define UX_CELLS_MERGE_WEIGHT 1e-3
/* A cell is split only where the model bends over it: the transition's images of its ± sigma points, or the
 * kernel's locations at them and at their pairwise corners, leave a line through the centre's image by more
 * than this, summed in squares of the predicted cell's sd (transition) and of the kernel's sd (observation). */
#define UX_CELLS_BEND 1e-2
/* Power iterations for a cell's top spread direction: a direction, not an exact eigenvector, is needed. */
#define UX_CELLS_SPLIT_ITERATIONS 8

/* Bytes of one bank of cells: weights, transition bends, means, covariances. */
#define UX_CELLS_BANK_BYTES(eta, dim)                                                                                  \
    (2u * UX_WS_REALS(eta) + UX_WS_REALS((size_t)(eta) * (dim)) + UX_WS_REALS((size_t)(eta) * (dim) * (dim)))
/* Workspace a cell filter of state dimension dim needs at size eta: two banks (the belief and the step being
 * built, so a refused step changes nothing) and each cell's split direction and spread. */
#define UX_JOINT_CELLS_WORKSPACE_BYTES(eta, dim)                                                                       \
    (2u * UX_CELLS_BANK_BYTES(eta, dim) + UX_WS_REALS((size_t)(eta) * ((dim) + 1u)))

typedef struct {
    ux_real *w, *b, *m, *P; /* count weights and transition bends, rows of dim, dim × dim matrices (row-major) */
} ux_cells_bank;

typedef struct {
    const ux_joint_model *model;
    ux_real params[UX_MODEL_MAX_PARAMS];
    unsigned eta, dim, count;
    ux_cells_bank cur, next;
    ux_real *spread; /* per cell: the top eigenvalue against the belief's covariance, then its direction */
    ux_real noise_mean[UX_JOINT_MAX_NOISES], noise_var[UX_JOINT_MAX_NOISES];
    ux_real w0, wi, scale; /* sigma-point weights (centre, others) and spread √(d + κ) */
    ux_status last;
    ux_real log_evidence; /* log p(z_k | z_0..k−1) of the last update */
    double log_likelihood;
    uint8_t exchange; /* 1 (init's): one exchange per update; 0: none (ux_joint_cells_set_exchange) */
    ux_evidence_tests tests; /* the innovation gate and the consistency mean (filter.h) */
    ux_real departure[UX_MAX_DIM]; /* how far the model's own posterior mean may be from the belief's (0: none) */
} ux_joint_cells;

/*
 * Validate the configuration and start from the prior's one cell. UX_ERR_ARG: no model, a model whose noise
 * is not additive, η not a power of two ≤ UX_MAX_ETA. UX_ERR_DOMAIN: a parameter, or a prior or noise law
 * without a mean and variance. UX_ERR_WORKSPACE: smaller than UX_JOINT_CELLS_WORKSPACE_BYTES or misaligned.
 */
ux_status ux_joint_cells_init(ux_joint_cells *f, const ux_joint_filter_config *cfg, ux_workspace ws);

/* Predict step k with control input u: each cell's sigma points through the transition at the noise's mean,
 * their moments plus the process covariance. UX_ERR_DOMAIN (the belief unchanged) for a non-finite point or
 * covariance. */
ux_status ux_joint_cells_predict(ux_joint_cells *f, uint32_t k, double u);

/*
 * Update with one observation z (dim_obs components; J = 1, m = 1; omega, if given, one positive weight):
 * splits up to η cells, then each cell's sigma-point (unscented) update, its weight times its predictive
 * density at z; light cells merged. J = 0, m = 0: UX_NO_EVIDENCE, nothing changes. UX_FALLBACK when no cell
 * gives z a positive density (the belief kept, split). UX_OUTLIER in place of UX_OK when z fails the
 * innovation gate (its test ratio against the split cells' predictive above gate²); with gate_outliers the
 * cells are then kept as split, not weighed, log evidence 0. UX_ERR_ARG for J > 1 or m > 1 (one observation
 * per update), UX_ERR_DOMAIN for a non-finite z; nothing changes then. UX_DEPARTED in place of UX_OK while the
 * departure an outlier left (ux_joint_cells_departure) exceeds UX_DEPARTURE_SD in the belief's covariance.
 */
ux_status ux_joint_cells_update(ux_joint_cells *f, const double *z, const double *omega, unsigned J, unsigned m);

/*
 * Turn the exchange (before each update: merge the closest pair when that costs less than the best split gains)
 * on (1, init's default) or off (0: once η cells exist they change only by light merges). Each exchange is a
 * decision the parameters flip, a step in the log-likelihood along them; uxemu's fits run with it off
 * (docs/semantics.md "Cell filter"). UX_ERR_ARG for no filter or a value other than 0 and 1.
 */
ux_status ux_joint_cells_set_exchange(ux_joint_cells *f, int on);

/*
 * The innovation gate in standard deviations (init's: UX_OUTLIER_GATE; INFINITY turns the test off) and whether
 * an observation that fails it is not weighed (gate_outliers, init's 0), as ux_filter_set_gate. UX_ERR_ARG
 * unless gate > 0.
 */
ux_status ux_joint_cells_set_gate(ux_joint_cells *f, double gate, int gate_outliers);
/* The last update's test ratio νᵀ·S⁻¹·ν (docs/semantics.md, "Cell filter"); NaN without observation or where
 * the cells' predictive covariance is not positive definite. */
double ux_joint_cells_test_ratio(const ux_joint_cells *f);
/* The running mean of the test ratio per observation component (docs/semantics.md, "Consistency"; 1 at init):
 * above its limit (set_consistency below) an update that would be UX_OK is UX_INCONSISTENT. */
double ux_joint_cells_nis(const ux_joint_cells *f);
/* The limit of that mean (init's: UX_NIS_LIMIT; INFINITY turns the status off). UX_ERR_ARG unless limit > 0. */
ux_status ux_joint_cells_set_consistency(ux_joint_cells *f, double limit);
/* The departure (dim): how far the model's own posterior mean may be from the belief's after an outlier the cells
 * weighed, where their move overshot the model's or fell short of it (docs/semantics.md, "Cell filter"); 0 when
 * none is kept. */
ux_status ux_joint_cells_departure(const ux_joint_cells *f, double *departure);
/* UX_JOINT_CELLS_WORKSPACE_BYTES for this model's dimension; 0 for no model or an invalid η. */
size_t ux_joint_cells_workspace_bytes(const ux_joint_model *model, unsigned eta);
size_t ux_joint_cells_sizeof(void);
unsigned ux_joint_cells_count(const ux_joint_cells *f);
/* Cell i's weight, mean (dim) and covariance (dim × dim); UX_ERR_ARG for i ≥ count. */
ux_status ux_joint_cells_cell(const ux_joint_cells *f, unsigned i, double *w, double *mean, double *cov);
ux_status ux_joint_cells_mean(const ux_joint_cells *f, double *mean);
ux_status ux_joint_cells_cov(const ux_joint_cells *f, double *cov);
/* log of the belief's density at x (dim): the cells' Gaussian mixture. */
double ux_joint_cells_logpdf(const ux_joint_cells *f, const double *x);
ux_status ux_joint_cells_last_status(const ux_joint_cells *f);
double ux_joint_cells_log_evidence(const ux_joint_cells *f);
double ux_joint_cells_log_likelihood(const ux_joint_cells *f);

#endif /* UX_JOINT_CELLS_H */
