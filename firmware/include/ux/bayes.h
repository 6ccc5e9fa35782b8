/*
 * ux/bayes.h — BayesLaplace: weight prior hypotheses by the likelihood of evidence, then TTR.
 *
 * Two likelihood paths (docs/semantics.md):
 *  - kernel: per inner-noise atom j the model gives loc_ij and scale_ij of an outer noise family with a
 *    known standard density; p(z | x_i) = Σ_j ν_j g((z − loc_ij)/scale_ij)/scale_ij (exact);
 *  - sampler: y_i = lift(h(x_i, noise…)) reduced to η atoms; p(z | x_i) = TTR-binned pdf of y_i at z.
 * Evidence is J weighted points (z_k, ω_k) standing for m observations:
 * log L_i = m Σ_k ω_k log p(z_k | x_i); the posterior weights are w_i·exp(log L_i − max_j log L_j).
 */
#ifndef UX_BAYES_H
#define UX_BAYES_H

#include "config.h"
#include "lift.h"
#include "law.h"
#include "value.h"
#include "workspace.h"

/* Kernel observation model: args = {x, inner noise atom (if any)} → location and scale (> 0). */
typedef void (*ux_kernel_fn)(const ux_real *args, const void *ctx, ux_real *loc, ux_real *scale);
/* The kernel at x for every inner-noise atom inner[j], j < count, at once: loc[j], scale[j] equal to the
 * kernel's at {x, inner[j]} bit for bit, with what depends on x alone computed once. */
typedef void (*ux_kernel_row_fn)(ux_real x, const ux_real *inner, size_t count, const void *ctx, ux_real *loc,
                                 ux_real *scale);

/* The innovation gate's sums over the prior atoms (ux_innovation_ratio): about the first atom's loc, in atom
 * order; w: the atoms' weights (the caller's, read as a likelihood pass meets each atom). */
typedef struct {
    const ux_real *w;
    ux_real first, total, s1, s2, e2;
    size_t count;
} ux_innovation;

typedef struct {
    ux_likelihood form;
    const void *ctx; /* passed to kernel / sampler */
    /* kernel form */
    ux_law_kind family; /* outer noise family: UX_LAW_GAUSSIAN, UX_LAW_LAPLACE or UX_LAW_UNIFORM */
    ux_kernel_fn kernel;
    const ux_value *inner; /* inner noise, or NULL for none */
    /* sampler form: y = sampler({x, noise[0], …, noise[n_noise−1]}, ctx) */
    ux_fn sampler;
    const ux_value *const *noise;
    unsigned n_noise; /* 1 ≤ n_noise < UX_MAX_ARGS */
    unsigned eta; /* atoms of each y_i (0: the largest eta of the noises) */
    ux_kernel_row_fn kernel_row; /* kernel form with inner noise: optional, `kernel` per atom when NULL */
    /* Kernel form without inner noise: when not NULL, a likelihood pass over the atoms also takes the innovation
     * gate's sums from the loc and scale it evaluates (one kernel call per atom serves both). */
    ux_innovation *innovation;
} ux_observation;

typedef struct {
    const ux_real *z; /* evidence positions */
    const ux_real *omega; /* their weights (NULL: one point, ω = 1) */
    unsigned count; /* J ≥ 1 */
    unsigned m; /* number of observations the evidence stands for, ≥ 1 */
} ux_evidence;

/*
 * The innovation gate's statistic (docs/semantics.md, "Innovation gate"): max_k (z_k − E z)² / Var z, the
 * evidence's normalised innovation squared under the predictive law of one observation from the prior atoms
 * (px, pw): E z and Var z from the kernel's loc and scale at every atom (an inner noise held at its mean)
 * and the outer family's variance. Kernel form only; NaN where it cannot be taken (a non-finite loc or
 * scale, or the sampler form).
 */
ux_real ux_innovation_ratio(const ux_observation *obs, const ux_real *px, const ux_real *pw, size_t count,
                            const ux_evidence *ev);
