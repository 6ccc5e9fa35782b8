/*
 * uxbench/joint_kf.h — the extended (EKF) and unscented (UKF) Kalman filters over the joint systems
 * (ux/joint_model.h), the Gaussian baselines of the joint filtering benchmark.
 *
 * They run the very model functions the joint ux filter lifts and the joint PF samples: no hand-written
 * Jacobian, every derivative is a central difference of `transition` or of the kernel's loc, with the
 * step rule of the scalar filters (uxbench/kf.h, uxb_diff_step: σ/100 of the variable differentiated,
 * floored at √ε·max(|v|, 1)). Each keeps a Gaussian belief N(x̂, P) of the state; step 0 starts from the
 * prior's means and variances (independent components) and updates with z_0; every later step predicts
 * with (k[t], u[t]), then updates. The posterior of a step is the belief after its update.
 *
 * Only models with additive noise (code->additive_noise: f(x, w) = f(x, 0) + A·w) are accepted: the
 * process covariance is Q = A·diag(var_j)·Aᵀ = Σ_j d_j d_jᵀ with d_j = f(x̂, w̄ + σ_j e_j) − f(x̂, w̄), the
 * noise's effect read from the model at the belief's mean (w̄_j, σ_j the component laws' means and
 * standard deviations). The observation noise is R = diag(scale_c(x̂)²·var(e)), var(e) the kernel
 * family's standard variance (Gaussian 1, Laplace 2, uniform 1/12).
 *
 * EKF (UXB_JKF_EKF). Predict: x̂ ← f(x̂, w̄), P ← F P Fᵀ + Q, F = ∂f/∂x at (x̂, w̄), column i by a central
 *   difference in x_i. Update: H = ∂loc/∂x at x̂ (row c, column i), S = H P Hᵀ + R, K = P Hᵀ S⁻¹,
 *   x̂ += K (z − loc(x̂)), P ← (I − KH) P (I − KH)ᵀ + K R Kᵀ (Joseph's form: symmetric and ≥ 0).
 * UKF (UXB_JKF_UKF): the scaled unscented transform over the state (n = dim; the noises are additive, so
 *   not augmented) with the scalar UKF's α = 1, β = 2, κ = 3 − n; 2n + 1 points x̂ and x̂ ± √(n + λ)·L_i,
 *   L the Cholesky factor of P (a non-positive pivot zeroes its column). Predict: the points through
 *   f(·, w̄), P = Σ Wᶜ (Y − ȳ)(Y − ȳ)ᵀ + Q. Update: points from the prediction through loc, S = Σ Wᶜ
 *   (Z − z̄)(Z − z̄)ᵀ + R, C = Σ Wᶜ (X − x̂)(Z − z̄)ᵀ, K = C S⁻¹, x̂ += K (z − z̄), P ← P − K S Kᵀ
 *   (symmetrised).
 * On a linear-Gaussian model both are the Kalman filter up to rounding. An update is skipped (flagged in
 * `skipped`) when z is not finite or S is not invertible with finite entries.
 *
 * Host-only benchmark code: no allocation, no randomness; the run is a pure function of its inputs.
 */
#ifndef UXBENCH_JOINT_KF_H
#define UXBENCH_JOINT_KF_H

#include <stddef.h>
#include <stdint.h>

#include "ux/joint_model.h"

typedef enum {
    UXB_JKF_EKF = 0,
    UXB_JKF_UKF = 1,
} uxb_joint_kf_method;

typedef struct {
    const ux_joint_model *model;
    const double *params; /* model->n_params values; NULL for the model's defaults */
    const ux_law *prior; /* NULL for the model's prior; else model->dim laws with finite variance */
    uxb_joint_kf_method method;
} uxb_joint_kf_config;

/* Per-step outputs; any pointer may be NULL when not wanted (dim = model->dim). */
typedef struct {
    double *mean; /* T·dim: posterior mean */
    double *cov; /* T·dim²: posterior covariance, row-major */
    uint8_t *skipped; /* T: 1 where the update was skipped */
    double *log_evidence; /* T: log N(z_t; ẑ_t, S_t), the predictive's density at z (0 where z is missing,
                             −∞ where S is singular): its sum is the filter's log-likelihood */
    double *nis; /* T: (z_t − ẑ_t)ᵀ S_t⁻¹ (z_t − ẑ_t), the normalised innovation squared (NaN where z is missing
                    or S is singular) */
} uxb_joint_kf_output;

/*
 * Filter the trace (k[t], u[t], z[t·dim_obs .. (t+1)·dim_obs)), t < T. UX_OK; UX_ERR_ARG for a missing
 * model or array, an unknown method, a model without additive noise, or a law without finite mean and
 * variance; UX_ERR_DOMAIN for parameters out of their domain.
 */
ux_status uxb_joint_kf_run(const uxb_joint_kf_config *cfg, const uint32_t *k, const double *u, const double *z,
                           size_t T, const uxb_joint_kf_output *out);

#endif /* UXBENCH_JOINT_KF_H */
