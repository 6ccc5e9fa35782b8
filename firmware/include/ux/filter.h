/*
 * ux/filter.h — the BayesLaplace filter: predict by lifting the transition, update by BayesLaplace.
 *
 * Typical use (static memory only):
 *
 *     static ux_filter f;
 *     static uint64_t ws[UX_WORDS(UX_WORKSPACE_BYTES(32))];
 *     ux_filter_config cfg = { ux_model_find(1), NULL, 32, UX_MODE_REFINED, UX_LIK_KERNEL, NULL };
 *     ux_workspace w = { ws, sizeof ws };
 *     ux_filter_init(&f, &cfg, w);
 *     for (k = 0; k < T; ++k) {
 *         if (k > 0) ux_filter_predict(&f, k, u[k]);       // the first observation is of x_0
 *         st = ux_filter_update(&f, &z[k], NULL, 1, 1);    // UX_OK, UX_FALLBACK (prior kept), UX_REFOCUSED
 *         // a missing sample: ux_filter_update(&f, NULL, NULL, 0, 0) → UX_NO_EVIDENCE
 *         mean = ux_filter_mean(&f);
 *     }
 *
 * Numbers cross this interface as double in both builds, because the link carries f64; the float build
 * converts on the way in and out. The filter keeps its predictive atoms in the workspace between
 * predict and update, so the workspace must not be reused by the caller while the filter lives.
 */
#ifndef UX_FILTER_H
#define UX_FILTER_H

#include "bayes.h"
#include "config.h"
#include "law.h"
#include "model.h"
#include "value.h"
#include "workspace.h"

/* Refined (default): the update weights all η² predictive atoms and reduces once. Paper: the
 * prediction is reduced to η atoms first. Mixture: refined, except that where the posterior has a
 * quadrature density (UX_DENSITY_PRIOR or UX_DENSITY_MIXTURE, with its likelihood factor) the posterior
 * atoms are TTR of the piecewise-linear law through that density's UX_DENSITY_NODES nodes (ux_ttr_linear),
 * whose cells' spreads widen the next predictive mixture's components, and the step's evidence is its log Z
 * (docs/semantics.md, "Filter"). The enum ux_mode (UX_MODE_REFINED …) is in ux/facts.h. */

typedef struct {
    const ux_model *model;
    const double *params; /* model->n_params values; NULL for the model's defaults */
    unsigned eta; /* power of two, 1..UX_MAX_ETA */
    ux_mode mode;
    ux_likelihood likelihood;
    const ux_law *prior; /* NULL for the model's default prior */
} ux_filter_config;

/* The innovation gate's default (docs/semantics.md, "Innovation gate"): an observation whose normalised
 * innovation squared ν²/S exceeds UX_OUTLIER_GATE² is an outlier (5 standard deviations: PX4's EKF2 gates its
 * fusions at 3–5). */
#define UX_OUTLIER_GATE 5.0

/* Smooth refined (docs/semantics.md, "Filter"): an update whose weighed points' effective count falls below
 * UX_REFOCUS_ESS·η builds its posterior from the density's quadrature; at η ≥ UX_REFOCUS_WIDE_ETA below twice
 * that: there η² points crowd the main mode and pass 2η while a mode of 1 % between them goes unweighed (gss,
 * σ_n = 1/20, η = 64: 40 silent steps of 2,000 at 2η, 5 at 4η). */
#define UX_REFOCUS_ESS 2
#define UX_REFOCUS_WIDE_ETA 32

/* Smooth refined (docs/semantics.md, "Filter", the open edge): an update also builds its posterior from the
 * quadrature when the posterior's density still rises at an outermost weighed point and that point alone holds
 * UX_EDGE_SHARE of the posterior's variance — the points end where the posterior still has mass. */
#define UX_EDGE_SHARE UX_R(0.0625)
/* ... or, at η ≥ UX_EDGE_PROBES_ETA, when the likelihood rises at an outermost weighed point and the numerator
 * at UX_EDGE_PROBES points past it, spaced by the scale of that side's outermost predictive component, holds
 * UX_EDGE_SHARE of it: a likelihood mode past the points. Below that η the probes' refocus measured worse. */
#define UX_EDGE_PROBES 2
#define UX_EDGE_PROBES_ETA 16

/* The smooth filter's kernel (docs/semantics.md, "Filter", the kernel): at a predict, UX_KERNEL_SHARE of the
 * belief's variance moves from between its atoms into every component, at most UX_KERNEL_CAP of the atoms'
 * own; in full after an update that took nothing from the variance, none after one that took UX_KERNEL_INFO
 * of it or more, and none for a belief whose bimodality coefficient exceeds UX_KERNEL_BIMODALITY. */
