/*
 * Gordon–Salmond–Smith: x' = x/2 + 25x/(1 + x²) + 8cos(1.2k) + w, w ~ N(0, σ_υ²);
 * z = x²/20 + v, v ~ N(0, σ_ν²). Kernel form: Gaussian, loc x²/20, scale σ_ν.
 * Parameters (systems.toml, in this order): σ_υ, σ_ν. Expressions are written in the same operation order as the reference.
 */
#include <math.h>

#include "ux/model.h"
#include "ux/rmath.h"

/* The drive 8cos(1.2k) is the same for every point of a step: computed once, in step[0]. */
static void prepare(ux_model_ctx *c) { c->step[0] = (ux_real)8.0 * ux_rcos((ux_real)1.2 * (ux_real)c->k); }

static ux_real transition(const ux_real *a, const void *ctx)
{
    const ux_model_ctx *c = (const ux_model_ctx *)ctx;
    ux_real x = a[0];
    return x / (ux_real)2.0 + (ux_real)25.0 * x / ((ux_real)1.0 + x * x) + c->step[0] + a[1];
}

static void kernel(const ux_real *a, const void *ctx, ux_real *loc, ux_real *scale)
{
    const ux_real *p = ((const ux_model_ctx *)ctx)->params;
    *loc = a[0] * a[0] / (ux_real)20.0;
    *scale = p[1] + (ux_real)0.0 * a[0];
}

static ux_real sampler(const ux_real *a, const void *ctx)
{
    (void)ctx;
    return a[0] * a[0] / (ux_real)20.0 + a[1];
}

static void noises(const ux_real *p, ux_model_noises *out)
{
    out->process = (ux_law){UX_LAW_GAUSSIAN, 0, p[0], 0};
    out->n_inner = 0;
    out->n_noise = 1;
    out->noise[0] = (ux_law){UX_LAW_GAUSSIAN, 0, p[1], 0};
}

const ux_model_code ux_code_gss = {
    .transition = transition,
    .noises = noises,
    .family = UX_LAW_GAUSSIAN,
    .kernel = kernel,
    .sampler = sampler,
    .prepare = prepare,
    .additive_noise = 1,
};
