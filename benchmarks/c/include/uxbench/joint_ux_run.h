/*
 * uxbench/joint_ux_run.h — a whole trace through the joint ux filter (ux/joint_filter.h) in one call, as
 * uxbench/ux_run.h does for the scalar filter: the benchmark times it from the host language, and one
 * crossing per trace keeps the binding's overhead out of the native latency it reports.
 */
#ifndef UXBENCH_JOINT_UX_RUN_H
#define UXBENCH_JOINT_UX_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "ux/joint_filter.h"

/* Per-step outputs; any pointer may be NULL when not wanted (dim = model->dim). */
typedef struct {
    double *mean; /* T·dim */
    double *cov; /* T·dim², row-major */
    int8_t *status; /* T: UX_OK or UX_FALLBACK of each update */
    uint32_t *count; /* T: atoms of each posterior */
    double *x; /* T·UX_MAX_ETA·dim, block per step: the posterior's atoms as rows (first count used) */
    double *w; /* T·UX_MAX_ETA: their weights */
} uxb_joint_ux_output;

/*
 * Initialise `f` with (cfg, ws), then for each step t < T: predict(k[t], u[t]) when t > 0, update with
 * the single observation z[t·dim_obs .. (t+1)·dim_obs). Returns UX_OK, or the first error of init /
 * predict / update (outputs up to that step are written).
 */
ux_status uxb_joint_ux_run(ux_joint_filter *f, const ux_joint_filter_config *cfg, ux_workspace ws, const uint32_t *k,
                           const double *u, const double *z, size_t T, const uxb_joint_ux_output *out);

#endif /* UXBENCH_JOINT_UX_RUN_H */
