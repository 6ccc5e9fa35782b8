/*
 * TTR(n): the telescoping-torques restructuring (docs/semantics.md), without sorting.
 *
 * Cells are the nodes of a complete binary tree: at level ℓ an atom's cell is c < 2^ℓ, and it moves to
 * child 2c when x < mean(c), else to 2c + 1. Atoms never move in memory. Every cell sum runs over the
 * cell's atoms in their input order, so one pass per level both assigns every atom its child and sums
 * the children, and the reference reproduces each sum bit for bit. A child that receives no atom does
 * not exist; its sibling then holds the parent's atoms in the parent's order, so its sums are the
 * parent's exactly and it fails to split the same way: a cell that cannot be split stays whole.
 */
#include "internal.h"
#include "ux/ttr.h"

#include <string.h>

/* Running sums of one cell: mass, first moment, and the extreme positions (for the final clamp; only the
 * last level's cells need them, so the levels before it sum mass and moment alone). */
typedef struct {
    ux_real W, S, lo, hi;
} cell_sums;

static const cell_sums EMPTY = {0, 0, UX_INF, -UX_INF};

/* One level below the first: every atom goes from its cell to child 2c (x < mean) or 2c + 1 and is added
 * to the child's mass and moment, in input order. The child being summed stays in registers while
 * consecutive atoms go to it (the common case: a lift's rows are runs of nearby points). */
static void split_level(const ux_real *x, const ux_real *w, size_t count, uint8_t *cell, const ux_real *mean,
                        cell_sums *sums, unsigned cells)
{
    const ux_real *end = x + count;
    ux_real W = 0, S = 0;
    unsigned c, cur = 0;
    for (c = 0; c < 2 * cells; ++c)
        sums[c].W = sums[c].S = 0;
    for (; x < end; ++x, ++w, ++cell) {
        const ux_real xi = *x, wi = *w;
        const unsigned parent = *cell;
        const unsigned child = 2u * parent + (xi < mean[parent] ? 0u : 1u);
        const ux_real p = wi * xi; /* rounded before it is added: no multiply-add */
        *cell = (uint8_t)child;
        if (child != cur) {
            sums[cur].W = W;
            sums[cur].S = S;
            W = sums[child].W;
            S = sums[child].S;
            cur = child;
        }
        W = W + wi;
        S = S + p;
    }
    sums[cur].W = W;
    sums[cur].S = S;
}

/* The last level: as split_level, plus each child's extreme positions, and no cell is written. */
static void last_level(const ux_real *x, const ux_real *w, size_t count, const uint8_t *cell, const ux_real *mean,
                       cell_sums *sums, unsigned cells)
{
    const ux_real *end = x + count;
    ux_real W = 0, S = 0, lo = UX_INF, hi = -UX_INF;
    unsigned c, cur = 0;
    for (c = 0; c < 2 * cells; ++c)
        sums[c] = EMPTY;
    for (; x < end; ++x, ++w) {
        const ux_real xi = *x, wi = *w;
        const unsigned parent = cell != NULL ? *cell++ : 0u;
        const unsigned child = 2u * parent + (xi < mean[parent] ? 0u : 1u);
        const ux_real p = wi * xi;
        if (child != cur) {
            sums[cur].W = W;
            sums[cur].S = S;
            sums[cur].lo = lo;
            sums[cur].hi = hi;
            W = sums[child].W;
            S = sums[child].S;
            lo = sums[child].lo;
            hi = sums[child].hi;
            cur = child;
        }
        W = W + wi;
        S = S + p;
        lo = xi < lo ? xi : lo;
        hi = xi > hi ? xi : hi;
    }
    sums[cur].W = W;
    sums[cur].S = S;
    sums[cur].lo = lo;
    sums[cur].hi = hi;
}

size_t ux_ttr(ux_real *x, ux_real *w, size_t count, unsigned n, uint8_t *cell)
{
    ux_real W = 0, S = 0;
    size_t i;
    /* Level 0: the one cell holds every atom. */
    for (i = 0; i < count; ++i) {
        ux_real p = w[i] * x[i];
        W = W + w[i];
        S = S + p;
    }
    return ux_ttr_summed(x, w, count, n, cell, W, S);
}

size_t ux_ttr_summed(ux_real *x, ux_real *w, size_t count, unsigned n, uint8_t *cell, ux_real W, ux_real S)
{
    cell_sums sums[UX_MAX_ETA];
    ux_real mean[UX_MAX_ETA / 2];
    size_t i, out = 0;
    unsigned level, c;

    if (count == 0 || n > UX_MAX_LOG2_ETA || (n > 1 && cell == NULL))
        return 0;
    /* Level 0's sums are the caller's; its extremes matter only when it is also the last level. */
    sums[0] = EMPTY;
    sums[0].W = W;
    sums[0].S = S;
    if (n > 1)
        memset(cell, 0, count);
    if (n == 0) {
        for (i = 0; i < count; ++i) {
            if (x[i] < sums[0].lo)
                sums[0].lo = x[i];
            if (x[i] > sums[0].hi)
                sums[0].hi = x[i];
        }
    }
    for (level = 0; level < n; ++level) {
        unsigned cells = 1u << level;
        for (c = 0; c < cells; ++c)
            mean[c] = sums[c].S / sums[c].W; /* NaN for a cell with no atom: no atom asks for it */
        if (level + 1 < n)
            split_level(x, w, count, cell, mean, sums, cells);
        else
            last_level(x, w, count, level == 0 ? NULL : cell, mean, sums, cells);
    }

    /* One atom per non-empty cell, left to right: mass W, position clamp(S / W, lo, hi) (rounding must
     * not move a mean outside its cell). Consecutive equal positions merge, masses added left to right.
     * The input arrays are no longer needed, so the output is written over them. */
    for (c = 0; c < (1u << n); ++c) {
        const cell_sums *s = &sums[c];
        ux_real pos;
        if (!(s->lo <= s->hi))
            continue;
        pos = s->S / s->W;
        if (pos < s->lo)
            pos = s->lo;
        if (pos > s->hi)
            pos = s->hi;
        if (out > 0 && x[out - 1] == pos) {
            w[out - 1] = w[out - 1] + s->W;
        } else {
            x[out] = pos;
            w[out] = s->W;
            ++out;
        }
    }
    return out;
}

ux_status ux_compact(ux_real *x, ux_real *w, size_t *count)
{
    size_t i, kept = 0;
    if (x == NULL || w == NULL || count == NULL)
        return UX_ERR_ARG;
    for (i = 0; i < *count; ++i) {
        if (!ux_finite(x[i]) || !ux_finite(w[i]) || w[i] < 0)
            return UX_ERR_DOMAIN;
        if (w[i] != 0) {
            x[kept] = x[i];
            w[kept] = w[i];
            ++kept;
        }
    }
    *count = kept;
    return UX_OK;
}

void ux_normalise(ux_real *w, size_t count)
{
    ux_real total = 0;
    size_t i;
    for (i = 0; i < count; ++i)
        total = total + w[i];
    for (i = 0; i < count; ++i)
        w[i] = w[i] / total;
}
