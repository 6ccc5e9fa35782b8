/*
 * ux/value.h — an uncertain value: a Dirac mixture of at most UX_MAX_ETA atoms.
 *
 * Invariants of every value the core returns: 1 ≤ count ≤ UX_MAX_ETA, x strictly increasing,
 * w > 0 and summing to 1 up to rounding. `sources` is the set of independent sources the value was
 * built from (bit i = source i mod 64); it is what lets the core refuse `x * (x + 1)` instead of
 * silently computing the law of a product of independent copies.
 */
#ifndef UX_VALUE_H
#define UX_VALUE_H

#include "config.h"
#include "workspace.h"

typedef struct {
    uint32_t count; /* atoms in use, ≤ eta */
    uint32_t eta; /* the size the value was built for (a power of two): lifts of it reduce to this */
    uint64_t sources;
    ux_real x[UX_MAX_ETA];
    ux_real w[UX_MAX_ETA];
} ux_value;

/*
 * The counter fresh sources are drawn from. The caller owns it (one per independent computation, e.g.
 * one inside each filter), so the core has no hidden global state. Masks alias after 64 sources, which
 * can only cause a refusal (UX_ERR_DEPENDENT), never a wrong law.
 */
typedef struct {
    uint32_t next;
} ux_sources;

void ux_sources_init(ux_sources *src);

/* A fresh one-bit source mask; advances the counter. */
uint64_t ux_sources_fresh(ux_sources *src);

/* UX_OK when `v` satisfies the invariants above, else UX_ERR_ARG (count) or UX_ERR_DOMAIN. */
ux_status ux_value_check(const ux_value *v);

/* The point value c (one atom, weight 1, built for size eta; 0: UX_DEFAULT_ETA), fresh source. c must be
 * finite. */
ux_status ux_point(ux_value *out, ux_real c, unsigned eta, ux_sources *src);

/* The same law (and eta) as `in` with a fresh source (the paper's IndependentCopy). `out` may be `in`. */
ux_status ux_independent_copy(ux_value *out, const ux_value *in, ux_sources *src);

/*
 * A value from `count` samples (equal weights) or weighted samples (`w` may be NULL for equal
 * weights): zero weights dropped, TTR(log2 eta), normalise. Non-finite samples or negative / non-finite
 * weights give UX_ERR_DOMAIN. eta = 0 means UX_DEFAULT_ETA.
 * Workspace: UX_TTR_WORKSPACE_BYTES(count) plus 2 * UX_WS_REALS(count) for the working copy.
 */
ux_status ux_from_samples(ux_value *out, const ux_real *x, const ux_real *w, size_t count, unsigned eta,
                          ux_sources *src, ux_workspace *ws);

/*
 * Mixture p·a + (1 − p)·b, 0 < p < 1: atoms of a with weights p·w, then of b with (1 − p)·w, TTR(log2
 * eta), normalise; fresh source. eta = 0 means the larger of the two values' eta. Needs no workspace:
 * the 2η atoms and their cells fit on the stack.
 */
ux_status ux_mixture(ux_value *out, const ux_value *a, const ux_value *b, ux_real p, unsigned eta, ux_sources *src);

#endif /* UX_VALUE_H */
