/*
 * ux/ttr.h — the telescoping-torques restructuring (docs/semantics.md).
 *
 * These work on plain arrays so that the η² atoms of a lift or of a refined prior never need to fit
 * in a ux_value. Atoms need no order: TTR sums every cell in the atoms' input order and never sorts.
 */
#ifndef UX_TTR_H
#define UX_TTR_H

#include "config.h"
#include "value.h"
#include "workspace.h"

/*
 * Drop atoms with w == 0, keeping the others in order; `*count` is updated. Non-finite positions or
 * weights, or negative weights, give UX_ERR_DOMAIN and leave the arrays unspecified.
 */
ux_status ux_compact(ux_real *x, ux_real *w, size_t *count);

/*
 * TTR(n) of atoms with positive weights in any order, in place: returns the output count (≤ 2^n and
 * ≤ count); the output atoms are x[0..r-1], w[0..r-1], in increasing position. Masses are not
 * renormalised. n ≤ UX_MAX_LOG2_ETA, count ≥ 1 (else 0 is returned). `cell` is scratch for one byte per
 * atom (UX_TTR_WORKSPACE_BYTES(count)); it may be NULL when n ≤ 1.
 */
size_t ux_ttr(ux_real *x, ux_real *w, size_t count, unsigned n, uint8_t *cell);

/*
 * TTR(n) of the piecewise-linear density through the nodes (lo + k·h, e[k]), k = 0 .. nodes − 1 (e ≥ 0
 * finite, nodes ≥ 2, h > 0): the mean-split recursion on the interpolant itself, each cell's mass and mean
 * its exact integrals (docs/semantics.md, "Filter"). Writes up to 2^n atoms to x and w in increasing
 * position (cells without mass dropped; masses not renormalised) and returns their count, 0 on bad
 * arguments; v, unless NULL, gets each cell's spread: the interpolant's variance within the cell, about
 * the cell's mean. `edges` is scratch for 2^n + 1 reals; x, w and v hold 2^n each. No other memory.
 */
size_t ux_ttr_linear(const ux_real *e, size_t nodes, ux_real lo, ux_real h, unsigned n, ux_real *edges, ux_real *x,
                     ux_real *w, ux_real *v);

/* A mass at one point with a spread of its own (its variance about the point), beside a piecewise-linear density. */
typedef struct {
    ux_real at;
    ux_real mass;
    ux_real spread;
} ux_lump;

/*
 * ux_ttr_linear of the interpolant and `lump_count` lumps beside it (none: ux_ttr_linear exactly): the cells span
 * the nodes and the lumps; a cell holds the interpolant's part in it and each lump at a ≤ at < b (at = b too for
 * the last cell), whose mass, mean and spread enter its sums. Returns 0 on bad arguments as ux_ttr_linear, or
 * for lumps NULL with lump_count > 0.
 */
size_t ux_ttr_linear_lumps(const ux_real *e, size_t nodes, ux_real lo, ux_real h, const ux_lump *lumps,
                           size_t lump_count, unsigned n, ux_real *edges, ux_real *x, ux_real *w, ux_real *v);

/* Normalise weights in place: total = Σ w sequentially, then w[i] /= total. */
void ux_normalise(ux_real *w, size_t count);

/*
 * Weighted atoms → value: drop zero weights, TTR(log2 eta), normalise. The arrays are consumed (used as
 * scratch). `sources` is stored in the result as given. Workspace: UX_TTR_WORKSPACE_BYTES(count).
 */
ux_status ux_reduce(ux_value *out, ux_real *x, ux_real *w, size_t count, unsigned eta, uint64_t sources,
                    ux_workspace *ws);

#endif /* UX_TTR_H */