#define UX_KERNEL_SHARE UX_R(0.3)
#define UX_KERNEL_CAP UX_R(0.9)
#define UX_KERNEL_INFO UX_R(0.5)
#define UX_KERNEL_BIMODALITY UX_R(0.4)

/* A cell the transition bends (docs/semantics.md, "Filter density"): its image splits into its two points'
 * components when their half-distance τ exceeds the process noise's σ and f at the cell's mean lies more than
 * UX_CELL_BEND·|τ| from their midpoint, or f at x ± 2r more than UX_CELL_BEND·2|τ| from the line through
 * their images (one Gaussian there reaches where f sends nothing: a fold's flanks, a saturation's far side). */
#define UX_CELL_BEND UX_R(0.1)

/* The linear update (docs/semantics.md, "Linear update"): a kernel is linear in the state over the prior atoms
 * when what a line in the state leaves of its loc's variance is at most UX_LINEAR_RESIDUAL of the observation
 * noise's variance, plus UX_LINEAR_ROUNDING of the loc's (the sums' rounding: a prior 10³ times wider than the
 * noise leaves 10⁻⁷ of it in float). */
#define UX_LINEAR_RESIDUAL UX_R(1e-4)
#ifndef UX_REAL_FLOAT
#define UX_LINEAR_ROUNDING UX_R(1e-9)
#else
#define UX_LINEAR_ROUNDING UX_R(1e-4)
#endif
/* … and its prior points have one mode: a bimodality coefficient (γ² + 1)/κ at most the uniform law's, 5/9 (the
 * usual reading of the coefficient; the kernel's stricter 0.4 refused a third of the 16 points of η = 4). */
#define UX_LINEAR_BIMODALITY UX_R(0.5555555555555556)

/* Departure (docs/semantics.md, "Departure"): a smooth filter's posterior whose estimated distance from the
 * model's own, left by an outlier it could not follow, exceeds UX_DEPARTURE_SD of its sd is UX_DEPARTED. */
#define UX_DEPARTURE_SD UX_R(0.5)

/* Consistency (docs/semantics.md, "Consistency"), every filter's and the joint filters' alike: the running mean
 * of the test ratio per observation component, each update's ratio weighed UX_NIS_WEIGHT (the last 16 or so)
 * and counted at most UX_NIS_CAP (one outlier has its own status); an update whose status would be OK is
 * UX_INCONSISTENT while the mean exceeds the filter's limit, UX_NIS_LIMIT unless set (ux_filter_set_consistency;
 * 1 for a calibrated predictive; a Gaussian one's passes 3 on about 10⁻⁴ of steps). */
#define UX_NIS_WEIGHT 0.0625
#define UX_NIS_CAP 25.0
#define UX_NIS_LIMIT 3.0

/* The tests every filter runs on its evidence (docs/semantics.md, "Innovation gate", "Consistency"), kept in
 * one struct by the scalar filter, the cell filter and the joint atom filter alike. */
typedef struct {
    ux_real gate; /* the innovation gate in sd (set_gate; init's UX_OUTLIER_GATE) */
    ux_real ratio; /* the last update's test ratio (NaN: not taken) */
    ux_real nis; /* the running mean of the ratios per observation component */
    ux_real nis_limit; /* above it an update that would be OK is INCONSISTENT (set_consistency) */
    uint8_t drop; /* 1: an observation that fails the gate is treated as missing (gate_outliers) */
} ux_evidence_tests;

/* The filter density's normaliser: UX_DENSITY_INTERVALS (workspace.h) trapezoid intervals over the
 * support of its base law, and that support in scales of the base law (beyond it a Gaussian holds e^−50
 * of its mass, a Laplace e^−40). */
#define UX_DENSITY_GAUSSIAN_REACH 10
#define UX_DENSITY_LAPLACE_REACH 40

/* The quadrature's region (docs/semantics.md, "Filter", "Filter density"): prior atoms (or nodes) whose
 * numerator is below UX_REFOCUS_FLOOR of the largest lie outside it; the density's quadrature (a mixture-mode
 * or refocused update's, and every mode's log Z) narrows its region to its own nodes' bracket, at most
 * UX_REFOCUS_ROUNDS times, while fewer than UX_REGION_NODES of them reach the floor. */
