/*
 * Joint values and their reduction (docs/semantics.md, "Joint values"), without sorting.
 *
 * As in ttr.c, cells are the nodes of a complete binary tree and atoms never move: the cell of each atom
 * is one byte of workspace, and every cell sum runs over the cell's atoms in their input order, so the
 * reference (uxemu.joint) reproduces each sum bit for bit. Per level, one pass sums each cell's squared
 * deviations from its mean (only when d > 1: a single axis needs no choice) and one pass sends every
 * atom to a child and sums the children.
 */
#include "internal.h"
#include "ux/joint.h"
#include "ux/stats.h"
#include "ux/ttr.h"

#include <string.h>

/* The sums of one cell in the `sums` table: W, then S[dim], lo[dim], hi[dim]. */
#define CELL_REALS(dim) (1u + 3u * (dim))

static void cell_empty(ux_real *s, unsigned dim)
{
    unsigned k;
    s[0] = 0;
    for (k = 0; k < dim; ++k) {
        s[1 + k] = 0;
        s[1 + dim + k] = UX_INF;
        s[1 + 2 * dim + k] = -UX_INF;
    }
}

static void cell_add(ux_real *s, const ux_real *x, ux_real w, unsigned dim)
{
    unsigned k;
    s[0] = s[0] + w;
    for (k = 0; k < dim; ++k) {
        ux_real p = w * x[k]; /* rounded before it is added: no multiply-add */
        s[1 + k] = s[1 + k] + p;
        if (x[k] < s[1 + dim + k])
            s[1 + dim + k] = x[k];
        if (x[k] > s[1 + 2 * dim + k])
            s[1 + 2 * dim + k] = x[k];
    }
}

/* The eligible axis (lo < hi) with the largest score, the lowest on a tie; 0 when none is eligible. A
 * NaN score (only an overflowed variance gives one) never replaces the best. */
static unsigned choose_axis(const ux_real *cell, const ux_real *var, const ux_real *var0, unsigned dim)
{
    unsigned k, axis = 0;
    ux_real best = -1;
    for (k = 0; k < dim; ++k) {
        ux_real score;
        if (!(cell[1 + dim + k] < cell[1 + 2 * dim + k]))
            continue;
        score = var0[k] > 0 ? var[k] / var0[k] : 0;
        if (score > best) {
            best = score;
            axis = k;
        }
    }
    return axis;
}

/* The joint TTR's scratch, carved from its workspace: each atom's cell, each cell's sums (CELL_REALS(dim)
 * reals), the parents' means, variances and split axes, and the level-0 variances. */
typedef struct {
    uint8_t *cell, *axis;
    ux_real *sums, *mean, *var, *var0;
    unsigned dim, cr;
} joint_ttr_scratch;

static ux_status ttr_scratch(joint_ttr_scratch *s, size_t count, unsigned dim, unsigned n, ux_workspace *ws)
{
    ux_arena a;
    size_t half = ((size_t)1 << n) / 2u;
    ux_status st = ux_arena_open(&a, ws);
    if (st != UX_OK)
        return st;
    s->dim = dim;
    s->cr = CELL_REALS(dim);
    s->cell = ux_arena_bytes(&a, count);
    s->sums = ux_arena_reals(&a, ((size_t)1 << n) * s->cr);
    s->mean = ux_arena_reals(&a, half * dim);
    s->var = ux_arena_reals(&a, half * dim);
    s->axis = ux_arena_bytes(&a, half);
    s->var0 = ux_arena_reals(&a, dim);
    if (s->cell == NULL || s->sums == NULL || s->mean == NULL || s->var == NULL || s->axis == NULL || s->var0 == NULL)
        return UX_ERR_WORKSPACE;
    return UX_OK;
}

/* Each of the level's `cells` parents: its mean and, for dim > 1, the axis it splits along (from the
 * weighted variances about the mean, sums in atom order; level 0's are kept as var0). */
static void choose_axes(joint_ttr_scratch *s, const ux_real *x, const ux_real *w, size_t count, unsigned level)
{
    unsigned cells = 1u << level, dim = s->dim, c, k;
    size_t i;
    for (c = 0; c < cells; ++c)
        for (k = 0; k < dim; ++k) /* NaN for a cell with no atom: no atom asks for it */
            s->mean[c * dim + k] = s->sums[c * s->cr + 1 + k] / s->sums[c * s->cr];
    if (dim == 1) {
        memset(s->axis, 0, cells);
        return;
    }
    for (c = 0; c < cells * dim; ++c)
        s->var[c] = 0;
    for (i = 0; i < count; ++i) {
        const ux_real *xi = x + i * dim;
        ux_real *v = s->var + (size_t)s->cell[i] * dim;
        const ux_real *m = s->mean + (size_t)s->cell[i] * dim;
        for (k = 0; k < dim; ++k) {
            ux_real d = xi[k] - m[k], p = w[i] * (d * d);
            v[k] = v[k] + p;
        }
    }
    if (level == 0)
        memcpy(s->var0, s->var, dim * sizeof(ux_real));
    for (c = 0; c < cells; ++c)
        s->axis[c] = (uint8_t)choose_axis(s->sums + c * s->cr, s->var + c * dim, s->var0, dim);
}

