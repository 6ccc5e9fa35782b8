/*
 * What filter.c (init, predict, update) and filter_density.c (the posterior's density) share: the layout of
 * the filter's workspace, the density state's one reset, and the steps each calls of the other.
 */
#ifndef UX_FILTER_INTERNAL_H
#define UX_FILTER_INTERNAL_H

#include "internal.h"
#include "ux/filter.h"

/* The density's areas in the workspace, after the staged prediction (UX_FILTER_DENSITY_BYTES). The mixture's
 * components, 2η each: centres c_i, log w_i − log σ_i, scales σ_i, weights w_i, split flags (bytes); then η
 * each: the posterior atoms' cell spreads (mixture mode, valid while f->spread), evidence, its weights, and
 * the split noise atoms (η/2 positions, then η/2 weights; smooth, η ≥ 4). log w_i − log σ_i is taken at the
 * density's first read (filter_mixture_logs): most updates never read it. */
enum { A_C, A_LW, A_S, A_CW, A_SPLIT, A_V, A_Z, A_OM, A_HALF };

/* Density area a, after the staged prediction's η² positions and weights. */
static inline ux_real *filter_area(const ux_filter *f, unsigned a)
{
    size_t at = a < A_V ? a * UX_WS_REALS(2 * (size_t)f->eta)
                        : A_V * UX_WS_REALS(2 * (size_t)f->eta) + (a - A_V) * UX_WS_REALS(f->eta);
    return (ux_real *)(void *)((unsigned char *)f->ws.mem + 2 * UX_WS_REALS((size_t)f->eta * f->eta) + at);
}

/* The workspace after the staged prediction and the density's areas: what predict, update and
 * ux_filter_pdf each carve afresh. */
static inline ux_workspace filter_scratch(const ux_filter *f)
{
    ux_workspace w;
    size_t skip = 2 * UX_WS_REALS((size_t)f->eta * f->eta) + UX_FILTER_DENSITY_BYTES(f->eta);
    w.mem = (unsigned char *)f->ws.mem + skip;
    w.bytes = f->ws_used - skip;
    return w;
}

/* A new posterior's density: its form and mixture components; no likelihood factor, normaliser or region
 * until the update or the first read sets them. */
static inline void filter_density_reset(ux_filter_density *d, ux_density_form form, size_t components)
{
    d->form = (uint8_t)form;
    d->count = (uint8_t)components;
    d->lik = 0;
    d->norm_ready = 0;
    d->region = 0;
    d->logs_ready = 0;
}

/* The outermost prior points an update weighs, for the open-edge test (docs/semantics.md, "Filter"): on each
 * side (0: lowest, 1: highest) the outermost position, the next one inward (+∞ / −∞ when there is none) and
 * the prior weight at the outermost (summed in order); `probe` the indices of their first occurrences (edge 0,
 * inner 0, edge 1, inner 1), whose likelihoods BayesLaplace writes with the prior weights' sum. */
typedef struct {
    ux_real edge[2], inner[2], weight[2];
    ux_probe probe;
} ux_point_edges;

/* The sums of Sarle's bimodality coefficient (γ² + 1)/κ of a mixture of N(x_i, v_i) with normalised weights,
 * about its mean (docs/semantics.md, "Filter"): shape_add for each component in order, then shape_bimodality
 * (∞ when the fourth moment is not positive). */
typedef struct {
    ux_real v2, m3, m4;
} ux_shape;

static inline void shape_add(ux_shape *s, ux_real w, ux_real d, ux_real v)
{
    ux_real dd = d * d;
    ux_real p2 = w * (dd + v);
    ux_real p3 = w * (dd * d + UX_R(3.0) * d * v);
    ux_real p4 = w * (dd * dd + UX_R(6.0) * dd * v + UX_R(3.0) * v * v);
    s->v2 = s->v2 + p2;
    s->m3 = s->m3 + p3;
    s->m4 = s->m4 + p4;
}

static inline ux_real shape_bimodality(const ux_shape *s)
{
    if (!(s->m4 > 0))
        return UX_INF;
    return (s->m3 * s->m3 / (s->v2 * s->v2 * s->v2) + UX_R(1.0)) * (s->v2 * s->v2) / s->m4;
}

/* filter.c: the atoms of the prior law the first update weighs; the update's observation model. */
unsigned filter_first_prior_atoms(const ux_filter *f);
void filter_observation(const ux_filter *f, ux_model_ctx *ctx, const ux_value **noise, ux_observation *obs);

/* filter_density.c: the mixture components' log w_i − log σ_i into their area, unless this density has them. */
void filter_mixture_logs(ux_filter *f);

/* filter_density.c: mixture mode's posterior from the density's quadrature, the first update's region, and an
 * outlier's reach under a Gaussian predictive (see there). Not inlined: their node scratch frames stay off
 * ux_filter_update's, which BayesLaplace's deep path shares. */
__attribute__((noinline)) int filter_mixture_posterior(ux_filter *f, ux_real *log_evidence);
__attribute__((noinline)) ux_real filter_gaussian_reach(ux_filter *f, ux_real mean, ux_real var);
__attribute__((noinline)) int filter_first_region(ux_filter *f);
__attribute__((noinline)) int filter_edge_open(ux_filter *f, const ux_point_edges *e, ux_real log_evidence);

#endif /* UX_FILTER_INTERNAL_H */
