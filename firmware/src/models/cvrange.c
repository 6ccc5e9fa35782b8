/*
 * Constant-velocity target on a line, a range sensor at height h above the origin (docs/semantics.md,
 * "Joint systems"): state (p, v), p' = p + v·dt + L_00·w_0, v' = v + (L_10·w_0 + L_11·w_1);
 * z = sqrt(p² + h²) + e, e ~ N(0, r²). Parameters (systems.toml, in this order): dt, q, h, r.
 * Same operation order as the reference twin.
 */
#include "ux/joint_model.h"
#include "ux/rmath.h"
#include "wna.h"

static void prepare(ux_model_ctx *c) { ux_wna_cholesky(c->params[0], c->params[1], c->step); }

static void transition(ux_real *out, const ux_real *x, const ux_real *w, const void *ctx)
{
    const ux_model_ctx *c = (const ux_model_ctx *)ctx;
    out[0] = x[0] + x[1] * c->params[0] + c->step[0] * w[0];
    out[1] = x[1] + (c->step[1] * w[0] + c->step[2] * w[1]);
}

static void kernel(const ux_real *x, const void *ctx, ux_real *loc, ux_real *scale)
{
    const ux_model_ctx *c = (const ux_model_ctx *)ctx;
    ux_real h = c->params[2];
    loc[0] = ux_rsqrt(x[0] * x[0] + h * h);
    scale[0] = c->params[3];
}

const ux_joint_model_code ux_jcode_cvrange = {
    .dim_noise = 2,
    .dim_obs = 1,
    .transition = transition,
    .noises = ux_wna_noises,
    .family = UX_LAW_GAUSSIAN,
    .kernel = kernel,
    .prepare = prepare,
    .additive_noise = 1,
};
