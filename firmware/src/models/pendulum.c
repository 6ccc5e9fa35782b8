/*
 * Pendulum with a sin-of-angle sensor (docs/semantics.md, "Joint systems"): state (θ, ω),
 * θ' = θ + ω·dt + L_00·w_0, ω' = ω − g·sin(θ)·dt + (L_10·w_0 + L_11·w_1); z = sin(θ) + v, v ~ N(0, r²).
 * Parameters (systems.toml, in this order): dt, g, q, r. Same operation order as the reference twin.
 */
#include "ux/joint_model.h"
#include "ux/rmath.h"
#include "wna.h"

static void prepare(ux_model_ctx *c) { ux_wna_cholesky(c->params[0], c->params[2], c->step); }

static void transition(ux_real *out, const ux_real *x, const ux_real *w, const void *ctx)
{
    const ux_model_ctx *c = (const ux_model_ctx *)ctx;
    ux_real dt = c->params[0], g = c->params[1];
    out[0] = x[0] + x[1] * dt + c->step[0] * w[0];
    out[1] = x[1] - g * ux_rsin(x[0]) * dt + (c->step[1] * w[0] + c->step[2] * w[1]);
}

static void kernel(const ux_real *x, const void *ctx, ux_real *loc, ux_real *scale)
{
    const ux_model_ctx *c = (const ux_model_ctx *)ctx;
    loc[0] = ux_rsin(x[0]);
    scale[0] = c->params[3];
}

const ux_joint_model_code ux_jcode_pendulum = {
    .dim_noise = 2,
    .dim_obs = 1,
    .transition = transition,
    .noises = ux_wna_noises,
    .family = UX_LAW_GAUSSIAN,
    .kernel = kernel,
    .prepare = prepare,
    .additive_noise = 1,
};
