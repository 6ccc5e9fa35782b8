/*
 * Bearings-only tracking (docs/semantics.md, "Joint systems"): a target moving at a near-constant velocity,
 * seen by an observer that zig-zags across the line of sight. State (x, y, vx, vy): the target's position
 * relative to the observer and its velocity. The observer moves at (0, ±speed), the sign changing every
 * `leg` steps, which is what makes the range observable from angles alone:
 * x' = x + vx·dt, y' = y + (vy − vo(k))·dt, vx' = vx + s·w_0, vy' = vy + s·w_1, s = sqrt(q·dt);
 * z = y/x + e, e ~ N(0, r²): the tangent of the bearing, a pinhole camera's image coordinate (the core has
 * no atan). Parameters (systems.toml, in this order): dt, q, speed, leg, r. Same operation order as the
 * reference twin.
 */
#include <math.h>

#include "ux/joint_model.h"
#include "ux/rmath.h"
#include "wna.h" /* its two standard normal noises; the velocity takes them as a random walk, not as WNA */

/* 1 when step k is on an odd leg: floor(k/leg) mod 2, in doubles (floor and fmod are exact, so every target
 * agrees; a quotient no integer type holds stays defined; one that is not finite counts as even). */
static int odd_leg(ux_real k, ux_real leg)
{
    double q = (double)(k / leg);
    return isfinite(q) && fmod(floor(q), 2.0) != 0.0;
}

/* step[0] = s, step[1] = the observer's velocity across the line of sight at step k. */
static void prepare(ux_model_ctx *c)
{
    c->step[0] = ux_rsqrt(c->params[1] * c->params[0]);
    c->step[1] = odd_leg((ux_real)c->k, c->params[3]) ? -c->params[2] : c->params[2];
}

static void transition(ux_real *out, const ux_real *x, const ux_real *w, const void *ctx)
{
    const ux_model_ctx *c = (const ux_model_ctx *)ctx;
    ux_real dt = c->params[0];
    out[0] = x[0] + x[2] * dt;
    out[1] = x[1] + (x[3] - c->step[1]) * dt;
    out[2] = x[2] + c->step[0] * w[0];
    out[3] = x[3] + c->step[0] * w[1];
}

static void kernel(const ux_real *x, const void *ctx, ux_real *loc, ux_real *scale)
{
    const ux_model_ctx *c = (const ux_model_ctx *)ctx;
    loc[0] = x[1] / x[0];
    scale[0] = c->params[4];
}

const ux_joint_model_code ux_jcode_bearings = {
    .dim_noise = 2,
    .dim_obs = 1,
    .transition = transition,
    .noises = ux_wna_noises,
    .family = UX_LAW_GAUSSIAN,
    .kernel = kernel,
    .prepare = prepare,
    .additive_noise = 1,
};
