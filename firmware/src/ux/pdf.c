/*
 * The TTR-binned density (docs/semantics.md, "Density").
 *
 * Split points come from running the mean-split recursion on the atoms until every cell holds one atom;
 * the split that separates atoms i and i+1 is the mean of the cell it split. Each atom then gets a left
 * and a right bin reaching to the neighbouring split points, with the only pair of heights that keeps
 * the atom's mass and mean.
 */
#include "internal.h"
#include "ux/pdf.h"

#include <string.h>

ux_status ux_split_points(const ux_real *x, const ux_real *w, size_t count, ux_real *split)
{
    size_t b[UX_MAX_ETA + 1], nb[UX_MAX_ETA + 1];
    size_t cells = 1, c;

    if (x == NULL || w == NULL || count < 1 || count > UX_MAX_ETA || (split == NULL && count > 1))
        return UX_ERR_ARG;
    for (c = 0; c + 1 < count; ++c)
        split[c] = (x[c] + x[c + 1]) / UX_R(2.0); /* kept only by a gap rounding never separates */
    b[0] = 0;
    b[1] = count;
    for (;;) {
        size_t nc = 0, splits = 0;
        nb[0] = 0;
        for (c = 0; c < cells; ++c) {
            size_t s = b[c], e = b[c + 1], j = s, i;
            if (x[s] != x[e - 1]) {
                ux_real W = 0, S = 0, m;
                for (i = s; i < e; ++i) {
                    ux_real p = w[i] * x[i];
                    W = W + w[i];
                    S = S + p;
                }
                m = S / W;
                while (j < e && x[j] < m)
                    ++j;
                if (j > s && j < e) {
                    split[j - 1] = m;
                    nb[++nc] = j;
                    ++splits;
                }
            }
            nb[++nc] = e;
        }
        /* Stop when no cell could be split: all single atoms, or rounding pinned every mean to an end. */
        if (splits == 0)
            break;
        memcpy(b, nb, (nc + 1) * sizeof(size_t));
        cells = nc;
    }
    return UX_OK;
}

void ux_bin_reach(const ux_real *x, const ux_real *split, size_t count, size_t i, ux_real *left, ux_real *right)
{
    *left = i == 0 ? x[0] - (split[0] - x[0]) : split[i - 1];
    *right = i + 1 == count ? x[count - 1] + (x[count - 1] - split[count - 2]) : split[i];
}

ux_real ux_pdf_atoms(const ux_real *x, const ux_real *w, size_t count, const ux_real *split, ux_real t)
{
    size_t i, below = 0, idx;
    ux_real left, right, dL, dR, unused;

    if (count < 2)
        return 0;
    /* Edges interleave bin boundaries and atoms: l_0, x_0, s_0, x_1, …, s_{M−2}, x_{M−1}, r_{M−1}. Bins are
     * [edge, next edge); the bin index is the number of edges ≤ t, minus one. */
    ux_bin_reach(x, split, count, 0, &left, &unused);
    ux_bin_reach(x, split, count, count - 1, &unused, &right);
    below += left <= t;
    for (i = 0; i < count; ++i) {
        below += x[i] <= t;
        if (i + 1 < count)
            below += split[i] <= t;
    }
    below += right <= t;
    if (below == 0 || below > 2 * count)
        return 0;
    idx = below - 1;
    i = idx / 2;
    ux_bin_reach(x, split, count, i, &left, &right);
    dL = x[i] - left;
    dR = right - x[i];
    /* A bin found here has positive width. When rounding put a split point on the atom, its other bin
     * has zero width and the whole mass goes to this one (a Dirac is the only alternative). */
    if (idx % 2 == 0) /* left bin of atom i: pL / dL */
        return dR > 0 ? w[i] * dR / (dL + dR) / dL : w[i] / dL;
    return dL > 0 ? w[i] * dL / (dL + dR) / dR : w[i] / dR;
}

ux_real ux_pdf(const ux_value *v, ux_real t)
{
    ux_real split[UX_MAX_ETA];
    if (v == NULL || v->count < 2)
        return 0;
    if (ux_split_points(v->x, v->w, v->count, split) != UX_OK)
        return 0;
    return ux_pdf_atoms(v->x, v->w, v->count, split, t);
}
