/*
 * TTR(n) of a piecewise-linear density (docs/semantics.md, "Filter", mixture mode): the mean-split
 * recursion run on the continuous law through equally spaced nodes instead of on atoms. A cell's mass
 * and mean are exact integrals of the interpolant, so they move continuously with the node values and
 * the nodes' spacing: a node crossing a split point shifts mass gradually instead of all at once, which
 * keeps a filter's log-likelihood smooth in its parameters.
 *
 * Each cell's sums run left to right over its pieces (the parts of node intervals inside it), so the
 * reference reproduces them bit for bit.
 */
#include "internal.h"
#include "ux/ttr.h"

/* The interpolant on interval k [t_k, t_next] at s: the node's own value at either node, so whole
 * intervals cost no division. */
static ux_real linear_at(const ux_real *e, size_t k, ux_real t_k, ux_real t_next, ux_real h, ux_real s)
{
    if (s == t_k)
        return e[k];
    if (s == t_next)
        return e[k + 1];
    return e[k] + (e[k + 1] - e[k]) * ((s - t_k) / h);
}

/* The lumps at a ≤ at < b (at = b too in a closed cell, the last of its level) added to a cell's sums about a, in
 * lump order: mass p, first moment p·c, second moment p·(c² + spread), c = at − a. */
static void lump_integrals(const ux_lump *lumps, size_t count, ux_real a, ux_real b, int closed, ux_real *m, ux_real *g,
                           ux_real *m2)
{
    size_t j;
    for (j = 0; j < count; ++j) {
        ux_real at = lumps[j].at, p = lumps[j].mass, c = at - a;
        if (!(at >= a && (at < b || (closed && at == b))))
            continue;
        *m = *m + p;
        *g = *g + p * c;
        *m2 = *m2 + p * (c * c + lumps[j].spread);
    }
}

/*
 * Mass and first moment about a of the interpolant over [a, b] (0 outside its nodes' [lo, hi]) and of the
 * lumps in the cell (lump_integrals), and, unless second is NULL, its second moment about a: on a piece
 * [s, s + d] with c = s − a and end values fs, fe, ∫ (c + u)² f = fs·(c²d + cd² + d³/3) + (fe − fs)·(c²d/2 +
 * 2cd²/3 + d³/4). *k is the interval holding a (the largest node index ≤ a, at most nodes − 2); it is left at
 * the interval holding b, where the next cell of the same level starts.
 */
static void cell_integrals(const ux_real *e, size_t nodes, ux_real lo, ux_real h, ux_real a, ux_real b,
                           const ux_lump *lumps, size_t lump_count, int closed, size_t *k, ux_real *mass,
                           ux_real *moment, ux_real *second)
{
    const ux_real hi = lo + (ux_real)(nodes - 1) * h, end_at = b < hi ? b : hi;
    ux_real s = a > lo ? a : lo, m = 0, g = 0, m2 = 0;
    while (*k + 2 < nodes && lo + (ux_real)(*k + 1) * h <= a)
        ++*k;
    for (;;) {
        ux_real t_k = lo + (ux_real)*k * h, t_next = lo + (ux_real)(*k + 1) * h;
        int last = *k + 2 >= nodes || end_at <= t_next;
        ux_real end = last ? end_at : t_next;
        if (end > s) {
            ux_real fs = linear_at(e, *k, t_k, t_next, h, s), fe = linear_at(e, *k, t_k, t_next, h, end);
            ux_real d = end - s, pm = (fs + fe) * UX_R(0.5) * d;
            m = m + pm;
            g = g + (pm * (s - a) + d * d * (fs + fe + fe) / UX_R(6.0));
            if (second != NULL) {
                ux_real c = s - a;
                ux_real flat = c * c * d + c * d * d + d * d * d / UX_R(3.0);
                ux_real ramp = c * c * d * UX_R(0.5) + UX_R(2.0) * c * d * d / UX_R(3.0) + d * d * d * UX_R(0.25);
                m2 = m2 + (fs * flat + (fe - fs) * ramp);
            }
        }
        if (last)
            break;
        s = end;
        ++*k;
    }
    lump_integrals(lumps, lump_count, a, b, closed, &m, &g, &m2);
    *mass = m;
    *moment = g;
    if (second != NULL)
        *second = m2;
}

