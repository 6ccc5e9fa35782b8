/*
 * The joint lift x' = f(x, w) (docs/semantics.md, "Joint lift"): a vector transition evaluated on the
 * product of a joint state's atoms and independent scalar noises, then the joint reduction. The
 * dependency rule is the scalar lift's: one pointer twice is one input, different inputs may not share a
 * source.
 */
#include "internal.h"
#include "ux/joint.h"

#include <string.h>

/* The lift's inputs: the distinct noises (one pointer twice is one input) with where[k], the index of noise k
 * among them, and the union of the sources. UX_ERR_DEPENDENT when two different inputs share a source. */
typedef struct {
    const ux_value *distinct[UX_MAX_ARGS];
    unsigned where[UX_MAX_ARGS], nd;
    uint64_t sources;
    size_t rows; /* points of the distinct noises' outer product */
} lift_inputs;

static ux_status gather_inputs(lift_inputs *in, const ux_joint *state, const ux_value *const *noise, unsigned n_noise)
{
    unsigned j, k;
    ux_status st;
    in->nd = 0;
    in->sources = state->sources;
    in->rows = 1;
    for (k = 0; k < n_noise; ++k) {
        if ((st = ux_value_check(noise[k])) != UX_OK)
            return st;
        for (j = 0; j < in->nd && in->distinct[j] != noise[k]; ++j) {
        }
        if (j == in->nd) {
            if ((in->sources & noise[k]->sources) != 0)
                return UX_ERR_DEPENDENT;
            in->sources |= noise[k]->sources;
            in->distinct[in->nd++] = noise[k];
            in->rows *= noise[k]->count;
        }
        in->where[k] = j;
    }
    return UX_OK;
}

/* f at every point of state × the distinct noises (state outermost, the last noise fastest) into px (dim_out
 * components each), the points' weights into pw, multiplied left to right. */
static void lift_points(const lift_inputs *in, ux_joint_fn f, const void *ctx, unsigned dim_out, const ux_joint *state,
                        unsigned n_noise, ux_real *px, ux_real *pw)
{
    unsigned idx[UX_MAX_ARGS], j, k;
    ux_real args[UX_MAX_ARGS], y[UX_MAX_DIM];
    size_t p = 0, i;
    for (i = 0; i < state->count; ++i) {
        for (j = 0; j < in->nd; ++j)
            idx[j] = 0;
        for (; p < (i + 1) * in->rows; ++p) {
            ux_real wp = state->w[i];
            for (j = 0; j < in->nd; ++j)
                wp = wp * in->distinct[j]->w[idx[j]]; /* left to right */
            for (k = 0; k < n_noise; ++k)
                args[k] = in->distinct[in->where[k]]->x[idx[in->where[k]]];
            f(y, state->x + i * state->dim, args, ctx);
            memcpy(px + p * dim_out, y, dim_out * sizeof(ux_real));
            pw[p] = wp;
            for (j = in->nd; j-- > 0;) {
                if (++idx[j] < in->distinct[j]->count)
                    break;
                idx[j] = 0;
            }
        }
    }
}

ux_status ux_joint_lift(ux_joint *out, ux_joint_fn f, const void *ctx, unsigned dim_out, const ux_joint *state,
                        const ux_value *const *noise, unsigned n_noise, unsigned eta, ux_workspace *ws)
{
    lift_inputs in;
    size_t points;
    unsigned j;
    ux_real *px, *pw;
    ux_arena a;
    ux_workspace rest;
    ux_status st;

    if (out == NULL || f == NULL || state == NULL || dim_out < 1 || dim_out > UX_MAX_DIM || n_noise > UX_MAX_ARGS ||
        (n_noise > 0 && noise == NULL))
        return UX_ERR_ARG;
    if ((st = ux_joint_check(state)) != UX_OK || (st = gather_inputs(&in, state, noise, n_noise)) != UX_OK)
        return st;
    if (eta == 0) { /* the largest of the inputs' */
        eta = state->eta;
        for (j = 0; j < in.nd; ++j)
            eta = in.distinct[j]->eta > eta ? in.distinct[j]->eta : eta;
    }
    if (ux_log2_eta(eta) < 0)
        return UX_ERR_ARG;
    points = state->count * in.rows;
    if ((st = ux_arena_open(&a, ws)) != UX_OK)
        return st;
    px = ux_arena_reals(&a, points * dim_out);
    pw = ux_arena_reals(&a, points);
    if (px == NULL || pw == NULL)
        return UX_ERR_WORKSPACE;
    lift_points(&in, f, ctx, dim_out, state, n_noise, px, pw);
    rest = ux_arena_rest(&a);
    /* ux_joint_reduce refuses a non-finite f value (UX_ERR_DOMAIN) and writes `out` only at the end. */
    return ux_joint_reduce(out, px, pw, points, dim_out, eta, in.sources, &rest);
}