/* ν²/S from sums a likelihood pass took (ux_observation.innovation); NaN unless they cover `count` atoms. */
ux_real ux_innovation_finish(const ux_innovation *sums, ux_law_kind family, size_t count, const ux_evidence *ev);
/* The sums ux_innovation_ratio finishes, into *sums (its w: pw); UX_ERR_ARG for the sampler form. */
ux_status ux_innovation_sums(const ux_observation *obs, const ux_real *px, const ux_real *pw, size_t count,
                             ux_innovation *sums);
/* The statistically linearised update of prior atoms (px, pw) — mean `mean`, variance `var` — on one evidence
 * point z (docs/semantics.md, "Linear update"): gain K = Cov(x, loc)/S, S = Var loc + Var z|x. */
typedef struct {
    ux_real shift; /* K·ν: how far the mean moves */
    ux_real var; /* V·(v_g·E scale²)/S: the variance a line in x leaves (V − K·Cov(x, loc)) */
    ux_real ratio; /* ν²/S, the innovation gate's statistic (as ux_innovation_ratio computes it) */
    ux_real log_evidence; /* log N(ν; 0, S) */
    ux_real loc_var; /* Var loc */
    ux_real residual; /* Var loc − Cov²/V: what a line in x leaves of it */
    ux_real noise; /* v_g·E scale²: the observation noise's variance */
    ux_real bimodality; /* the atoms' bimodality coefficient (γ² + 1)/κ */
    int same_scale; /* every atom's scale is the first's */
} ux_linear;

/* Kernel form without inner noise only (else UX_ERR_ARG): one kernel call per atom, sums in atom order, x about
 * `mean` and loc about the first atom's loc. At the first atom whose scale is not the first's it stops, with
 * same_scale 0 and the other fields unset. */
ux_status ux_linear_update(const ux_observation *obs, const ux_real *px, const ux_real *pw, size_t count, ux_real z,
                           ux_real mean, ux_real var, ux_linear *out);

/* How far a linear update would move the mean on the worst evidence point (docs/semantics.md, "Departure"):
 * √(V·Var loc)/Var z·|ν|, V the prior atoms' variance; NaN unless the sums cover `count` atoms. */
ux_real ux_innovation_shift(const ux_innovation *sums, ux_law_kind family, size_t count, const ux_evidence *ev,
                            ux_real prior_var);

/*
 * Posterior of the prior atoms (px, pw; any count, any order, positive weights) at eta atoms into `out` (fresh
 * source). Returns UX_OK, or UX_FALLBACK when every likelihood is zero or non-finite — then `out` is
 * the prior reduced with TTR — or an error: non-finite evidence or ω < 0 or m = 0 (UX_ERR_DOMAIN),
 * bad arguments (UX_ERR_ARG), too small a workspace (UX_ERR_WORKSPACE). The prior arrays are consumed
 * (used as scratch, so refined mode needs no second copy of its η² atoms). `out` is written only on
 * UX_OK or UX_FALLBACK.
 * `log_evidence` (NULL: not wanted) receives log p(evidence) under the prior atoms, the normalising
 * constant of the update: L + log Σ_i w_i·exp(ℓ_i − L) − log Σ_i w_i (L = max ℓ; −∞ on a fallback).
 * Workspace: UX_BAYES_WORKSPACE_BYTES(prior_count, noise points per hypothesis).
 */
ux_status ux_bayes_laplace(ux_value *out, const ux_observation *obs, ux_real *px, ux_real *pw, size_t prior_count,
                           const ux_evidence *ev, unsigned eta, ux_sources *src, ux_workspace *ws,
                           ux_real *log_evidence);

/* ux_bayes_laplace that also writes the log of the unnormalised evidence, L + log Σ_i w_i exp(ℓ_i − L)
 * summed in order (−∞ on UX_FALLBACK), to *log_evidence when it is not NULL. */
ux_status ux_bayes_laplace_evidence(ux_value *out, const ux_observation *obs, ux_real *px, ux_real *pw,
                                    size_t prior_count, const ux_evidence *ev, unsigned eta, ux_sources *src,
                                    ux_workspace *ws, ux_real *log_evidence);

/* The same for a value prior; the output is built for the prior's eta. */
ux_status ux_bayes_laplace_value(ux_value *out, const ux_observation *obs, const ux_value *prior, const ux_evidence *ev,
                                 ux_sources *src, ux_workspace *ws);

#endif /* UX_BAYES_H */
