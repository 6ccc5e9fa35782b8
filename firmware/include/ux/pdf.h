/*
 * ux/pdf.h — the TTR-binned density of a set of atoms (docs/semantics.md, "Density").
 *
 * Each atom gets two bins whose edges are the neighbouring split points of its TTR tree, with the one
 * pair of heights that keeps the atom's mass and mean. A single atom has no density (pdf 0).
 */
#ifndef UX_PDF_H
#define UX_PDF_H

#include "config.h"
#include "value.h"

/*
 * Split points of strictly increasing atoms x[0..count−1] (1 ≤ count ≤ UX_MAX_ETA): split[i] separates
 * x[i] and x[i+1], i = 0..count−2. A gap that rounding leaves without a split point (the recursion
 * pinned every remaining mean to a cell end) gets 0, as in the reference. No workspace (stack only).
 */
ux_status ux_split_points(const ux_real *x, const ux_real *w, size_t count, ux_real *split);

/* Where atom i's two bins reach (count ≥ 2): from *left to *right, its neighbouring split points, the outer
 * bins mirroring the nearest one. */
void ux_bin_reach(const ux_real *x, const ux_real *split, size_t count, size_t i, ux_real *left, ux_real *right);

/* Density at t from atoms and their split points. */
ux_real ux_pdf_atoms(const ux_real *x, const ux_real *w, size_t count, const ux_real *split, ux_real t);

/* Density of a value at t (computes the split points on the stack each call). */
ux_real ux_pdf(const ux_value *v, ux_real t);

#endif /* UX_PDF_H */
