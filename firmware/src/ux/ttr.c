/*
 * TTR(n): the telescoping-torques restructuring of canonically ordered atoms (docs/semantics.md).
 *
 * Cells are contiguous index ranges that always tile [0, M), so a level is just a list of boundaries:
 * at most 2^n + 1 of them, kept on the stack. Every sum is sequential in index order with the product
 * w·x rounded before it is added; that order decides every split, and the reference uses the same one.
 */
#include "internal.h"
#include "ux/ttr.h"

/* Sequential W = Σ w and S = Σ w·x over [s, e). */
static void cell_sums(const ux_real *x, const ux_real *w, size_t s, size_t e, ux_real *W, ux_real *S)
{
    ux_real ws = 0, ss = 0;
    size_t i;
    for (i = s; i < e; ++i) {
        ux_real p = w[i] * x[i];
        ws = ws + w[i];
        ss = ss + p;
    }
    *W = ws;
    *S = ss;
}

size_t ux_ttr(ux_real *x, ux_real *w, size_t count, unsigned n)
{
    size_t b[UX_MAX_ETA + 1], nb[UX_MAX_ETA + 1];
    size_t cells = 1, c, out = 0;
    unsigned level;

    if (count == 0 || n > UX_MAX_LOG2_ETA)
        return 0;
    b[0] = 0;
    b[1] = count;
    for (level = 0; level < n; ++level) {
        size_t nc = 0;
        nb[0] = 0;
        for (c = 0; c < cells; ++c) {
            size_t s = b[c], e = b[c + 1], j = s;
            if (x[s] != x[e - 1]) {
                ux_real W, S, m;
                cell_sums(x, w, s, e, &W, &S);
                m = S / W;
                while (j < e && x[j] < m) /* all x < m go left */
                    ++j;
                /* A half that rounding left empty is dropped: the cell stays whole. */
                if (j > s && j < e)
                    nb[++nc] = j;
            }
            nb[++nc] = e;
        }
        for (c = 0; c <= nc; ++c)
            b[c] = nb[c];
        cells = nc;
    }

    /* One atom per cell, written in place: cell c starts at b[c] ≥ c, so index c is read before it is
     * overwritten. Consecutive equal positions merge (masses added left to right). */
    for (c = 0; c < cells; ++c) {
        size_t s = b[c], e = b[c + 1];
        ux_real W, S, pos, lo = x[s], hi = x[e - 1];
        cell_sums(x, w, s, e, &W, &S);
        pos = S / W;
        if (pos < lo) /* clamp: rounding must not move a mean outside its cell */
            pos = lo;
        if (pos > hi)
            pos = hi;
        if (out > 0 && x[out - 1] == pos) {
            w[out - 1] = w[out - 1] + W;
        } else {
            x[out] = pos;
            w[out] = W;
            ++out;
        }
    }
    return out;
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
