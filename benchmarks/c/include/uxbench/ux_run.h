/*
 * uxbench/ux_run.h — a whole trace through the ux filter in one call.
 *
 * The benchmark times filters per step from the host language; crossing that boundary once per trace
 * instead of three times per step keeps the binding's overhead out of the native latency it reports.
 */
#ifndef UXBENCH_UX_RUN_H
#define UXBENCH_UX_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "ux/filter.h"

/* Per-step outputs; any pointer may be NULL when not wanted. */
typedef struct {
    double *mean; /* T */
    double *var; /* T */
    int8_t *status; /* T: UX_OK or UX_FALLBACK of each update */
    uint32_t *count; /* T: atoms of each posterior */
    double *x; /* T·UX_MAX_ETA, row per step: the posterior's atoms (first count used) */
    double *w; /* T·UX_MAX_ETA: their weights */
    const double *at; /* T: a point per step (the true state), read only when logpdf is set */
    double *logpdf; /* T: ux_filter_logpdf of each posterior at at[t] (for the NLL) */
} uxb_ux_output;

/*
 * Initialise `f` with (cfg, ws), then for each step t < T: predict(k[t], u[t]) when t > 0, update with
 * the single observation z[t]. Returns UX_OK, or the first error of init / predict / update (outputs
 * up to that step are written).
 */
ux_status uxb_ux_run(ux_filter *f, const ux_filter_config *cfg, ux_workspace ws, const uint32_t *k, const double *u,
                     const double *z, size_t T, const uxb_ux_output *out);

#endif /* UXBENCH_UX_RUN_H */
