/*
 * A throwaway system for tests/host/test_new_system.py, written as a user would: a room thermometer.
 *   x' = a·x + (1 − a)·t_env + w,  w ~ Laplace(0, b)
 *   z  = x + v,                     v ~ Laplace(0, s)   (kernel form: Laplace, loc x, scale s)
 * Parameters (systems.toml): a, t_env, b, s.
 */
#include "ux/model.h"

static ux_real transition(const ux_real *args, const void *ctx)
{
    const ux_real *p = ((const ux_model_ctx *)ctx)->params;
    return p[0] * args[0] + ((ux_real)1.0 - p[0]) * p[1] + args[1];
}

static void kernel(const ux_real *args, const void *ctx, ux_real *loc, ux_real *scale)
{
    const ux_real *p = ((const ux_model_ctx *)ctx)->params;
    *loc = args[0];
    *scale = p[3];
}

static ux_real sampler(const ux_real *args, const void *ctx)
{
    (void)ctx;
    return args[0] + args[1];
}

static void noises(const ux_real *p, ux_model_noises *out)
{
    out->process = (ux_law){UX_LAW_LAPLACE, 0, p[2], 0};
    out->n_inner = 0;
    out->n_noise = 1;
    out->noise[0] = (ux_law){UX_LAW_LAPLACE, 0, p[3], 0};
}

const ux_model_code ux_code_thermo = {
    .transition = transition,
    .noises = noises,
    .family = UX_LAW_LAPLACE,
    .kernel = kernel,
    .sampler = sampler,
};
