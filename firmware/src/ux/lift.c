/*
 * Lift: f over the outer product of independent inputs, then TTR, normalise.
 *
 * The dependency rule lives here: the same pointer twice is one input (f sees one atom in both places,
 * which is what makes x·x exact), and different inputs that share a source are refused, because their
 * joint law is not the product of their laws and the core cannot know it.
 */
#include "internal.h"
#include "ux/lift.h"
#include "ux/ttr.h"

/* Distinct inputs in order of first appearance, and for each argument the index of its input. */
typedef struct {
    const ux_value *v[UX_MAX_ARGS];
    unsigned where[UX_MAX_ARGS];
    unsigned n;
    size_t points;
    uint64_t sources;
    unsigned eta;
} distinct_inputs;

static ux_status collect(distinct_inputs *d, const ux_value *const *in, unsigned k)
{
    unsigned a, i;
    if (in == NULL || k < 1 || k > UX_MAX_ARGS)
        return UX_ERR_ARG;
    d->n = 0;
    d->points = 1;
    d->sources = 0;
    d->eta = 0;
    for (a = 0; a < k; ++a) {
        const ux_value *v = in[a];
        if (v == NULL || v->count < 1 || v->count > UX_MAX_ETA)
            return UX_ERR_ARG;
        if (v->eta > d->eta)
            d->eta = v->eta;
        for (i = 0; i < d->n && d->v[i] != v; ++i) {
        }
        if (i == d->n) {
            /* A new input: it must not share a source with any earlier one. */
            if ((d->sources & v->sources) != 0)
                return UX_ERR_DEPENDENT;
            d->v[d->n++] = v;
            d->sources |= v->sources;
            d->points *= v->count;
        }
        d->where[a] = i;
    }
    return UX_OK;
}

/* One point of the lift: refused when f gave a non-finite value (f is not defined on the whole support:
 * never drop mass) or the weight is not a valid one; kept unless its weight is zero (ux_compact's rule,
 * applied as the points are made). */
static ux_status keep_point(ux_real *x, ux_real *w, size_t *kept, ux_real value, ux_real weight)
{
    if (!ux_finite(value) || !ux_finite(weight) || weight < 0)
        return UX_ERR_DOMAIN;
    if (weight != 0) {
        x[*kept] = value;
        w[*kept] = weight;
        ++*kept;
    }
    return UX_OK;
}

/* The smallest and largest of count values. */
static void extremes(const ux_real *v, size_t count, ux_real *lo, ux_real *hi)
{
    size_t j;
    *lo = *hi = v[0];
    for (j = 1; j < count; ++j) {
        *lo = v[j] < *lo ? v[j] : *lo;
        *hi = v[j] > *hi ? v[j] : *hi;
    }
}

/* How the last input enters f: at every point (f evaluated there), or added or multiplied last, f(…, v) =
 * f(…, 0) + v or f(…, 1)·v bit for bit, so that f is evaluated once per row of the other inputs. */
typedef enum { EVERY_POINT = 0, ADDS = 1, SCALES = 2 } last_form;

/* One row of a lift whose last input adds or scales: the points base + v_j or base·v_j with weights
 * row_weight·w_j (v_j, w_j the last input's atoms), kept by keep_point's rule. Addition of base,
 * multiplication by base and multiplication by a weight ≥ 0 are monotonic under rounding, so when the
 * points at the last input's extreme positions are finite and the row's smallest weight is positive (lim:
 * those extremes and the extreme weights), every point is kept as it is, without a test per point. */
static UX_ALWAYS_INLINE ux_status last_row(ux_real *x, ux_real *w, size_t *kept, ux_real base, ux_real row_weight,
                                           const ux_value *last, const ux_real lim[4], last_form form)
{
    size_t j, J = last->count;
    ux_real lo = form == ADDS ? base + lim[0] : base * lim[0], hi = form == ADDS ? base + lim[1] : base * lim[1];
    if (ux_finite(lo) && ux_finite(hi) && row_weight >= 0 && lim[2] > 0 && row_weight * lim[2] > 0 &&
        ux_finite(row_weight * lim[3])) {
        ux_real *xo = x + *kept, *wo = w + *kept;
        const ux_real *lx = last->x, *lw = last->w;
        if (form == ADDS) {
            for (j = 0; j < J; ++j) {
                xo[j] = base + lx[j];
                wo[j] = row_weight * lw[j];
            }
        } else {
            for (j = 0; j < J; ++j) {
                xo[j] = base * lx[j];
                wo[j] = row_weight * lw[j];
            }
        }
        *kept += J;
        return UX_OK;
    }
    for (j = 0; j < J; ++j) {
        ux_real v = form == ADDS ? base + last->x[j] : base * last->x[j];
        ux_status st = keep_point(x, w, kept, v, row_weight * last->w[j]);
        if (st != UX_OK)
            return st;
    }
    return UX_OK;
}

