/*
 * uxbench/kf.h — the Kalman-type filters an embedded engineer ships today, as baselines: an extended
 * (EKF) and an unscented (UKF) Kalman filter over the registered models, plus the EKF on log y² that a
 * practitioner uses for stochastic volatility.
 *
 * They run the very model functions the ux filter lifts and the particle filter samples (`transition`,
 * the kernel form's loc/scale, `noises`), with each step's ctx built by ux_model_context, so they work
 * for a user's own system unchanged. Each keeps a Gaussian belief N(mean, var) of the 1-D state. Same
 * step convention as the ux filter and the PF: step 0 starts from the prior's mean and variance and
 * updates with the first observation (no predict); every later step predicts with (k[t], u[t]), then
 * updates. The posterior of a step is the belief after its update.
 *
 * Noises enter through their mean and variance only (the process noise w, the inner noise atom m of
 * the kernel form, and the outer family's standard noise e with z = loc(x, m) + scale(x, m)·e; e has
 * mean 0 and variance 1 (Gaussian), 2 (Laplace, scale 1) or 1/12 (Uniform on [−½, ½])).
 *
 * EKF (UXB_KF_EKF). Predict: mean f(x̂, w̄), var F²P + G²Q with F = ∂f/∂x, G = ∂f/∂w at (x̂, w̄).
 *   Update: loc and scale at (x̂, m̄); H = ∂loc/∂x, M = ∂loc/∂m at (x̂, m̄);
 *   R = scale² · var(e) + M² · var(m); S = H²P + R; K = PH/S; x̂ += K(z − loc); P ← P·R/S (= (1 − KH)P).
 *   w̄ and m̄ are the noise laws' means (0 for every registered system).
 *   Derivatives: central differences (g(v + h) − g(v − h)) / ((v + h) − (v − h)), the denominator the
 *   step as represented, with h = max(UXB_KF_DIFF_REL · σ_v, UXB_KF_DIFF_FLOOR · max(|v|, 1)), σ_v the
 *   standard deviation of the variable differentiated in (√P for the state, the law's for a noise).
 *   The step is set by the spread the filter linearises over, not by the variable's magnitude (the
 *   textbook ε^⅓·max(|v|, 1)): a step of σ/100 keeps the truncation error, h²|g'''|/6, four orders below
 *   the third-order term over one σ (the EKF neglects the second-order one anyway), and the rounding
 *   error, about ε|g|/h, near 10⁻¹³ relative where |g|/σ is in the tens, so on a linear model the EKF
 *   is the Kalman filter to ~10⁻¹². The floor √ε·max(|v|, 1) bounds the rounding when σ_v is 0 or tiny.
 *
 * UKF (UXB_KF_UKF): the scaled unscented transform with the noises as augmented dimensions — predict
 *   over (x, w), n = 2, propagating f; update over (x, m, e), n = 3 (n = 2 without inner noise),
 *   propagating z = loc(x, m) + scale(x, m)·e. 2n + 1 sigma points: the mean, and ±√(n + λ)·σ_i along each
 *   dimension (the augmented covariance is diagonal: the state and the noises are independent);
 *   λ = α²(n + κ) − n; weights W₀ᵐ = λ/(n + λ), W₀ᶜ = W₀ᵐ + 1 − α² + β, Wᵢ = 1/(2(n + λ)).
 *   Update: z̄ = Σ Wᵐ Z, S = Σ Wᶜ (Z − z̄)², C = Σ Wᶜ (X − x̂)(Z − z̄), K = C/S, x̂ += K(z − z̄),
 *   P ← max(P − K·C, 0).
 *   Parameters: α = 1, β = 2, κ = 3 − n (Julier–Uhlmann's κ with the scaled form's β). With n ≤ 3 every
 *   weight is ≥ 0 (W₀ᵐ = (3 − n)/3) and the points sit at ±√3 σ, which matches a Gaussian's fourth
 *   moment along each axis. The often-quoted α = 10⁻³ (Wan–van der Merwe) is meant for large n: in 2
 *   or 3 dimensions it puts the points at ±0.002 σ with W₀ᵐ ≈ −10⁶, turning the UKF into a noisy
 *   central-difference EKF that loses about six digits to cancellation.
 *
 * EKF on log y² (UXB_KF_EKF_LOGSQ): for observations y = scale(x)·e, e ~ N(0, 1) — the kernel form
 *   with Gaussian family, loc ≡ 0 and no inner noise, as stochastic volatility — loc carries no
 *   information, so the EKF and UKF above have gain 0. The standard remedy (Harvey, Ruiz & Shephard
 *   1994): observe ζ = log y² = log scale(x)² + log e², where log e² has mean ψ(½) + log 2 ≈ −1.2704 and
 *   variance π²/2, and run the EKF (same predict, same difference rule) on ζ with that noise treated
 *   as Gaussian. For SV, log scale² = x + log σ_ε². Refused (UX_ERR_ARG) for any other observation
 *   form, including a loc that is not 0 at the linearisation point.
 *
 * An update is skipped (the step only predicts, flagged in `skipped`) when z is not finite (or is 0 for
 * log y²) or the innovation variance S is not positive and finite.
 *
 * Host-only benchmark code: no allocation, no randomness; the run is a pure function of its inputs.
 */
#ifndef UXBENCH_KF_H
#define UXBENCH_KF_H

#include <stddef.h>
#include <stdint.h>

#include "ux/law.h"
#include "ux/model.h"

#define UXB_KF_DIFF_REL 1e-2
#define UXB_KF_DIFF_FLOOR 1.4901161193847656e-08 /* √ε = 2⁻²⁶ */
#define UXB_UKF_ALPHA 1.0
#define UXB_UKF_BETA 2.0
#define UXB_UKF_KAPPA_PLUS_N 3.0 /* κ = 3 − n */
#define UXB_LOGCHI2_MEAN (-1.2703628454614782) /* ψ(½) + log 2 = −γ − log 2 */
#define UXB_LOGCHI2_VAR 4.934802200544679 /* π²/2 */

typedef enum {
    UXB_KF_EKF = 0,
    UXB_KF_UKF = 1,
    UXB_KF_EKF_LOGSQ = 2,
} uxb_kf_method;

typedef struct {
    const ux_model *model;
    const double *params; /* model->n_params values; NULL for the model's defaults */
    const ux_law *prior; /* NULL for the model's prior; any law with a finite variance */
    uxb_kf_method method;
} uxb_kf_config;

/* Per-step outputs; any pointer may be NULL when not wanted. */
typedef struct {
    double *mean; /* T: posterior mean */
    double *var; /* T: posterior variance */
    uint8_t *skipped; /* T: 1 where the update was skipped */
} uxb_kf_output;

/*
 * Filter the trace (k[t], u[t], z[t]), t < T. UX_OK; UX_ERR_ARG for a missing model or array, an unknown
 * method, a model without kernel form, a law without finite mean and variance, or (log y²) an
 * observation form it does not fit; UX_ERR_DOMAIN for parameters out of their domain.
 */
ux_status uxb_kf_run(const uxb_kf_config *cfg, const uint32_t *k, const double *u, const double *z, size_t T,
                     const uxb_kf_output *out);

#endif /* UXBENCH_KF_H */
