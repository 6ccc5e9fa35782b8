/* A whole trace through the cell filter in one call (uxbench/joint_cells_run.h). */
#include "uxbench/joint_cells_run.h"

ux_status uxb_joint_cells_run(ux_joint_cells *f, const ux_joint_filter_config *cfg, ux_workspace ws, const uint32_t *k,
                              const double *u, const double *z, size_t T, const uxb_joint_cells_output *out)
{
    ux_status st;
    size_t t;
    uint32_t dim, dim_obs;

    if (f == NULL || cfg == NULL || cfg->model == NULL || out == NULL || k == NULL || u == NULL || z == NULL)
        return UX_ERR_ARG;
    st = ux_joint_cells_init(f, cfg, ws);
    if (st != UX_OK)
        return st;
    dim = cfg->model->dim;
    dim_obs = cfg->model->code->dim_obs;
    for (t = 0; t < T; ++t) {
        if (t > 0) {
            st = ux_joint_cells_predict(f, k[t], u[t]);
            if (st < 0)
                return st;
        }
        st = ux_joint_cells_update(f, z + t * dim_obs, NULL, 1, 1);
        if (st < 0)
            return st;
        if (out->mean != NULL)
            ux_joint_cells_mean(f, out->mean + t * dim);
        if (out->cov != NULL)
            ux_joint_cells_cov(f, out->cov + t * dim * dim);
        if (out->status != NULL)
            out->status[t] = (int8_t)st;
        if (out->count != NULL)
            out->count[t] = ux_joint_cells_count(f);
        if (out->logpdf != NULL && out->at != NULL)
            out->logpdf[t] = ux_joint_cells_logpdf(f, out->at + t * dim);
    }
    return UX_OK;
}
