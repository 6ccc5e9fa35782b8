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

/* filter.c: the atoms of the prior law the first update weighs; the update's observation model. */
unsigned filter_first_prior_atoms(const ux_filter *f);
void filter_observation(const ux_filter *f, ux_model_ctx *ctx, const ux_value **noise, ux_observation *obs);

/* filter_density.c: the mixture components' log w_i − log σ_i into their area, unless this density has them. */
void filter_mixture_logs(ux_filter *f);

/* filter_density.c: mixture mode's posterior from the density's quadrature, and the first update's region
 * (see there). Not inlined: their node scratch frames stay off ux_filter_update's, which BayesLaplace's deep
 * path shares. */
__attribute__((noinline)) int filter_mixture_posterior(ux_filter *f, ux_real *log_evidence);
__attribute__((noinline)) int filter_first_region(ux_filter *f);
__attribute__((noinline)) int filter_edge_open(ux_filter *f, const ux_point_edges *e, ux_real log_evidence);

#endif /* UX_FILTER_INTERNAL_H */
