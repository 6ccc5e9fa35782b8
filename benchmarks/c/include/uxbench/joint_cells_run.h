/*
 * uxbench/joint_cells_run.h — a whole trace through the cell filter (ux/joint_cells.h) in one call, as
 * uxbench/joint_ux_run.h does for the joint atom filter.
 */
#ifndef UXBENCH_JOINT_CELLS_RUN_H
#define UXBENCH_JOINT_CELLS_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "ux/joint_cells.h"

/* Per-step outputs; any pointer may be NULL when not wanted (dim = model->dim). */
typedef struct {
    double *mean; /* T·dim */
    double *cov; /* T·dim², row-major */
    int8_t *status; /* T: UX_OK or UX_FALLBACK of each update */
    uint32_t *count; /* T: cells after each update */
    const double *at; /* T·dim: where to read the belief's log-density (with logpdf) */
    double *logpdf; /* T: ux_joint_cells_logpdf at at[t] after update t */
} uxb_joint_cells_output;

/*
 * Initialise `f` with (cfg, ws), then for each step t < T: predict(k[t], u[t]) when t > 0, update with the
 * observation z[t·dim_obs .. (t+1)·dim_obs). Returns UX_OK, or the first error of init / predict / update
 * (outputs up to that step are written).
 */
ux_status uxb_joint_cells_run(ux_joint_cells *f, const ux_joint_filter_config *cfg, ux_workspace ws, const uint32_t *k,
                              const double *u, const double *z, size_t T, const uxb_joint_cells_output *out);

#endif /* UXBENCH_JOINT_CELLS_RUN_H */