/* The variance about its own mean of a cell with mass > 0, first moment and second moment about its
 * left edge: 0 should rounding leave it negative. */
static ux_real cell_spread(ux_real mass, ux_real moment, ux_real second)
{
    ux_real off = moment / mass, v = second / mass - off * off;
    return v > 0 ? v : 0;
}

/* The cell's mean, inside [a, b] despite rounding; a cell without mass splits at a. */
static ux_real cell_mean(ux_real a, ux_real b, ux_real mass, ux_real moment)
{
    ux_real mu;
    if (!(mass > 0))
        return a;
    mu = a + moment / mass;
    return mu < a ? a : (mu > b ? b : mu);
}

size_t ux_ttr_linear(const ux_real *e, size_t nodes, ux_real lo, ux_real h, unsigned n, ux_real *edges, ux_real *x,
                     ux_real *w, ux_real *v)
{
    return ux_ttr_linear_lumps(e, nodes, lo, h, NULL, 0, n, edges, x, w, v);
}

/* The cells' outer edges: the nodes' ends, widened to the outermost lumps. */
static void outer_edges(ux_real lo, ux_real hi, const ux_lump *lumps, size_t count, ux_real *edges)
{
    size_t j;
    edges[0] = lo;
    edges[1] = hi;
    for (j = 0; j < count; ++j) {
        edges[0] = lumps[j].at < edges[0] ? lumps[j].at : edges[0];
        edges[1] = lumps[j].at > edges[1] ? lumps[j].at : edges[1];
    }
}

size_t ux_ttr_linear_lumps(const ux_real *e, size_t nodes, ux_real lo, ux_real h, const ux_lump *lumps,
                           size_t lump_count, unsigned n, ux_real *edges, ux_real *x, ux_real *w, ux_real *v)
{
    size_t cells = 1, i, k, out = 0;
    unsigned level;

    if (e == NULL || edges == NULL || x == NULL || w == NULL || nodes < 2 || n > UX_MAX_LOG2_ETA ||
        (lumps == NULL && lump_count > 0))
        return 0;
    outer_edges(lo, lo + (ux_real)(nodes - 1) * h, lumps, lump_count, edges);
    for (level = 0; level < n; ++level, cells *= 2) {
        /* The means first (into x, free until the last pass), then the edges spread in place from the
         * right: cell i's edges go to 2i and 2i + 2, its mean to 2i + 1, never over an edge still unread. */
        for (i = 0, k = 0; i < cells; ++i) {
            ux_real mass, moment;
            cell_integrals(e, nodes, lo, h, edges[i], edges[i + 1], lumps, lump_count, i + 1 == cells, &k, &mass,
                           &moment, NULL);
            x[i] = cell_mean(edges[i], edges[i + 1], mass, moment);
        }
        for (i = cells; i-- > 0;) {
            edges[2 * i + 2] = edges[i + 1];
            edges[2 * i + 1] = x[i];
            edges[2 * i] = edges[i];
        }
    }
    for (i = 0, k = 0; i < cells; ++i) {
        ux_real mass, moment, second;
        cell_integrals(e, nodes, lo, h, edges[i], edges[i + 1], lumps, lump_count, i + 1 == cells, &k, &mass, &moment,
                       v != NULL ? &second : NULL);
        if (mass > 0) {
            ux_real xi = cell_mean(edges[i], edges[i + 1], mass, moment);
            if (out > 0 && xi == x[out - 1]) { /* cells narrower than rounding: one atom, as TTR merges */
                ux_real total = w[out - 1] + mass;
                if (v != NULL)
                    v[out - 1] = (w[out - 1] * v[out - 1] + mass * cell_spread(mass, moment, second)) / total;
                w[out - 1] = total;
                continue;
            }
            x[out] = xi;
            w[out] = mass;
            if (v != NULL)
                v[out] = cell_spread(mass, moment, second);
            ++out;
        }
    }
    return out;
}
