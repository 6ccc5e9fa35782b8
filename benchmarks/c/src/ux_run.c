/* A whole trace through the ux filter in one call (uxbench/ux_run.h). */
#include "uxbench/ux_run.h"

ux_status uxb_ux_run(ux_filter *f, const ux_filter_config *cfg, ux_workspace ws, const uint32_t *k, const double *u,
                     const double *z, size_t T, const uxb_ux_output *out)
{
    ux_status st;
    size_t t;
    uint32_t i;

    if (f == NULL || out == NULL || k == NULL || u == NULL || z == NULL)
        return UX_ERR_ARG;
    st = ux_filter_init(f, cfg, ws);
    if (st != UX_OK)
        return st;
    for (t = 0; t < T; ++t) {
        const ux_value *post;
        if (t > 0) {
            st = ux_filter_predict(f, k[t], u[t]);
            if (st < 0)
                return st;
        }
        st = ux_filter_update(f, &z[t], NULL, 1, 1);
        if (st < 0)
            return st;
        post = ux_filter_posterior(f);
        if (out->mean != NULL)
            out->mean[t] = ux_filter_mean(f);
        if (out->var != NULL)
            out->var[t] = ux_filter_var(f);
        if (out->status != NULL)
            out->status[t] = (int8_t)st;
        if (out->count != NULL)
            out->count[t] = post->count;
        if (out->logpdf != NULL && out->at != NULL)
            out->logpdf[t] = ux_filter_logpdf(f, out->at[t]);
        for (i = 0; i < post->count; ++i) {
            if (out->x != NULL)
                out->x[t * UX_MAX_ETA + i] = (double)post->x[i];
            if (out->w != NULL)
                out->w[t * UX_MAX_ETA + i] = (double)post->w[i];
        }
    }
    return UX_OK;
}
