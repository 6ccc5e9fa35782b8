/*
 * ux/joint.h — joint values: a law on R^d, 1 ≤ d ≤ UX_MAX_DIM, carried as at most η weighted atoms, and
 * the reduction that makes them (docs/semantics.md, "Joint values").
 *
 * The reduction generalises TTR: every cell is split at its weighted mean along the axis whose variance
 * in the cell is largest relative to the whole set's, and the cells' conditional means become the
 * atoms, so the mean is kept. With d = 1 it is ux_ttr bit for bit. Every call returns a status; nothing
 * is allocated: scratch comes from the caller's workspace, sized with the macros below.
 */
#ifndef UX_JOINT_H
#define UX_JOINT_H

#include "config.h"
#include "value.h"
#include "workspace.h"

/*
 * Invariants of every joint value the core returns: 1 ≤ dim ≤ UX_MAX_DIM, 1 ≤ count ≤ eta ≤ UX_MAX_ETA,
 * finite positions, w > 0 summing to 1 up to rounding, no two atoms equal. Atom i's component k is
 * x[i * dim + k] (rows packed with stride dim). The atoms are in the reduction's output order (its cells
 * left to right); no other order is implied. sizeof(ux_joint) = 24 + (UX_MAX_DIM + 1)·UX_MAX_ETA reals:
 * 2,584 bytes in the double build with the defaults, 1,304 in the float build.
 */
typedef struct {
    uint32_t count; /* atoms in use, ≤ eta */
    uint32_t eta; /* the size the value was built for (a power of two) */
    uint32_t dim; /* components, 1..UX_MAX_DIM */
    uint64_t sources; /* as ux_value's: the independent sources it was built from */
    ux_real x[UX_MAX_ETA * UX_MAX_DIM];
    ux_real w[UX_MAX_ETA];
} ux_joint;

/*
 * Workspace of the reduction of `count` atoms of dimension `dim` to at most `eta` atoms: the cell of
 * each atom (one byte), per cell of the finest level W, S[dim], lo[dim], hi[dim], per cell of the level
 * above its mean[dim], variance sum[dim] and chosen axis (one byte), and the whole set's variance[dim].
 */
#define UX_JOINT_TTR_WORKSPACE_BYTES(count, dim, eta)                                                                  \
    (UX_WS_ROUND(count) + UX_WS_REALS((size_t)(eta) * (1u + 3u * (size_t)(dim))) +                                     \
     2u * UX_WS_REALS((size_t)(eta) / 2u * (size_t)(dim)) + UX_WS_ROUND((size_t)(eta) / 2u) + UX_WS_REALS(dim))

/* ux_joint_from_atoms and ux_joint_product of `count` atoms (points): a working copy plus the reduction. */
#define UX_JOINT_FROM_ATOMS_WORKSPACE_BYTES(count, dim, eta)                                                           \
    (UX_WS_REALS((size_t)(count) * (size_t)(dim)) + UX_WS_REALS(count) + UX_JOINT_TTR_WORKSPACE_BYTES(count, dim, eta))

/*
 * The joint TTR(n) of `count` ≥ 1 atoms (rows of x, packed with stride dim) with weights w > 0, in any
 * order, in place: x[0 .. r·dim), w[0 .. r) hold the r ≤ 2^n output atoms, the cells left to right, and
 * *out_count = r. Masses are not renormalised. n ≤ UX_MAX_LOG2_ETA. Workspace:
 * UX_JOINT_TTR_WORKSPACE_BYTES(count, dim, 2^n). UX_ERR_ARG for a NULL pointer, count 0, dim outside
 * 1..UX_MAX_DIM or n too large; UX_ERR_WORKSPACE when the workspace is too small or misaligned.
 */
ux_status ux_joint_ttr(ux_real *x, ux_real *w, size_t count, unsigned dim, unsigned n, size_t *out_count,
                       ux_workspace *ws);

/*
 * Drop rows with w == 0, keeping the others in order; *count is updated. A non-finite position or
 * weight, or a negative weight, gives UX_ERR_DOMAIN and leaves the arrays unspecified.
 */
ux_status ux_joint_compact(ux_real *x, ux_real *w, size_t *count, unsigned dim);

