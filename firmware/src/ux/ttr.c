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

/* Running sums of one cell: mass, first moment, and the extreme positions (for the final clamp). */
typedef struct {
    ux_real W, S, lo, hi;
} cell_sums;

static void add_atom(cell_sums *s, ux_real x, ux_real w)
{
    ux_real p = w * x; /* rounded before it is added: no multiply-add */
    s->W = s->W + w;
    s->S = s->S + p;
    if (x < s->lo)
        s->lo = x;
    if (x > s->hi)
        s->hi = x;
}

static const cell_sums EMPTY = {0, 0, UX_INF, -UX_INF};

size_t ux_ttr(ux_real *x, ux_real *w, size_t count, unsigned n, uint8_t *cell)
{
    cell_sums sums[UX_MAX_ETA];
    ux_real mean[UX_MAX_ETA / 2];
    size_t i, out = 0;
    unsigned level, c;

    if (count == 0 || n > UX_MAX_LOG2_ETA || (n > 1 && cell == NULL))
        return 0;
    sums[0] = EMPTY;
    for (i = 0; i < count; ++i)
        add_atom(&sums[0], x[i], w[i]);

    for (level = 0; level < n; ++level) {
        unsigned cells = 1u << level, cur = 0;
        int keep_cells = level + 1 < n; /* the last level's children are never split again */
        cell_sums run = EMPTY;
        for (c = 0; c < cells; ++c)
            mean[c] = sums[c].S / sums[c].W; /* NaN for a cell with no atom: no atom asks for it */
        for (c = 0; c < 2 * cells; ++c)
            sums[c] = EMPTY;
        /* The child being summed stays in `run` while consecutive atoms go to it (the common case: a
         * lift's rows are runs of nearby points), and goes back to `sums` when another child is hit. */
        for (i = 0; i < count; ++i) {
            unsigned parent = level == 0 ? 0u : cell[i];
            unsigned child = 2u * parent + (x[i] < mean[parent] ? 0u : 1u);
            if (keep_cells)
                cell[i] = (uint8_t)child;
            if (child != cur) {
                sums[cur] = run;
                run = sums[child];
                cur = child;
            }
            add_atom(&run, x[i], w[i]);
        }
        sums[cur] = run;
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
