/*
 * tea.c — a state-space system defined outside the library, with its public API (ux/model.h):
 *
 *   x' = x + k·(room − x) + w,   w ~ N(0, q²)          the tea cools toward the room
 *   z  = s·x/(s + x) + v,        v ~ N(0, r²)          a sensor that saturates toward s
 *
 * The functions take their parameters from ctx (a ux_model_ctx), in the order of `names` below. The
 * kernel form (Gaussian, loc s·x/(s + x), scale r) lets the filter weigh exactly; the sampler form is the
 * same observation written as a function of the noise. model.py is the same system for the host's
 * reference engine, written in the same operation order.
 */
#include "tea.h"

static ux_real transition(const ux_real *a, const void *ctx) /* a = {x, w} */
{
    const ux_real *p = ((const ux_model_ctx *)ctx)->params;
    return a[0] + p[0] * (p[1] - a[0]) + a[1];
}

static void kernel(const ux_real *a, const void *ctx, ux_real *loc, ux_real *scale) /* a = {x} */
{
    const ux_real *p = ((const ux_model_ctx *)ctx)->params;
    *loc = p[4] * a[0] / (p[4] + a[0]);
    *scale = p[3] + (ux_real)0.0 * a[0];
}

static ux_real sampler(const ux_real *a, const void *ctx) /* a = {x, v} */
{
    const ux_real *p = ((const ux_model_ctx *)ctx)->params;
    return p[4] * a[0] / (p[4] + a[0]) + a[1];
}

static void noises(const ux_real *p, ux_model_noises *out)
{
    out->process = (ux_law){UX_LAW_GAUSSIAN, 0, p[2], 0};
    out->n_inner = 0;
    out->n_noise = 1;
    out->noise[0] = (ux_law){UX_LAW_GAUSSIAN, 0, p[3], 0};
}

static const ux_model_code code = {
    .transition = transition,
    .noises = noises,
    .family = UX_LAW_GAUSSIAN,
    .kernel = kernel,
    .sampler = sampler,
    .additive_noise = 1, /* w is added last: transition({x, w}) = transition({x, 0}) + w */
};

static const char *const names[] = {"k", "room", "q", "r", "s"};
static const ux_real defaults[] = {0.08, 21.0, 0.4, 0.3, 120.0};
static const uint8_t domains[] = {UX_PARAM_POSITIVE, UX_PARAM_REAL, UX_PARAM_POSITIVE, UX_PARAM_POSITIVE,
                                  UX_PARAM_POSITIVE};

/* id 0: the link protocol does not know this system (the library's table numbers its own from 1). The
 * prior: the tea poured at 85 ± 4 degrees (a Gaussian law's a and b are its mean and sd). */
const ux_model tea_model = {0,        "tea",   "tea cooling, saturating sensor",  5,    names,
                            defaults, domains, {UX_LAW_GAUSSIAN, 85.0, 4.0, 0.0}, &code};