#define UX_REFOCUS_FLOOR UX_R(9.094947017729282379150390625e-13) /* 2^-40 */
#define UX_REFOCUS_ROUNDS 4
#define UX_REGION_NODES 32
/* ... where, at the first round with fewer, the nodes reaching the floor form clumps apart and all but the heaviest
 * hold less than 1/η of Σ e each, at most UX_LUMPS of them, the region narrows onto the heaviest and each other
 * clump takes its own quadrature: one lump of the posterior, its mass, mean and spread (a narrow mode beside a
 * far, faint one: one region over both leaves nodes 3 sd of the mode apart). */
#define UX_LUMPS 2
/* ... and where the nodes' largest value is a peak narrower than a quarter of their spacing (its neighbours'
 * product below UX_NARROW_PEAK: log e falls by 16 across them), other peaks as narrow may hide between nodes,
 * far below the floor at the nearest: each interior local maximum of the nodes, up to 1 + UX_LUMPS, is zoomed on
 * as a lump, the heaviest becomes the region and the others lumps (a sensor 20 times more precise than gss's left
 * the mirror of 0.22 of the mass unseen between nodes 0.78 apart). */
#define UX_NARROW_PEAK UX_R(1.1920928955078125e-07) /* 2^-23 */
/* A lump enters the posterior's TTR cells (ux_ttr_linear_lumps), but for mixture mode at η ≥ UX_LUMP_ATOM_ETA,
 * whose next predictive carries each atom's spread: there it is an atom of its own, in place of the lightest
 * adjacent pair merged. In a cell 47 from the rest of it a lump made that component 13 wide (log L 22.6 nats
 * off at one σ_n); below η = 16 merging a pair of few atoms roughened log L (gss η = 4: 0.056 → 0.18 nats). */
#define UX_LUMP_ATOM_ETA 16

/* The trapezoid resolves the numerator (docs/semantics.md, "Filter density") only where the node spacing h is
 * at least UX_NODE_RESOLUTION ε of the region's largest |t| (the nodes stand apart far beyond rounding: a
 * posterior collapsed onto its atoms' rounding has h of about ε|t|) and a mixture's widest component spans at
 * least UX_COMPONENT_SPAN h (a process noise far below the predictive's spread makes spikes between the
 * nodes). Elsewhere log Z is the update's evidence and a mixture-mode update keeps its own posterior. Every
 * filter run of the systems at their defaults has h above 10^12 ε|t| and its widest component above 2 h. */
#define UX_NODE_RESOLUTION 1024
#define UX_COMPONENT_SPAN UX_R(0.5)

/* Mixture mode's comb (docs/semantics.md, "Filter"): where the quadrature's nodes resolve the numerator but some
 * predictive component is narrower than UX_COMB_SPAN h or than UX_COMB_GAP of its distance to the nearer
 * neighbouring centre (at most of the centres' mean spacing), every component is widened to at least that.
 * A Gaussian of scale h/2 loses 1 % of its mass to the trapezoid, of scale h below 10^-8; a comb of Gaussians of
 * scale s at spacing d ripples by 2·exp(−2π²s²/d²): 1.4 % at s = d/2, 38 % at a cell's own spread (about
 * 0.29 d). At their defaults the systems widen at η ≤ 4 and hardly above; a process noise far below the
 * cells' spacing (a near-static state) widens at every η. */
#define UX_COMB_SPAN UX_R(1.0)
#define UX_COMB_GAP UX_R(0.5)
/* ... the spacing term only for a mixture whose bimodality coefficient is at most Sarle's 5/9: between two
 * modes the centres' spacing is the gap between them, and widening across it roughened gss's log-likelihood at
 * η = 4 (0.077 → 0.12 nats rms off a quadratic). */
#define UX_COMB_BIMODALITY UX_R(0.5555555555555556)

/* How ux_filter_pdf reads the posterior (docs/semantics.md, "Filter density"). */
typedef enum {
    UX_DENSITY_BINS = 0, /* the posterior value's TTR-binned density (ux_pdf) */
    UX_DENSITY_PRIOR = 1, /* first update: prior law density × likelihood / Z */
    UX_DENSITY_MIXTURE = 2, /* predictive mixture × likelihood / Z */
} ux_density_form;

/* The posterior's density (ux_filter_pdf): its form and what reading it needs. A new posterior resets it
 * as a whole (filter_density_reset in the core); the arrays it names live in the filter's workspace. */
