/*
 * ux/workspace.h — caller-provided scratch memory.
 *
 * Operations that need more than a value's worth of memory (the η² outer product of a lift, TTR's cell
 * of each atom, the log-weights of BayesLaplace) take a `ux_workspace`: a block of memory
 * the caller owns, typically a static array sized with the macros below so that RAM use is known
 * before flashing. The core carves it up per call and keeps nothing in it between calls, except the
 * filter, which keeps its predictive atoms there between predict and update (see filter.h).
 *
 * `mem` must be aligned to 8 bytes (declare it as `static uint64_t buf[UX_WORDS(UX_WORKSPACE_BYTES(η))]`
 * or with `_Alignas(8)`); a misaligned or too small workspace gives UX_ERR_WORKSPACE, never an overrun.
 */
#ifndef UX_WORKSPACE_H
#define UX_WORKSPACE_H

#include "config.h"

typedef struct {
    void *mem;
    size_t bytes;
} ux_workspace;

/* Number of uint64_t words that hold `bytes` bytes (for declaring aligned static buffers). */
#define UX_WORDS(bytes) (((bytes) + 7u) / 8u)

/* Every block carved from a workspace is rounded up to 8 bytes. */
#define UX_WS_ROUND(bytes) ((((size_t)(bytes)) + 7u) & ~(size_t)7u)
#define UX_WS_REALS(count) UX_WS_ROUND((size_t)(count) * sizeof(ux_real))

/* TTR of `count` atoms: the cell of each atom, one byte each. */
#define UX_TTR_WORKSPACE_BYTES(count) UX_WS_ROUND(count)

/* A lift whose outer product has `points` points: the points themselves plus TTR's cells. */
#define UX_LIFT_WORKSPACE_BYTES(points) (2u * UX_WS_REALS(points) + UX_TTR_WORKSPACE_BYTES(points))

#define UX_WS_MAX(a, b) ((a) > (b) ? (a) : (b))

/*
 * BayesLaplace over `prior_count` hypotheses: the log-likelihoods, plus
 *  - kernel form with `inner` inner-noise atoms: four arrays of that size (log ν, loc, scale, the log
 *    terms);
 *  - sampler form with `points` noise points per hypothesis (the product of the noise counts): one lift.
 * UX_BAYES_WORKSPACE_BYTES covers both forms for the same count.
 */
#define UX_BAYES_KERNEL_WORKSPACE_BYTES(prior_count, inner) (UX_WS_REALS(prior_count) + 4u * UX_WS_REALS(inner))
#define UX_BAYES_SAMPLER_WORKSPACE_BYTES(prior_count, points)                                                          \
    (UX_WS_REALS(prior_count) + UX_LIFT_WORKSPACE_BYTES(points))
#define UX_BAYES_WORKSPACE_BYTES(prior_count, noise_points)                                                            \
    UX_WS_MAX(UX_BAYES_KERNEL_WORKSPACE_BYTES(prior_count, noise_points),                                              \
              UX_BAYES_SAMPLER_WORKSPACE_BYTES(prior_count, noise_points))

/* The filter density's quadrature (filter.h, docs/semantics.md "Filter density"): UX_DENSITY_INTERVALS
 * equal trapezoid intervals, so one more node. */
#define UX_DENSITY_INTERVALS 128
#define UX_DENSITY_NODES (UX_DENSITY_INTERVALS + 1)

/*
 * A mixture-mode update's posterior from the density's nodes: their positions and values (the positions'
 * space then holds the cells' edges of ux_ttr_linear), and the one-point log-likelihood the nodes are weighed with (kernel form: up to η inner-noise atoms;
 * sampler form: up to η² noise points).
 */
#define UX_MIXTURE_WORKSPACE_BYTES(eta)                                                                                \
    (2u * UX_WS_REALS(UX_DENSITY_NODES) +                                                                              \
     UX_WS_MAX(UX_BAYES_KERNEL_WORKSPACE_BYTES(1, (eta)), UX_BAYES_SAMPLER_WORKSPACE_BYTES(1, (size_t)(eta) * (eta))))

/*
 * The filter's posterior density: five areas of its mixture's components (up to 2η: a cell the transition bends
 * is two, docs/semantics.md "Filter density") and four η-real areas (cell spreads, evidence, its weights, the
 * split noise atoms).
 */
#define UX_FILTER_DENSITY_BYTES(eta) (5u * UX_WS_REALS(2u * (size_t)(eta)) + 4u * UX_WS_REALS(eta))

/*
 * The filter at size η, for any built-in system, mode and likelihood: the η² predictive atoms it keeps
 * between predict and update and its posterior density's areas, plus the largest of
 *  - predict: the lift's η² points and TTR's cells;
 *  - update, kernel form: η² hypotheses, up to η inner-noise atoms;
 *  - update, sampler form: η² hypotheses, up to η² noise points (the cubic system's two noises);
 *  - mixture mode: the density's nodes (UX_MIXTURE_WORKSPACE_BYTES; the largest term only at η ≤ 8).
 */
#define UX_WORKSPACE_BYTES(eta)                                                                                        \
    (2u * UX_WS_REALS((size_t)(eta) * (eta)) + UX_FILTER_DENSITY_BYTES(eta) +                                          \
     UX_WS_MAX(UX_WS_MAX(UX_LIFT_WORKSPACE_BYTES((size_t)(eta) * (eta)), UX_MIXTURE_WORKSPACE_BYTES(eta)),             \
               UX_WS_MAX(UX_BAYES_KERNEL_WORKSPACE_BYTES((size_t)(eta) * (eta), (eta)),                                \
                         UX_BAYES_SAMPLER_WORKSPACE_BYTES((size_t)(eta) * (eta), (size_t)(eta) * (eta)))))

/* The RAM budget the core promises for the double build (the float build needs half). */
#define UX_WORKSPACE_BUDGET_32 (64u * 1024u)
#define UX_WORKSPACE_BUDGET_64 (256u * 1024u)

_Static_assert(UX_WORKSPACE_BYTES(32) <= UX_WORKSPACE_BUDGET_32, "η ≤ 32 must fit in 64 KiB");
_Static_assert(UX_WORKSPACE_BYTES(64) <= UX_WORKSPACE_BUDGET_64, "η = 64 must fit in 256 KiB");

#endif /* UX_WORKSPACE_H */
