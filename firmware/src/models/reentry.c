/*
 * A body falling through the atmosphere, tracked by a range radar (docs/semantics.md, "Joint systems"): the
 * falling-body problem of Athans, Wishner and Bertolini (1968) in kilometres and seconds, its ballistic
 * coefficient unknown and carried as its log. State (h, v, b): altitude, downward speed, b = log β.
 * h' = h − v·dt + s_h·w_0, v' = v·exp(−dt·v·exp(b − h/hs)) + s_v·w_1, b' = b + s_b·w_2 (drag v̇ = −β·e^(−h/hs)·v²
 * over a step at the step's start, taken as a decay so that a large drag never reverses the body);
 * s_h = sqrt(q·dt³/3), s_v = sqrt(q·dt), s_b = sqrt(qb·dt);
 * z = sqrt(m² + (h − a)²) + e, e ~ N(0, r²): the range from a radar m away and at altitude a. While the body
 * passes the radar's altitude the range does not see h. Parameters (systems.toml, in this order):
 * dt, hs, m, a, q, qb, r. Same operation order as the reference twin.
 */
#include "ux/joint_model.h"
#include "ux/rmath.h"

/* step[0..2] = s_h, s_v, s_b. */
static void prepare(ux_model_ctx *c)
{
    ux_real dt = c->params[0], q = c->params[4];
    c->step[0] = ux_rsqrt(q * dt * dt * dt / (ux_real)3.0);
    c->step[1] = ux_rsqrt(q * dt);
    c->step[2] = ux_rsqrt(c->params[5] * dt);
}

static void transition(ux_real *out, const ux_real *x, const ux_real *w, const void *ctx)
{
    const ux_model_ctx *c = (const ux_model_ctx *)ctx;
    ux_real dt = c->params[0], drag = ux_rexp(x[2] - x[0] / c->params[1]);
    out[0] = (x[0] - x[1] * dt) + c->step[0] * w[0];
    out[1] = x[1] * ux_rexp(-(dt * x[1] * drag)) + c->step[1] * w[1];
    out[2] = x[2] + c->step[2] * w[2];
}

static void kernel(const ux_real *x, const void *ctx, ux_real *loc, ux_real *scale)
{
    const ux_model_ctx *c = (const ux_model_ctx *)ctx;
    ux_real m = c->params[2], d = x[0] - c->params[3];
    loc[0] = ux_rsqrt(m * m + d * d);
    scale[0] = c->params[6];
}

/* Three independent standard normal process-noise components. */
static void noises(const ux_real *params, ux_law *process)
{
    unsigned i;
    (void)params;
    for (i = 0; i < 3; ++i)
        process[i] = (ux_law){UX_LAW_GAUSSIAN, 0, 1, 0};
}

const ux_joint_model_code ux_jcode_reentry = {
    .dim_noise = 3,
    .dim_obs = 1,
    .transition = transition,
    .noises = noises,
    .family = UX_LAW_GAUSSIAN,
    .kernel = kernel,
    .prepare = prepare,
    .additive_noise = 1,
};