/* The rows of f(a, v), v the last input, for a constant form (ADDS or SCALES): f once per atom of a. */
static UX_ALWAYS_INLINE ux_status rows_of_two(const ux_value *first, const ux_value *last, ux_fn f, const void *ctx,
                                              ux_real *x, ux_real *w, size_t *count, const ux_real lim[4],
                                              last_form form)
{
    ux_real args[2];
    ux_status st = UX_OK;
    size_t r;
    args[1] = form == ADDS ? UX_R(0.0) : UX_R(1.0);
    for (r = 0; r < first->count && st == UX_OK; ++r) {
        args[0] = first->x[r];
        st = last_row(x, w, count, f(args, ctx), first->w[r], last, lim, form);
    }
    return st;
}

/* A constant form (ADDS or SCALES) needs the last argument to be an input of its own that no other argument
 * uses: UX_ERR_ARG otherwise. Its atoms' extremes go to lim (positions, then weights). */
static ux_status check_last(const distinct_inputs *d, unsigned k, ux_real lim[4])
{
    const ux_value *last = d->v[d->n - 1];
    unsigned a;
    for (a = 0; a + 1 < k; ++a)
        if (d->where[a] == d->n - 1)
            return UX_ERR_ARG;
    if (d->n < 2 || d->where[k - 1] != d->n - 1)
        return UX_ERR_ARG;
    extremes(last->x, last->count, &lim[0], &lim[1]);
    extremes(last->w, last->count, &lim[2], &lim[3]);
    return UX_OK;
}

/* f(a, b) of two distinct inputs: the odometer below with its argument gathering spelled out, the same
 * points and weights in the same order. */
static ux_status pairs_of_two(const ux_value *first, const ux_value *last, size_t rows, ux_fn f, const void *ctx,
                              ux_real *x, ux_real *w, size_t *count)
{
    ux_real args[2];
    ux_status st = UX_OK;
    size_t r, j;
    for (r = 0; r < rows && st == UX_OK; ++r) {
        ux_real row_weight = first->w[r];
        args[0] = first->x[r];
        for (j = 0; j < last->count && st == UX_OK; ++j) {
            args[1] = last->x[j];
            st = keep_point(x, w, count, f(args, ctx), row_weight * last->w[j]);
        }
    }
    return st;
}

/* The atoms of the inputs but the last at the odometer's position idx into atom; returns the row's weight,
 * their weights' product left to right (1 for a single input). */
static UX_ALWAYS_INLINE ux_real row_atoms(const distinct_inputs *d, const uint32_t *idx, ux_real *atom)
{
    ux_real row_weight = 1;
    unsigned i;
    for (i = 0; i + 1 < d->n; ++i) {
        atom[i] = d->v[i]->x[idx[i]];
        row_weight = i == 0 ? d->v[0]->w[idx[0]] : row_weight * d->v[i]->w[idx[i]]; /* left to right */
    }
    return row_weight;
}

/* Every point of one row (EVERY_POINT): f at each atom of the last input, the others fixed in atom. */
static UX_ALWAYS_INLINE ux_status every_point_row(const distinct_inputs *d, ux_fn f, const void *ctx, unsigned k,
                                                  ux_real *atom, ux_real row_weight, ux_real *x, ux_real *w,
                                                  size_t *count)
{
    const ux_value *last = d->v[d->n - 1];
    ux_real args[UX_MAX_ARGS];
    unsigned a, j;
    for (j = 0; j < last->count; ++j) {
        ux_status st;
        atom[d->n - 1] = last->x[j];
        for (a = 0; a < k; ++a)
            args[a] = atom[d->where[a]];
        st = keep_point(x, w, count, f(args, ctx), d->n == 1 ? last->w[j] : row_weight * last->w[j]);
        if (st != UX_OK)
            return st;
    }
    return UX_OK;
}

/* The rows of the outer product, the inputs but the last advanced like an odometer (first slowest). */
static ux_status odometer_rows(const distinct_inputs *d, ux_fn f, const void *ctx, unsigned k, ux_real *x, ux_real *w,
                               size_t *count, const ux_real lim[4], last_form form)
{
    uint32_t idx[UX_MAX_ARGS] = {0};
    ux_real atom[UX_MAX_ARGS], args[UX_MAX_ARGS];
    const ux_value *last = d->v[d->n - 1];
    size_t rows = d->points / last->count, r;
    unsigned i, a;
    ux_status st;
    for (r = 0; r < rows; ++r) {
        ux_real row_weight = row_atoms(d, idx, atom);
        if (form != EVERY_POINT) {
            atom[d->n - 1] = form == ADDS ? UX_R(0.0) : UX_R(1.0); /* the neutral value in the last's place */
            for (a = 0; a < k; ++a)
                args[a] = atom[d->where[a]];
            st = last_row(x, w, count, f(args, ctx), row_weight, last, lim, form);
        } else {
            st = every_point_row(d, f, ctx, k, atom, row_weight, x, w, count);
        }
        if (st != UX_OK)
            return st;
        for (i = d->n - 1; i-- > 0;) {
            if (++idx[i] < d->v[i]->count)
                break;
            idx[i] = 0;
        }
    }
    return UX_OK;
}

