/*
 * uxbench/is.h — the native side of the inference benchmark (host only, never flashed).
 *
 *  - Observation models of the registry made ready for one call: parameters bound, noises quantized
 *    with the core's constructors (kernel form: the inner noise; sampler form: every noise).
 *  - Importance sampling of one BayesLaplace instance: N draws from a continuous prior law with
 *    xoshiro256**, each weighed in the log domain by the kernel form of the observation model — the
 *    same C model functions BayesLaplace evaluates, the inner noise marginalised over its atoms.
 *  - Back-to-back repeat loops of importance sampling and of BayesLaplace, so that a timer around one
 *    foreign call measures the method rather than the call.
 *
 * Nothing here allocates: every buffer belongs to the caller.
 */
#ifndef UXBENCH_IS_H
#define UXBENCH_IS_H

#include "ux/ux.h"

/*
 * One system's observation model, bound. `obs` points into this struct (its ctx, its noises), so the
 * struct must stay where uxb_observation_init wrote it.
 */
typedef struct {
    ux_real params[UX_MODEL_MAX_PARAMS];
    ux_model_ctx ctx;
    ux_value noise[UX_MODEL_MAX_NOISES];
    const ux_value *noise_ptr[UX_MODEL_MAX_NOISES];
    ux_observation obs;
} uxb_observation;

/*
 * Bind system `system_id` with `params` (NULL: its defaults) for the likelihood `form`, its noises
 * quantized at `eta` atoms (kernel form: the inner noise, if the system has one; sampler form: every
 * observation noise, and each y_i reduced to eta atoms). UX_ERR_ARG for an unknown system, a form the
 * system lacks or a bad eta; UX_ERR_DOMAIN for parameters out of their domain.
 */
ux_status uxb_observation_init(uxb_observation *o, unsigned system_id, const ux_real *params, ux_likelihood form,
                               unsigned eta, ux_sources *src);

/*
 * n independent draws from a Gaussian (Marsaglia's polar method, both numbers of each pair used),
 * Laplace (inverse cdf) or Uniform law. UX_ERR_ARG for any other kind, UX_ERR_DOMAIN for parameters
 * out of the law's domain.
 */
ux_status uxb_draw_n(const ux_law *law, ux_rng *rng, ux_real *out, size_t n);

/*
 * Self-normalised importance sampling with the prior as proposal: x_i ~ prior (i < n), then
 * ℓ_i = m Σ_k ω_k log p(z_k | x_i) by the kernel form of `obs` (Σ over its inner-noise atoms, in the
 * log domain), w_i = exp(ℓ_i − max ℓ) / Σ. Writes n positions to x and n normalised weights to w
 * (draw order, unsorted). Returns UX_OK, or UX_FALLBACK when no ℓ_i is finite — the weights are then
 * uniform, the prior's — or UX_ERR_ARG (no kernel form, a prior kind that cannot be drawn, n = 0) or
 * UX_ERR_DOMAIN (evidence as ux_bayes_laplace refuses it).
 */
ux_status uxb_is_posterior(const ux_observation *obs, const ux_law *prior, const ux_evidence *ev, size_t n, ux_rng *rng,
                           ux_real *x, ux_real *w);

/* `reps` importance-sampling runs back to back from one generator (the last one is left in x, w). */
ux_status uxb_is_repeat(const ux_observation *obs, const ux_law *prior, const ux_evidence *ev, size_t n, ux_rng *rng,
                        ux_real *x, ux_real *w, unsigned reps);

/*
 * `reps` BayesLaplace posteriors back to back, each from the continuous prior law: quantize it at eta
 * atoms with the core's constructor, then ux_bayes_laplace_value — the deterministic counterpart of
 * drawing and weighing particles. The posterior of the last call is in `out`; the status is that of
 * the last call, or the first error.
 * Workspace: UX_BAYES_WORKSPACE_BYTES(eta, noise points per hypothesis).
 */
ux_status uxb_bayes_repeat(ux_value *out, const ux_observation *obs, const ux_law *prior, const ux_evidence *ev,
                           unsigned eta, unsigned reps, ux_sources *src, ux_workspace *ws);

/* `reps` quantizations of `prior` at eta atoms into `out`: the share of uxb_bayes_repeat that a filter,
 * whose prior arrives as atoms, does not pay. */
ux_status uxb_quantize_repeat(ux_value *out, const ux_law *prior, unsigned eta, unsigned reps, ux_sources *src);

/* sizeof(uxb_observation), so a binding can check its mirror of the struct. */
size_t uxb_observation_sizeof(void);

#endif /* UXBENCH_IS_H */
