/*
 * uxbench/joint_pf.h — the bootstrap particle filter over the joint systems (ux/joint_model.h), the
 * sampling baseline of the joint filtering benchmark.
 *
 * Same step convention as the scalar PF (uxbench/pf.h) and the joint ux filter: step 0 draws each
 * particle's components from the prior and weighs by z_0 (no predict); every later step resamples
 * systematically, moves each particle through `transition` with its process-noise components drawn
 * independently, and weighs by the kernel likelihood
 *   log p(z | x) = Σ_c log g((z_c − loc_c(x))/scale_c(x)) − log scale_c(x),
 * summed over the observation components in order. The posterior of a step is the weighted set before
 * resampling; a step whose likelihoods are all zero or non-finite keeps equal weights on the finite
 * particles and is flagged. The model's ctx is built once per step with (k[t], u[t]).
 *
 * Host-only benchmark code: no allocation, all randomness from one xoshiro256** stream seeded by the
 * caller (uxbench/sampling.h).
 */
#ifndef UXBENCH_JOINT_PF_H
#define UXBENCH_JOINT_PF_H

#include <stddef.h>
#include <stdint.h>

#include "ux/joint_model.h"
#include "ux/workspace.h"

typedef struct {
    const ux_joint_model *model;
    const double *params; /* model->n_params values; NULL for the model's defaults */
    const ux_law *prior; /* NULL for the model's prior; else model->dim independent component laws */
    size_t n; /* particles, ≥ 1 */
    uint64_t seed; /* seeds the run's xoshiro256** stream */
} uxb_joint_pf_config;

/* Per-step outputs; any pointer may be NULL when not wanted (dim = model->dim). */
typedef struct {
    double *mean; /* T·dim: Σ w x of the weighted set */
    double *cov; /* T·dim²: Σ w (x − mean)(x − mean)ᵀ, row-major */
    double *ess; /* T: 1 / Σ w² */
    uint8_t *fallback; /* T: 1 where every likelihood was zero or non-finite */
    double *x; /* T·n·dim: the weighted set's particles, step by step, rows of dim */
    double *w; /* T·n: their normalised weights */
    double *log_evidence; /* T: log of the mean likelihood (the PF's estimate of log p(z_t | z_0..t−1)) */
} uxb_joint_pf_output;

/* Bytes of workspace a run with n particles of dimension dim needs. */
size_t uxb_joint_pf_workspace_bytes(size_t n, unsigned dim);

/*
 * Filter the trace (k[t], u[t], z[t·dim_obs .. (t+1)·dim_obs)), t < T. UX_OK; UX_ERR_ARG for a missing
 * model or array, n = 0, or a prior / noise law it cannot sample (uxb_can_sample); UX_ERR_DOMAIN for
 * parameters out of their domain; UX_ERR_WORKSPACE for too small or misaligned a workspace.
 */
ux_status uxb_joint_pf_run(const uxb_joint_pf_config *cfg, const uint32_t *k, const double *u, const double *z,
                           size_t T, const uxb_joint_pf_output *out, ux_workspace ws);

#endif /* UXBENCH_JOINT_PF_H */
