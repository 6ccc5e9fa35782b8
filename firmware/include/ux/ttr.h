/*
 * ux/ttr.h — canonical ordering and the telescoping-torques restructuring (docs/semantics.md).
 *
 * These work on plain arrays so that the η² atoms of a lift or of a refined prior never need to fit
 * in a ux_value.
 */
#ifndef UX_TTR_H
#define UX_TTR_H

#include "config.h"
#include "value.h"
#include "workspace.h"

/*
 * Canonical order: drop atoms with w == 0, then a stable sort by position (bottom-up merge sort, no
 * recursion). `*count` is updated. Non-finite positions or weights, or negative weights, give
 * UX_ERR_DOMAIN and leave the arrays unspecified.
 * Workspace: UX_SORT_WORKSPACE_BYTES(*count).
 */
ux_status ux_canonical(ux_real *x, ux_real *w, size_t *count, ux_workspace *ws);

/*
 * TTR(n) of canonically ordered atoms, in place: returns the output count (≤ 2^n and ≤ count); the
 * output atoms are x[0..r-1], w[0..r-1]. Masses are not renormalised. n ≤ UX_MAX_LOG2_ETA, count ≥ 1.
 * Needs no workspace (the cell boundaries live on the stack: at most 2^n + 1 indices).
 */
size_t ux_ttr(ux_real *x, ux_real *w, size_t count, unsigned n);

/* Normalise weights in place: total = Σ w sequentially, then w[i] /= total. */
void ux_normalise(ux_real *w, size_t count);

/*
 * Weighted atoms → value: canonical order, TTR(log2 eta), normalise. The arrays are consumed (used as
 * scratch). `sources` is stored in the result as given. Workspace: UX_SORT_WORKSPACE_BYTES(count).
 */
ux_status ux_reduce(ux_value *out, ux_real *x, ux_real *w, size_t count, unsigned eta, uint64_t sources,
                    ux_workspace *ws);

#endif /* UX_TTR_H */