/* Every atom to the child of its cell on its side of the parent's mean along the parent's axis, and the
 * children's sums (the parents' means and axes are kept apart, so the children's sums replace theirs). */
static void split_cells(joint_ttr_scratch *s, const ux_real *x, const ux_real *w, size_t count, unsigned level)
{
    unsigned cells = 1u << level, dim = s->dim, c;
    size_t i;
    for (c = 0; c < 2 * cells; ++c)
        cell_empty(s->sums + c * s->cr, dim);
    for (i = 0; i < count; ++i) {
        unsigned p = s->cell[i], a_ = s->axis[p];
        unsigned child = 2u * p + (x[i * dim + a_] < s->mean[p * dim + a_] ? 0u : 1u);
        s->cell[i] = (uint8_t)child;
        cell_add(s->sums + child * s->cr, x + i * dim, w[i], dim);
    }
}

/* One atom per non-empty cell, left to right: mass W, position clamp(S / W, lo, hi) per component.
 * Two leaves were separated strictly along some axis (x < m on one side, ≥ m on the other, and the
 * clamp keeps each inside its own box), so no two output atoms are equal: nothing to merge. The
 * input is no longer needed, so the output is written over it. Returns the atoms written. */
static size_t leaf_atoms(const joint_ttr_scratch *s, unsigned n, ux_real *x, ux_real *w)
{
    unsigned dim = s->dim, c, k;
    size_t out = 0;
    for (c = 0; c < (1u << n); ++c) {
        const ux_real *sc = s->sums + c * s->cr;
        if (!(sc[1 + dim] <= sc[1 + 2 * dim]))
            continue;
        for (k = 0; k < dim; ++k) {
            ux_real pos = sc[1 + k] / sc[0];
            if (pos < sc[1 + dim + k])
                pos = sc[1 + dim + k];
            if (pos > sc[1 + 2 * dim + k])
                pos = sc[1 + 2 * dim + k];
            x[out * dim + k] = pos;
        }
        w[out] = sc[0];
        ++out;
    }
    return out;
}

ux_status ux_joint_ttr(ux_real *x, ux_real *w, size_t count, unsigned dim, unsigned n, size_t *out_count,
                       ux_workspace *ws)
{
    joint_ttr_scratch s;
    ux_status st;
    size_t i;
    unsigned level;

    if (x == NULL || w == NULL || out_count == NULL || count == 0 || dim < 1 || dim > UX_MAX_DIM || n > UX_MAX_LOG2_ETA)
        return UX_ERR_ARG;
    *out_count = 0;
    if ((st = ttr_scratch(&s, count, dim, n, ws)) != UX_OK)
        return st;
    cell_empty(s.sums, dim);
    for (i = 0; i < count; ++i) {
        s.cell[i] = 0;
        cell_add(s.sums, x + i * dim, w[i], dim);
    }
    for (level = 0; level < n; ++level) {
        choose_axes(&s, x, w, count, level);
        split_cells(&s, x, w, count, level);
    }
    *out_count = leaf_atoms(&s, n, x, w);
    return UX_OK;
}

ux_status ux_joint_compact(ux_real *x, ux_real *w, size_t *count, unsigned dim)
{
    size_t i, kept = 0;
    unsigned k;
    if (x == NULL || w == NULL || count == NULL || dim < 1 || dim > UX_MAX_DIM)
        return UX_ERR_ARG;
    for (i = 0; i < *count; ++i) {
        if (!ux_finite(w[i]) || w[i] < 0)
            return UX_ERR_DOMAIN;
        for (k = 0; k < dim; ++k)
            if (!ux_finite(x[i * dim + k]))
                return UX_ERR_DOMAIN;
        if (w[i] != 0) {
            memmove(x + kept * dim, x + i * dim, dim * sizeof(ux_real));
            w[kept] = w[i];
            ++kept;
        }
    }
    *count = kept;
    return UX_OK;
}

