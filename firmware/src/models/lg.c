/*
 * Linear-Gaussian: x' = a·x + w, w ~ N(0, q²); z = x + v, v ~ N(0, r²).
 * Kernel form: Gaussian, loc x, scale r. The exact posterior is the Kalman filter's (uxemu.kalman),
 * which makes this system the oracle for the filter's accuracy.
 * Parameters (systems.toml, in this order): a, q, r. Same operation order as the reference.
 */
#include <math.h>

#include "ux/model.h"
#include "ux/rmath.h"

static ux_real transition(const ux_real *a, const void *ctx)
{
    const ux_real *p = ((const ux_model_ctx *)ctx)->params;
    return p[0] * a[0] + a[1];
}

static void kernel(const ux_real *a, const void *ctx, ux_real *loc, ux_real *scale)
{
    const ux_real *p = ((const ux_model_ctx *)ctx)->params;
    *loc = a[0];
    *scale = p[2] + (ux_real)0.0 * a[0];
}

static ux_real sampler(const ux_real *a, const void *ctx)
{
    (void)ctx;
    return a[0] + a[1];
}

static void noises(const ux_real *p, ux_model_noises *out)
{
    out->process = (ux_law){UX_LAW_GAUSSIAN, 0, p[1], 0};
    out->n_inner = 0;
    out->n_noise = 1;
    out->noise[0] = (ux_law){UX_LAW_GAUSSIAN, 0, p[2], 0};
}

const ux_model_code ux_code_lg = {
    .transition = transition,
    .noises = noises,
    .family = UX_LAW_GAUSSIAN,
    .kernel = kernel,
    .sampler = sampler,
    .additive_noise = 1,
};
