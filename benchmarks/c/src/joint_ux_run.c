/* A whole trace through the joint ux filter in one call (uxbench/joint_ux_run.h). */
#include "uxbench/joint_ux_run.h"

ux_status uxb_joint_ux_run(ux_joint_filter *f, const ux_joint_filter_config *cfg, ux_workspace ws, const uint32_t *k,
                           const double *u, const double *z, size_t T, const uxb_joint_ux_output *out)
{
    ux_status st;
    size_t t;
    uint32_t i, dim, dim_obs;

    if (f == NULL || cfg == NULL || cfg->model == NULL || out == NULL || k == NULL || u == NULL || z == NULL)
        return UX_ERR_ARG;
    st = ux_joint_filter_init(f, cfg, ws);
    if (st != UX_OK)
        return st;
    dim = cfg->model->dim;
    dim_obs = cfg->model->code->dim_obs;
    for (t = 0; t < T; ++t) {
        const ux_joint *post;
        if (t > 0) {
            st = ux_joint_filter_predict(f, k[t], u[t]);
            if (st < 0)
                return st;
        }
        st = ux_joint_filter_update(f, z + t * dim_obs, NULL, 1, 1);
        if (st < 0)
            return st;
        post = ux_joint_filter_posterior(f);
        if (out->mean != NULL)
            ux_joint_filter_mean(f, out->mean + t * dim);
        if (out->cov != NULL)
            ux_joint_filter_cov(f, out->cov + t * dim * dim);
        if (out->status != NULL)
            out->status[t] = (int8_t)st;
        if (out->count != NULL)
            out->count[t] = post->count;
        for (i = 0; i < post->count * dim; ++i)
            if (out->x != NULL)
                out->x[t * UX_MAX_ETA * dim + i] = (double)post->x[i];
        for (i = 0; i < post->count; ++i)
            if (out->w != NULL)
                out->w[t * UX_MAX_ETA + i] = (double)post->w[i];
    }
    return UX_OK;
}