ux_status ux_joint_reduce(ux_joint *out, ux_real *x, ux_real *w, size_t count, unsigned dim, unsigned eta,
                          uint64_t sources, ux_workspace *ws)
{
    int n = ux_log2_eta(eta);
    size_t r;
    ux_status st;
    if (out == NULL || n < 0)
        return UX_ERR_ARG;
    if ((st = ux_joint_compact(x, w, &count, dim)) != UX_OK)
        return st;
    if (count == 0)
        return UX_ERR_DOMAIN;
    if ((st = ux_joint_ttr(x, w, count, dim, (unsigned)n, &r, ws)) != UX_OK)
        return st;
    ux_normalise(w, r);
    memcpy(out->x, x, r * dim * sizeof(ux_real));
    memcpy(out->w, w, r * sizeof(ux_real));
    out->count = (uint32_t)r;
    out->eta = eta;
    out->dim = dim;
    out->sources = sources;
    return UX_OK;
}

ux_status ux_joint_from_atoms(ux_joint *out, const ux_real *x, const ux_real *w, size_t count, unsigned dim,
                              unsigned eta, ux_sources *src, ux_workspace *ws)
{
    ux_arena a;
    ux_workspace rest;
    ux_real *cx, *cw;
    size_t i;
    ux_status st;
    if (out == NULL || x == NULL || src == NULL || count == 0 || dim < 1 || dim > UX_MAX_DIM)
        return UX_ERR_ARG;
    if (eta == 0)
        eta = UX_DEFAULT_ETA;
    if (ux_log2_eta(eta) < 0)
        return UX_ERR_ARG;
    if ((st = ux_arena_open(&a, ws)) != UX_OK)
        return st;
    cx = ux_arena_reals(&a, count * dim);
    cw = ux_arena_reals(&a, count);
    if (cx == NULL || cw == NULL)
        return UX_ERR_WORKSPACE;
    memcpy(cx, x, count * dim * sizeof(ux_real));
    for (i = 0; i < count; ++i)
        cw[i] = w != NULL ? w[i] : 1;
    rest = ux_arena_rest(&a);
    if ((st = ux_joint_reduce(out, cx, cw, count, dim, eta, 0, &rest)) != UX_OK)
        return st;
    out->sources = ux_sources_fresh(src);
    return UX_OK;
}

ux_status ux_joint_product(ux_joint *out, const ux_value *const *parts, unsigned dim, unsigned eta, ux_workspace *ws)
{
    const ux_value *distinct[UX_MAX_DIM];
    unsigned where[UX_MAX_DIM], idx[UX_MAX_DIM], nd = 0, j, k;
    uint64_t sources = 0;
    size_t points = 1, p;
    ux_arena a;
    ux_workspace rest;
    ux_real *px, *pw;
    ux_status st;

    if (out == NULL || parts == NULL || dim < 1 || dim > UX_MAX_DIM)
        return UX_ERR_ARG;
    for (k = 0; k < dim; ++k) {
        if ((st = ux_value_check(parts[k])) != UX_OK)
            return st;
        for (j = 0; j < nd && distinct[j] != parts[k]; ++j) {
        }
        if (j == nd) {
            for (j = 0; j < nd; ++j)
                if ((distinct[j]->sources & parts[k]->sources) != 0)
                    return UX_ERR_DEPENDENT;
            distinct[nd++] = parts[k];
            sources |= parts[k]->sources;
            points *= parts[k]->count;
        }
        where[k] = j;
    }
    if (eta == 0)
        for (j = 0; j < nd; ++j)
            eta = distinct[j]->eta > eta ? distinct[j]->eta : eta;
    if (ux_log2_eta(eta) < 0)
        return UX_ERR_ARG;
    if ((st = ux_arena_open(&a, ws)) != UX_OK)
        return st;
    px = ux_arena_reals(&a, points * dim);
    pw = ux_arena_reals(&a, points);
    if (px == NULL || pw == NULL)
        return UX_ERR_WORKSPACE;
    /* The outer product, the first distinct part varying slowest: idx counts in mixed radix. */
    for (j = 0; j < nd; ++j)
        idx[j] = 0;
    for (p = 0; p < points; ++p) {
        ux_real wp = distinct[0]->w[idx[0]];
        for (j = 1; j < nd; ++j)
            wp = wp * distinct[j]->w[idx[j]];
        pw[p] = wp;
        for (k = 0; k < dim; ++k)
            px[p * dim + k] = distinct[where[k]]->x[idx[where[k]]];
        for (j = nd; j-- > 0;) {
            if (++idx[j] < distinct[j]->count)
                break;
            idx[j] = 0;
        }
    }
    rest = ux_arena_rest(&a);
    return ux_joint_reduce(out, px, pw, points, dim, eta, sources, &rest);
}

