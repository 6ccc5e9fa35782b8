/*
 * The joint lift x' = f(x, w) (docs/semantics.md, "Joint lift"): a vector transition evaluated on the
 * product of a joint state's atoms and independent scalar noises, then the joint reduction. The
 * dependency rule is the scalar lift's: one pointer twice is one input, different inputs may not share a
 * source.
 */
#include "internal.h"
#include "ux/joint.h"

#include <string.h>

ux_status ux_joint_lift(ux_joint *out, ux_joint_fn f, const void *ctx, unsigned dim_out, const ux_joint *state,
                        const ux_value *const *noise, unsigned n_noise, unsigned eta, ux_workspace *ws)
{
    const ux_value *distinct[UX_MAX_ARGS];
    unsigned where[UX_MAX_ARGS], idx[UX_MAX_ARGS], nd = 0, j, k;
    uint64_t sources;
    size_t points, p, i, rows;
    ux_real args[UX_MAX_ARGS], y[UX_MAX_DIM], *px, *pw;
    ux_arena a;
    ux_workspace rest;
    ux_status st;

    if (out == NULL || f == NULL || state == NULL || dim_out < 1 || dim_out > UX_MAX_DIM ||
        n_noise > UX_MAX_ARGS || (n_noise > 0 && noise == NULL))
        return UX_ERR_ARG;
    if ((st = ux_joint_check(state)) != UX_OK)
        return st;
    sources = state->sources;
    rows = 1;
    for (k = 0; k < n_noise; ++k) {
        if ((st = ux_value_check(noise[k])) != UX_OK)
            return st;
        for (j = 0; j < nd && distinct[j] != noise[k]; ++j) {
        }
        if (j == nd) {
            if ((sources & noise[k]->sources) != 0)
                return UX_ERR_DEPENDENT;
            sources |= noise[k]->sources;
            distinct[nd++] = noise[k];
            rows *= noise[k]->count;
        }
        where[k] = j;
    }
    if (eta == 0) {
        eta = state->eta;
        for (j = 0; j < nd; ++j)
            eta = distinct[j]->eta > eta ? distinct[j]->eta : eta;
    }
    if (ux_log2_eta(eta) < 0)
        return UX_ERR_ARG;
    points = state->count * rows;
    if ((st = ux_arena_open(&a, ws)) != UX_OK)
        return st;
    px = ux_arena_reals(&a, points * dim_out);
    pw = ux_arena_reals(&a, points);
    if (px == NULL || pw == NULL)
        return UX_ERR_WORKSPACE;
    p = 0;
    for (i = 0; i < state->count; ++i) {
        for (j = 0; j < nd; ++j)
            idx[j] = 0;
        for (; p < (i + 1) * rows; ++p) {
            ux_real wp = state->w[i];
            for (j = 0; j < nd; ++j)
                wp = wp * distinct[j]->w[idx[j]]; /* left to right */
            for (k = 0; k < n_noise; ++k)
                args[k] = distinct[where[k]]->x[idx[where[k]]];
            f(y, state->x + i * state->dim, args, ctx);
            memcpy(px + p * dim_out, y, dim_out * sizeof(ux_real));
            pw[p] = wp;
            for (j = nd; j-- > 0;) {
                if (++idx[j] < distinct[j]->count)
                    break;
                idx[j] = 0;
            }
        }
    }
    rest = ux_arena_rest(&a);
    /* ux_joint_reduce refuses a non-finite f value (UX_ERR_DOMAIN) and writes `out` only at the end. */
    return ux_joint_reduce(out, px, pw, points, dim_out, eta, sources, &rest);
}
