/*
 * Cubic mean-reverting state with a Beer–Lambert observation:
 *   d = c − x;  x' = x + αd − αβd³ + w,  w ~ N(0, σ_υ²)
 *   g = exp(−x)(1 + m), m ~ N(0, σ_m²);  y = g + sqrt(σ_base² + max(g, 0))·l,  l ~ Laplace(0, 1)
 * Kernel form: inner noise m, Laplace family, loc g, scale sqrt(σ_base² + max(g, 0)).
 * Parameters (systems.toml, in this order): α, β, c, σ_υ, σ_m, σ_base. Same operation order as the reference.
 */
#include <math.h>

#include "ux/model.h"
#include "ux/rmath.h"

static ux_real transition(const ux_real *a, const void *ctx)
{
    const ux_real *p = ((const ux_model_ctx *)ctx)->params;
    ux_real x = a[0], alpha = p[0], beta = p[1], d = p[2] - x;
    return x + alpha * d - alpha * beta * d * d * d + a[1];
}

/* The location g = e·(1 + m) and the Laplace scale, e = exp(−x). max(g, 0) only guards the root for m < −1. */
static void loc_scale(ux_real e, ux_real m, ux_real sb2, ux_real *loc, ux_real *scale)
{
    ux_real g = e * ((ux_real)1.0 + m);
    ux_real gp = (g > 0 || isnan(g)) ? g : (ux_real)0.0;
    *loc = g;
    *scale = ux_rsqrt(sb2 + gp);
}

/* args {x, m} */
static void kernel(const ux_real *a, const void *ctx, ux_real *loc, ux_real *scale)
{
    const ux_real *p = ((const ux_model_ctx *)ctx)->params;
    loc_scale(ux_rexp(-a[0]), a[1], p[5] * p[5], loc, scale);
}

/* kernel for every inner atom m_j of one x: exp(−x) and σ_base² once. */
static void kernel_row(ux_real x, const ux_real *inner, size_t count, const void *ctx, ux_real *loc, ux_real *scale)
{
    const ux_real *p = ((const ux_model_ctx *)ctx)->params;
    ux_real sb2 = p[5] * p[5], e = ux_rexp(-x);
    size_t j;
    for (j = 0; j < count; ++j)
        loc_scale(e, inner[j], sb2, &loc[j], &scale[j]);
}

/* args {x, m, l} */
static ux_real sampler(const ux_real *a, const void *ctx)
{
    ux_real g, s;
    kernel(a, ctx, &g, &s);
    return g + s * a[2];
}

static void noises(const ux_real *p, ux_model_noises *out)
{
    out->process = (ux_law){UX_LAW_GAUSSIAN, 0, p[3], 0};
    out->n_inner = 1;
    out->inner = (ux_law){UX_LAW_GAUSSIAN, 0, p[4], 0};
    out->n_noise = 2;
    out->noise[0] = (ux_law){UX_LAW_GAUSSIAN, 0, p[4], 0};
    out->noise[1] = (ux_law){UX_LAW_LAPLACE, 0, 1, 0};
}

const ux_model_code ux_code_cubic = {
    .transition = transition,
    .noises = noises,
    .family = UX_LAW_LAPLACE,
    .kernel = kernel,
    .sampler = sampler,
    .additive_noise = 1,
    .kernel_row = kernel_row,
};