/*
 * Weighted joint atoms → joint value: zero weights dropped, joint TTR(log2 eta), normalise. The arrays
 * are consumed (used as scratch). `sources` is stored as given. eta must be a power of two ≤ UX_MAX_ETA.
 * UX_ERR_DOMAIN when every weight is zero. Workspace: UX_JOINT_TTR_WORKSPACE_BYTES(count, dim, eta).
 */
ux_status ux_joint_reduce(ux_joint *out, ux_real *x, ux_real *w, size_t count, unsigned dim, unsigned eta,
                          uint64_t sources, ux_workspace *ws);

/*
 * A joint value with a fresh source from `count` rows (x, packed with stride dim) with weights w (NULL:
 * equal weights); the inputs are copied first. eta = 0 means UX_DEFAULT_ETA.
 * Workspace: UX_JOINT_FROM_ATOMS_WORKSPACE_BYTES(count, dim, eta).
 */
ux_status ux_joint_from_atoms(ux_joint *out, const ux_real *x, const ux_real *w, size_t count, unsigned dim,
                              unsigned eta, ux_sources *src, ux_workspace *ws);

/*
 * The joint law of independent scalar values, parts[k] being component k (dim of them): their outer
 * product (the first component varying slowest, weights multiplied left to right, as a lift's) reduced
 * to eta (0: the largest part's eta). The same pointer twice is one input (its component repeats); two
 * different parts sharing a source give UX_ERR_DEPENDENT. Sources: the union of the parts'.
 * Workspace: UX_JOINT_FROM_ATOMS_WORKSPACE_BYTES(points, dim, eta), points = the product of the distinct
 * parts' counts.
 */
ux_status ux_joint_product(ux_joint *out, const ux_value *const *parts, unsigned dim, unsigned eta, ux_workspace *ws);

/* UX_OK when v satisfies the invariants above (two equal atoms included), else UX_ERR_ARG (sizes) or
 * UX_ERR_DOMAIN. */
ux_status ux_joint_check(const ux_joint *v);

/* mean[k] = Σ w x_k, k < dim, summed over the atoms in order. */
ux_status ux_joint_mean(const ux_joint *v, ux_real *mean);

/* cov[j·dim + k] = Σ w (d_j·d_k), d = x − mean: the dim × dim covariance, row-major. */
ux_status ux_joint_cov(const ux_joint *v, ux_real *cov);

/* The law of component k as a scalar value: atoms stably sorted by x_k, equal positions merged (masses
 * added in that order), not renormalised; eta and sources those of v. */
ux_status ux_joint_marginal(ux_value *out, const ux_joint *v, unsigned k);

/* Statistics of component k: those of its marginal (ux/stats.h). q outside [0, 1] is UX_ERR_DOMAIN. */
ux_status ux_joint_quantile(const ux_joint *v, unsigned k, ux_real q, ux_real *out);
ux_status ux_joint_cdf(const ux_joint *v, unsigned k, ux_real t, ux_real *out); /* P(X_k ≤ t) */
ux_status ux_joint_sf(const ux_joint *v, unsigned k, ux_real t, ux_real *out); /* P(X_k > t) */

/*
 * A vector transition: out[0 .. dim_out) = f(x[0 .. dim), noise[0 .. n_noise); ctx). ctx is passed
 * through untouched (a model's parameters, the step's k and u).
 */
typedef void (*ux_joint_fn)(ux_real *out, const ux_real *x, const ux_real *noise, const void *ctx);

/*
 * The joint lift x' = f(x, w): f evaluated on the product of the state's atoms and the outer product of
 * the independent scalar noises (the state varying slowest, then the noises in order, the first slowest;
 * weights multiplied left to right), then reduced to eta (0: the largest eta of the state and the
 * noises) with dim_out components. The same noise pointer twice is one input; a noise sharing a source
 * with the state or with another noise gives UX_ERR_DEPENDENT. A non-finite f value gives UX_ERR_DOMAIN.
 * Sources: the union. `out` may be `state`. n_noise ≤ UX_MAX_ARGS. Workspace:
 * UX_JOINT_FROM_ATOMS_WORKSPACE_BYTES(points, dim_out, eta), points = state->count × the product of the
 * distinct noises' counts.
 */
ux_status ux_joint_lift(ux_joint *out, ux_joint_fn f, const void *ctx, unsigned dim_out, const ux_joint *state,
                        const ux_value *const *noise, unsigned n_noise, unsigned eta, ux_workspace *ws);

#endif /* UX_JOINT_H */
