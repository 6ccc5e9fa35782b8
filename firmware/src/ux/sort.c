/*
 * Canonical order of a weighted atom set: drop zero weights, then a stable sort by position.
 *
 * Stability is part of the numeric contract (ties keep their input order, which fixes the order of the
 * sequential sums that follow), so this is a merge sort: stable, O(M log M), no recursion, and its only
 * scratch is one copy of the arrays taken from the caller's workspace. It is a *natural* merge sort:
 * each pass merges neighbouring maximal ascending runs. A lift's outer product with the last input
 * varying fastest is typically η ascending runs of η points (f monotone in its noise), which this sorts
 * in log2 η passes instead of log2 η².
 */
#include "internal.h"
#include "ux/ttr.h"

#include <string.h>

/* Merge runs [lo, mid) and [mid, hi) of (sx, sw) into (dx, dw); ties take the left run first. */
static void merge_runs(const ux_real *sx, const ux_real *sw, ux_real *dx, ux_real *dw, size_t lo, size_t mid,
                       size_t hi)
{
    size_t i = lo, j = mid, k = lo;
    while (i < mid && j < hi) {
        if (sx[j] < sx[i]) {
            dx[k] = sx[j];
            dw[k++] = sw[j++];
        } else {
            dx[k] = sx[i];
            dw[k++] = sw[i++];
        }
    }
    while (i < mid) {
        dx[k] = sx[i];
        dw[k++] = sw[i++];
    }
    while (j < hi) {
        dx[k] = sx[j];
        dw[k++] = sw[j++];
    }
}

/* End of the maximal ascending (non-decreasing) run starting at lo. */
static size_t run_end(const ux_real *x, size_t lo, size_t M)
{
    size_t i = lo + 1;
    while (i < M && !(x[i] < x[i - 1]))
        ++i;
    return i;
}

static int is_sorted(const ux_real *x, size_t count)
{
    size_t i;
    for (i = 1; i < count; ++i)
        if (x[i] < x[i - 1])
            return 0;
    return 1;
}

ux_status ux_canonical(ux_real *x, ux_real *w, size_t *count, ux_workspace *ws)
{
    size_t i, kept = 0, M;
    ux_real *tx, *tw, *sx, *sw, *dx, *dw;
    ux_arena arena;
    ux_status st;

    if (x == NULL || w == NULL || count == NULL)
        return UX_ERR_ARG;
    M = *count;
    for (i = 0; i < M; ++i) {
        if (!ux_finite(x[i]) || !ux_finite(w[i]) || w[i] < 0)
            return UX_ERR_DOMAIN;
        if (w[i] != 0) {
            x[kept] = x[i];
            w[kept] = w[i];
            ++kept;
        }
    }
    *count = M = kept;
    /* Most inputs that reach here (a value's own atoms, a monotone lift) are already in order. */
    if (M < 2 || is_sorted(x, M))
        return UX_OK;

    st = ux_arena_open(&arena, ws);
    if (st != UX_OK)
        return st;
    tx = ux_arena_reals(&arena, M);
    tw = ux_arena_reals(&arena, M);
    if (tx == NULL || tw == NULL)
        return UX_ERR_WORKSPACE;

    sx = x;
    sw = w;
    dx = tx;
    dw = tw;
    for (;;) {
        size_t lo = 0, runs = 0;
        while (lo < M) {
            size_t mid = run_end(sx, lo, M), hi = mid < M ? run_end(sx, mid, M) : M;
            merge_runs(sx, sw, dx, dw, lo, mid, hi);
            lo = hi;
            ++runs;
        }
        /* Swap roles: the merged runs are the source of the next pass. */
        {
            ux_real *t = sx;
            sx = dx;
            dx = t;
            t = sw;
            sw = dw;
            dw = t;
        }
        if (runs == 1)
            break;
    }
    if (sx != x) {
        memcpy(x, sx, M * sizeof(ux_real));
        memcpy(w, sw, M * sizeof(ux_real));
    }
    return UX_OK;
}