ux_status ux_joint_check(const ux_joint *v)
{
    uint32_t i, j, k;
    if (v == NULL || v->dim < 1 || v->dim > UX_MAX_DIM || v->count < 1 || ux_log2_eta(v->eta) < 0 || v->count > v->eta)
        return UX_ERR_ARG;
    for (i = 0; i < v->count; ++i) {
        if (!ux_finite(v->w[i]) || !(v->w[i] > 0))
            return UX_ERR_DOMAIN;
        for (k = 0; k < v->dim; ++k)
            if (!ux_finite(v->x[i * v->dim + k]))
                return UX_ERR_DOMAIN;
        for (j = 0; j < i; ++j)
            if (memcmp(v->x + i * v->dim, v->x + j * v->dim, v->dim * sizeof(ux_real)) == 0)
                return UX_ERR_DOMAIN;
    }
    return UX_OK;
}

/* UX_OK when v is usable by the statistics (the cheap part of ux_joint_check) and k a component. */
static ux_status stats_args(const ux_joint *v, unsigned k)
{
    if (v == NULL || v->dim < 1 || v->dim > UX_MAX_DIM || v->count < 1 || v->count > UX_MAX_ETA || k >= v->dim)
        return UX_ERR_ARG;
    return UX_OK;
}

ux_status ux_joint_mean(const ux_joint *v, ux_real *mean)
{
    uint32_t i, k;
    if (mean == NULL || stats_args(v, 0) != UX_OK)
        return UX_ERR_ARG;
    for (k = 0; k < v->dim; ++k)
        mean[k] = 0;
    for (i = 0; i < v->count; ++i)
        for (k = 0; k < v->dim; ++k) {
            ux_real p = v->w[i] * v->x[i * v->dim + k];
            mean[k] = mean[k] + p;
        }
    return UX_OK;
}

ux_status ux_joint_cov(const ux_joint *v, ux_real *cov)
{
    ux_real m[UX_MAX_DIM], d[UX_MAX_DIM];
    uint32_t i, j, k, D;
    if (cov == NULL || ux_joint_mean(v, m) != UX_OK)
        return UX_ERR_ARG;
    D = v->dim;
    for (j = 0; j < D * D; ++j)
        cov[j] = 0;
    for (i = 0; i < v->count; ++i) {
        for (k = 0; k < D; ++k)
            d[k] = v->x[i * D + k] - m[k];
        for (j = 0; j < D; ++j)
            for (k = 0; k < D; ++k) {
                ux_real p = v->w[i] * (d[j] * d[k]);
                cov[j * D + k] = cov[j * D + k] + p;
            }
    }
    return UX_OK;
}

ux_status ux_joint_marginal(ux_value *out, const ux_joint *v, unsigned k)
{
    uint8_t order[UX_MAX_ETA];
    uint32_t i, j, r = 0;
    if (out == NULL || stats_args(v, k) != UX_OK)
        return UX_ERR_ARG;
    /* Stable insertion sort of the atom indices by component k (at most UX_MAX_ETA of them). */
    for (i = 0; i < v->count; ++i) {
        ux_real xi = v->x[i * v->dim + k];
        for (j = i; j > 0 && xi < v->x[order[j - 1] * v->dim + k]; --j)
            order[j] = order[j - 1];
        order[j] = (uint8_t)i;
    }
    for (i = 0; i < v->count; ++i) {
        ux_real xi = v->x[order[i] * v->dim + k], wi = v->w[order[i]];
        if (r > 0 && out->x[r - 1] == xi) {
            out->w[r - 1] = out->w[r - 1] + wi;
        } else {
            out->x[r] = xi;
            out->w[r] = wi;
            ++r;
        }
    }
    out->count = r;
    out->eta = v->eta;
    out->sources = v->sources;
    return UX_OK;
}

/* The k-th marginal, which the component statistics below read (UX_ERR_ARG without an output). */
static ux_status component(const ux_joint *v, unsigned k, const ux_real *out, ux_value *m)
{
    return out == NULL ? UX_ERR_ARG : ux_joint_marginal(m, v, k);
}

ux_status ux_joint_quantile(const ux_joint *v, unsigned k, ux_real q, ux_real *out)
{
    ux_value m;
    ux_status st = component(v, k, out, &m);
    if (st != UX_OK)
        return st;
    if (!(q >= 0 && q <= 1))
        return UX_ERR_DOMAIN;
    *out = ux_quantile(&m, q);
    return UX_OK;
}

ux_status ux_joint_cdf(const ux_joint *v, unsigned k, ux_real t, ux_real *out)
{
    ux_value m;
    ux_status st = component(v, k, out, &m);
    if (st != UX_OK)
        return st;
    *out = ux_cdf(&m, t);
    return UX_OK;
}

ux_status ux_joint_sf(const ux_joint *v, unsigned k, ux_real t, ux_real *out)
{
    ux_value m;
    ux_status st = component(v, k, out, &m);
    if (st != UX_OK)
        return st;
    *out = ux_sf(&m, t);
    return UX_OK;
}