typedef struct {
    ux_real log_norm; /* log of its normaliser, once computed (norm_ready) */
    ux_real lo, hi; /* the first update's region, when region */
    unsigned m; /* the last update's m (its likelihood factor) */
    uint8_t form; /* ux_density_form */
    uint8_t lik; /* 1: it carries the likelihood factor (0 after a fallback) */
    uint8_t count; /* its mixture components (centres, weights in the workspace) */
    uint8_t J; /* its evidence count (positions, weights in the workspace) */
    uint8_t norm_ready; /* 1: log_norm holds this posterior's normaliser */
    uint8_t region; /* 1: its support is [lo, hi] */
    uint8_t logs_ready; /* 1: its mixture components' log w − log σ are taken */
} ux_filter_density;

/* All state of one filter. Treat as opaque; read it through the functions below. */
typedef struct {
    const ux_model *model;
    ux_real params[UX_MODEL_MAX_PARAMS];
    unsigned eta, n;
    ux_mode mode;
    ux_likelihood likelihood;
    ux_value posterior; /* the current belief */
    ux_value process; /* quantized process noise */
    ux_value inner; /* kernel form inner noise (if the model has one) */
    ux_value noise[UX_MODEL_MAX_NOISES]; /* sampler form observation noises */
    unsigned n_inner, n_noise;
    ux_sources sources;
    ux_workspace ws;
    size_t ws_used; /* bytes of workspace the configuration needs */
    size_t staged; /* atoms of the staged prediction in the workspace, 0: none */
    ux_status last; /* status of the last update */
    ux_real log_evidence; /* log p(z_k | z_0..k−1) of the last update */
    double log_likelihood; /* Σ of log_evidence over every update since init */
    ux_law prior; /* the prior law (its density serves the first update) */
    ux_filter_density density; /* how ux_filter_pdf reads the posterior */
    uint32_t pred_k; /* k of the last predict (the mixture's transition) */
    ux_real pred_u; /* u of the last predict */
    ux_real post_var; /* smooth: the posterior's variance, when has_var */
    ux_real info; /* smooth: the share of the variance the last update took */
    ux_real departure; /* smooth: how far the model's own posterior mean may be */
    ux_evidence_tests tests; /* the innovation gate and the consistency mean */
    uint8_t fresh; /* 1 until the first update */
    uint8_t spread; /* 1: the belief's atoms carry cell spreads (mixture; smooth) */
    uint8_t smooth; /* refined with additive Gaussian process noise ("Filter") */
    uint8_t pending; /* the staged prediction's mixture components (smooth) */
    uint8_t has_var; /* smooth: post_var holds the posterior's variance */
} ux_filter;

/*
 * Validate the configuration, quantize prior and noises at η, check the workspace is large enough.
 * UX_ERR_ARG: no model, η not a power of two ≤ UX_MAX_ETA, unknown mode or likelihood, a likelihood
 * form the model lacks. UX_ERR_DOMAIN: a parameter or the prior out of domain (see
 * ux_filter_check_params for which). UX_ERR_WORKSPACE: workspace too small or misaligned.
 * On error the filter is left unconfigured. Init only checks the workspace, it does not write it, so a
 * new configuration can be tried on a spare ux_filter while another filter still uses the same block.
 */
ux_status ux_filter_init(ux_filter *f, const ux_filter_config *cfg, ux_workspace ws);

/* Index of the first invalid parameter (not finite or out of domain), −1 when all are valid. */
int ux_filter_check_params(const ux_model *model, const double *params);

/* Bytes of workspace the filter needs for this configuration (≤ UX_WORKSPACE_BYTES(eta)). */
size_t ux_filter_workspace_bytes(const ux_model *model, unsigned eta, ux_mode mode, ux_likelihood lik);

/* Bytes of workspace the configured filter uses. */
size_t ux_filter_workspace_in_use(const ux_filter *f);

/*
 * Predict step k with control input u: lift the transition over {posterior, process noise}; the η²
 * atoms are staged for the next update (reduced to η first in paper mode). Calling predict twice
 * without an update first reduces the staged prediction to η atoms and predicts from it.
 * UX_ERR_DOMAIN when the transition produces a non-finite value (the filter is unchanged).
 */
ux_status ux_filter_predict(ux_filter *f, uint32_t k, double u);

