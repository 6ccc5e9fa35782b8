/*
 * Stochastic volatility: x' = φx + c(1 − φ) + w, w ~ N(0, σ_η²); y = ε·exp(x/2),
 * ε ~ N(0, σ_ε²). Kernel form: Gaussian, loc 0, scale σ_ε·exp(x/2).
 * Parameters (systems.toml, in this order): φ, c, σ_η, σ_ε. Expressions are written in the same operation order as the reference.
 */
#include <math.h>

#include "ux/model.h"
#include "ux/rmath.h"

#define PARAMS(ctx) (((const ux_model_ctx *)(ctx))->params)

static ux_real transition(const ux_real *a, const void *ctx)
{
    const ux_real *p = PARAMS(ctx);
    ux_real phi = p[0], drift = p[1] * ((ux_real)1.0 - phi);
    return phi * a[0] + drift + a[1];
}

static void kernel(const ux_real *a, const void *ctx, ux_real *loc, ux_real *scale)
{
    const ux_real *p = PARAMS(ctx);
    *loc = (ux_real)0.0 * a[0];
    *scale = p[3] * ux_rexp(a[0] / (ux_real)2.0);
}

static ux_real sampler(const ux_real *a, const void *ctx)
{
    (void)ctx;
    return a[1] * ux_rexp(a[0] / (ux_real)2.0);
}

static void noises(const ux_real *p, ux_model_noises *out)
{
    out->process = (ux_law){UX_LAW_GAUSSIAN, 0, p[2], 0};
    out->n_inner = 0;
    out->n_noise = 1;
    out->noise[0] = (ux_law){UX_LAW_GAUSSIAN, 0, p[3], 0};
}

const ux_model_code ux_code_sv = {
    .transition = transition,
    .noises = noises,
    .family = UX_LAW_GAUSSIAN,
    .kernel = kernel,
    .sampler = sampler,
    .additive_noise = 1,
};
