/*
 * uxbench/pf.h — the bootstrap particle filter the benchmarks measure the ux filter against.
 *
 * It runs the very model functions the ux filter lifts (the registry of firmware/src/models): particles
 * move through `transition` with sampled process noise and are weighed by the model's kernel form,
 *   log p(z | x) = log Σ_j ν_j g((z − loc_j)/scale_j)/scale_j,
 * where (ν_j, m_j) is the model's inner noise quantized at `inner_eta` atoms by the core's constructor
 * (deterministic; no inner noise: one term). Same step convention as the ux filter: step 0 draws from
 * the prior and weighs by the first observation (no predict); every later step resamples
 * systematically, propagates and weighs. The posterior of a step is the weighted set before
 * resampling. Weights live in the log domain with the maximum subtracted; a step whose likelihoods
 * are all zero or non-finite keeps equal weights and is flagged (the ux filter's fallback).
 *
 * Host-only benchmark code: no allocation (the caller gives the workspace and the output arrays), all
 * randomness from one xoshiro256** stream seeded by the caller.
 */
#ifndef UXBENCH_PF_H
#define UXBENCH_PF_H

#include <stddef.h>
#include <stdint.h>

#include "ux/law.h"
#include "ux/model.h"
#include "ux/workspace.h"

typedef struct {
    const ux_model *model;
    const double *params; /* model->n_params values; NULL for the model's defaults */
    const ux_law *prior; /* NULL for the model's prior */
    size_t n; /* particles, ≥ 1 */
    uint64_t seed; /* seeds the run's xoshiro256** stream */
    unsigned inner_eta; /* atoms of the inner-noise quantization (power of two ≤ UX_MAX_ETA; 0: 64) */
} uxb_pf_config;

/* Per-step outputs; any pointer may be NULL when not wanted. */
typedef struct {
    double *mean; /* T: Σ w x of the weighted set */
    double *var; /* T: Σ w (x − mean)² */
    double *ess; /* T: 1 / Σ w² */
    uint8_t *fallback; /* T: 1 where every likelihood was zero or non-finite */
    double *x; /* T·n, row per step: particle positions of the weighted set */
    double *w; /* T·n: their normalised weights */
    double *log_evidence; /* T: log of the mean likelihood, the PF's estimate of log p(z_t | z_0..t−1) */
} uxb_pf_output;

/* Bytes of workspace a run with n particles needs (three arrays of n reals). */
size_t uxb_pf_workspace_bytes(size_t n);

/*
 * Filter the trace (k[t], u[t], z[t]), t < T. UX_OK; UX_ERR_ARG for a missing model or array, n = 0,
 * a bad inner_eta, a model without kernel form, or a prior / noise law the filter cannot sample
 * (Gaussian, Laplace, uniform, exponential, lognormal and point laws can be sampled); UX_ERR_DOMAIN for
 * parameters out of their domain; UX_ERR_WORKSPACE for too small or misaligned a workspace.
 */
ux_status uxb_pf_run(const uxb_pf_config *cfg, const uint32_t *k, const double *u, const double *z, size_t T,
                     const uxb_pf_output *out, ux_workspace ws);

#endif /* UXBENCH_PF_H */