/*
 * Update with evidence z[0..J−1] with weights omega (NULL: equal weights 1/J) standing for m ≥ 1
 * observations. The prior is the staged prediction, or the current belief when none is staged — except
 * the first update in refined and mixture modes, which weighs the prior law at min(η², UX_MAX_ETA) atoms
 * (a law with a location–scale form; docs/semantics.md, "Filter").
 * Returns UX_OK, UX_FALLBACK (every likelihood zero or non-finite: the posterior is the prior reduced
 * to η atoms), UX_REFOCUSED (that first update, with a Gaussian or Laplace prior, found the likelihood
 * too narrow for the prior's atoms and built the posterior over the likelihood's region), UX_OUTLIER (the
 * evidence failed the innovation gate, ux_filter_set_gate: the update ran as any other, or, when the filter
 * gates outliers, the posterior is the prior reduced to η atoms as without observation), or an error (non-finite evidence, m = 0, J out of 1..UX_MAX_ETA: UX_ERR_DOMAIN /
 * UX_ERR_ARG), in which case nothing changes.
 * A step without observation (a missing sample) is J = 0 and m = 0 (z and omega may be NULL): the
 * posterior is the prior reduced to η atoms, as on a fallback, and the status UX_NO_EVIDENCE.
 */
ux_status ux_filter_update(ux_filter *f, const double *z, const double *omega, unsigned J, unsigned m);

/*
 * Density of the current posterior at t (docs/semantics.md, "Filter density"): with a model that
 * declares additive Gaussian process noise, after a predict + update, the predictive mixture
 * L(t)·Σ_i w_i N(t; c_i, s_i²)/Z; after the first update (no predict) with a Gaussian or Laplace prior
 * law, L(t)·p_prior(t)/Z; otherwise the TTR-binned density of the posterior value (ux_pdf). Z is the
 * integral of the numerator by the trapezoid rule on UX_DENSITY_INTERVALS intervals: the first read after
 * an update computes it (UX_DENSITY_INTERVALS + 1 likelihood evaluations) and keeps it in the filter,
 * hence the non-const filter. Uses the filter's scratch workspace (never the staged prediction), so it
 * may be called at any time. ux_filter_logpdf returns −∞ where the density is 0; both return NaN for an
 * unconfigured filter.
 */
double ux_filter_logpdf(ux_filter *f, double t);
double ux_filter_pdf(ux_filter *f, double t);
ux_density_form ux_filter_density_form(const ux_filter *f);

/* sizeof(ux_filter), for bindings that allocate the state from another language. */
size_t ux_filter_sizeof(void);

const ux_value *ux_filter_posterior(const ux_filter *f);
double ux_filter_mean(const ux_filter *f);
double ux_filter_var(const ux_filter *f);
ux_status ux_filter_last_status(const ux_filter *f);
/*
 * The innovation gate (docs/semantics.md, "Innovation gate"): every update with the kernel form first takes
 * ν²/S of its evidence under the prior atoms' predictive law of one observation (ux_innovation_ratio); above
 * gate² the status is UX_OUTLIER, and with gate_outliers ≠ 0 the observation is treated as missing. Init sets
 * UX_OUTLIER_GATE and gate_outliers = 0; gate = INFINITY turns the test off. UX_ERR_ARG unless gate > 0.
 */
ux_status ux_filter_set_gate(ux_filter *f, double gate, int gate_outliers);
/* ν²/S of the last update (NaN: not taken — the sampler form, a step without observation, a loc or scale
 * not finite); the test ratio an EKF reports for each fusion is this over gate². */
double ux_filter_test_ratio(const ux_filter *f);

/* The running mean of the updates' test ratios, each counted at most UX_NIS_CAP (docs/semantics.md,
 * "Consistency"; 1 at init): above its limit (ux_filter_set_consistency) an update that would be UX_OK is
 * UX_INCONSISTENT. */
double ux_filter_nis(const ux_filter *f);
/* The limit of that mean (init's: UX_NIS_LIMIT; INFINITY turns the status off). UX_ERR_ARG unless limit > 0. */
ux_status ux_filter_set_consistency(ux_filter *f, double limit);
/* log p(z_k | z_0..k−1) of the last update: the log of its normalising constant (docs/semantics.md,
 * "Evidence"); 0 for a step without observation, −∞ on a fallback. */
double ux_filter_log_evidence(const ux_filter *f);
/* log p(z_0..k) so far: the sum of every update's log evidence since init (a deterministic function of
 * the parameters, so an optimiser can climb it). */
double ux_filter_log_likelihood(const ux_filter *f);
/* log p(z_k | z_0..k−1) of the last update by the filter density's quadrature (docs/semantics.md,
 * "Filter density"): the exact evidence of the filter's own predictive law, log ∫ b(t) e^{ℓ(t)} dt, where
 * ux_filter_log_evidence is BayesLaplace's η²-point sum of the same integral. Computed (and kept) at the
 * first call or density read after an update. Equal to ux_filter_log_evidence when the density is the
 * bins, after a fallback (−∞) and after a step without observation (0); NaN for an unconfigured filter. */
double ux_filter_density_log_evidence(ux_filter *f);

#endif /* UX_FILTER_H */
