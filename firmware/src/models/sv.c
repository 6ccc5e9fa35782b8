/*
 * Stochastic volatility (system 1): x' = φx + c(1 − φ) + w, w ~ N(0, σ_η²); y = ε·exp(x/2),
 * ε ~ N(0, σ_ε²). Kernel form: Gaussian, loc 0, scale σ_ε·exp(x/2).
 * Parameters: φ, c, σ_η, σ_ε. Expressions are written in the same operation order as the reference.
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

static int check(const ux_real *p)
{
    if (!isfinite(p[0]))
        return 0;
    if (!isfinite(p[1]))
        return 1;
    if (!(isfinite(p[2]) && p[2] > 0))
        return 2;
    if (!(isfinite(p[3]) && p[3] > 0))
        return 3;
    return -1;
}

static const ux_real defaults[4] = {0.98, 0.0, 0.2, 1.0};

const ux_model ux_model_sv = {
    .id = 1,
    .name = "sv",
    .n_params = 4,
    .defaults = defaults,
    .check = check,
    .transition = transition,
    .noises = noises,
    .family = UX_LAW_GAUSSIAN,
    .kernel = kernel,
    .sampler = sampler,
    .prior = {UX_LAW_GAUSSIAN, 0.0, 2.25, 0.0},
};