/* Evaluate f on every point of the outer product (first input varying slowest) into (x, w), the points
 * of zero weight left out (*count: how many are kept): rows of the last input's atoms, the other inputs
 * fixed per row and advanced like an odometer. With the last input added or multiplied last (form), which
 * no other argument may use, f is evaluated once per row at 0 or 1 in its place. */
static ux_status evaluate(const distinct_inputs *d, ux_fn f, const void *ctx, unsigned k, ux_real *x, ux_real *w,
                          size_t *count, last_form form)
{
    ux_real lim[4] = {0, 0, 0, 0};
    const ux_value *last = d->v[d->n - 1];
    *count = 0;
    if (form != EVERY_POINT) {
        ux_status st = check_last(d, k, lim);
        if (st != UX_OK)
            return st;
        if (k == 2) /* f(a, v) (the filter's predict): the rows without the odometer */
            return form == ADDS ? rows_of_two(d->v[0], last, f, ctx, x, w, count, lim, ADDS)
                                : rows_of_two(d->v[0], last, f, ctx, x, w, count, lim, SCALES);
    } else if (k == 2 && d->n == 2 && d->where[0] == 0 && d->where[1] == 1) {
        return pairs_of_two(d->v[0], last, d->points / last->count, f, ctx, x, w, count);
    }
    return odometer_rows(d, f, ctx, k, x, w, count, lim, form);
}

static ux_status lift_points(ux_real *x, ux_real *w, size_t *count, ux_fn f, const void *ctx, const ux_value *const *in,
                             unsigned k, last_form form)
{
    distinct_inputs d;
    ux_status st;
    if (x == NULL || w == NULL || count == NULL || f == NULL)
        return UX_ERR_ARG;
    st = collect(&d, in, k);
    if (st != UX_OK)
        return st;
    return evaluate(&d, f, ctx, k, x, w, count, form);
}

ux_status ux_lift_points(ux_real *x, ux_real *w, size_t *count, ux_fn f, const void *ctx, const ux_value *const *in,
                         unsigned k)
{
    return lift_points(x, w, count, f, ctx, in, k, EVERY_POINT);
}

ux_status ux_lift_points_additive(ux_real *x, ux_real *w, size_t *count, ux_fn f, const void *ctx,
                                  const ux_value *const *in, unsigned k)
{
    return lift_points(x, w, count, f, ctx, in, k, ADDS);
}

static ux_status lift(ux_value *out, ux_fn f, const void *ctx, const ux_value *const *in, unsigned k, unsigned eta,
                      ux_workspace *ws, last_form form)
{
    distinct_inputs d;
    ux_arena arena;
    ux_real *x, *w;
    ux_workspace rest;
    ux_status st;
    size_t count;

    if (out == NULL || f == NULL)
        return UX_ERR_ARG;
    st = collect(&d, in, k);
    if (st != UX_OK)
        return st;
    if (eta == 0)
        eta = d.eta;
    if (ux_log2_eta(eta) < 0)
        return UX_ERR_ARG;
    st = ux_arena_open(&arena, ws);
    if (st != UX_OK)
        return st;
    x = ux_arena_reals(&arena, d.points);
    w = ux_arena_reals(&arena, d.points);
    if (x == NULL || w == NULL)
        return UX_ERR_WORKSPACE;
    st = evaluate(&d, f, ctx, k, x, w, &count, form);
    if (st != UX_OK)
        return st;
    rest = ux_arena_rest(&arena);
    /* The points are finite with weights > 0 (evaluate's rule), so ux_reduce's check is not repeated; it
     * writes `out` only after the inputs are fully read, so `out` may alias an input. */
    return ux_reduce_valid(out, x, w, count, eta, d.sources, &rest);
}

ux_status ux_lift(ux_value *out, ux_fn f, const void *ctx, const ux_value *const *in, unsigned k, unsigned eta,
                  ux_workspace *ws)
{
    return lift(out, f, ctx, in, k, eta, ws, EVERY_POINT);
}

ux_status ux_lift_additive(ux_value *out, ux_fn f, const void *ctx, const ux_value *const *in, unsigned k, unsigned eta,
                           ux_workspace *ws)
{
    return lift(out, f, ctx, in, k, eta, ws, ADDS);
}

ux_status ux_lift_multiplicative(ux_value *out, ux_fn f, const void *ctx, const ux_value *const *in, unsigned k,
                                 unsigned eta, ux_workspace *ws)
{
    return lift(out, f, ctx, in, k, eta, ws, SCALES);
}
