/* Bootstrap particle filter over the joint systems (uxbench/joint_pf.h). */
#include <math.h>
#include <string.h>

#include "uxbench/joint_pf.h"
#include "uxbench/sampling.h"

/* What one run keeps besides the particles. */
typedef struct {
    const ux_joint_model *model;
    ux_model_ctx ctx;
    ux_real params[UX_MODEL_MAX_PARAMS];
    ux_law process[UX_JOINT_MAX_NOISES];
    unsigned dim, dim_noise, dim_obs;
} run_state;

static ux_status setup(run_state *s, const uxb_joint_pf_config *cfg, const ux_law **prior)
{
    unsigned c;
    memset(s, 0, sizeof *s);
    if (cfg->model == NULL || cfg->n == 0 || cfg->model->n_params > UX_MODEL_MAX_PARAMS || cfg->model->dim < 1 ||
        cfg->model->dim > UX_MAX_DIM || cfg->model->code->dim_noise < 1 ||
        cfg->model->code->dim_noise > UX_JOINT_MAX_NOISES || cfg->model->code->dim_obs < 1 ||
        cfg->model->code->dim_obs > UX_JOINT_MAX_OBS)
        return UX_ERR_ARG;
    s->model = cfg->model;
    s->dim = cfg->model->dim;
    s->dim_noise = cfg->model->code->dim_noise;
    s->dim_obs = cfg->model->code->dim_obs;
    if (ux_joint_model_params(s->model, cfg->params, s->params) != UX_OK)
        return UX_ERR_DOMAIN;
    s->model->code->noises(s->params, s->process);
    *prior = cfg->prior != NULL ? cfg->prior : s->model->prior;
    for (c = 0; c < s->dim; ++c)
        if (!uxb_can_sample(&(*prior)[c]))
            return UX_ERR_ARG;
    for (c = 0; c < s->dim_noise; ++c)
        if (!uxb_can_sample(&s->process[c]))
            return UX_ERR_ARG;
    return UX_OK;
}

/* log p(z | x): the kernel's components summed in order; −∞ for a non-finite state or term. */
static double log_likelihood(const run_state *s, const double *x, const double *z)
{
    ux_real xr[UX_MAX_DIM], loc[UX_JOINT_MAX_OBS], scale[UX_JOINT_MAX_OBS];
    double sum = 0;
    unsigned c;
    for (c = 0; c < s->dim; ++c) {
        if (!isfinite(x[c]))
            return -INFINITY;
        xr[c] = (ux_real)x[c];
    }
    s->model->code->kernel(xr, &s->ctx, loc, scale);
    for (c = 0; c < s->dim_obs; ++c)
        sum += (double)(ux_std_logpdf(s->model->code->family, ((ux_real)z[c] - loc[c]) / scale[c]) - log(scale[c]));
    return isnan(sum) ? -INFINITY : sum;
}

static void move(const run_state *s, const double *from, double *to, uxb_gen *g)
{
    ux_real xr[UX_MAX_DIM], wr[UX_JOINT_MAX_NOISES], out[UX_MAX_DIM];
    unsigned c;
    for (c = 0; c < s->dim; ++c)
        xr[c] = (ux_real)from[c];
    for (c = 0; c < s->dim_noise; ++c)
        wr[c] = (ux_real)uxb_sample_law(&s->process[c], g);
    s->model->code->transition(out, xr, wr, &s->ctx);
    for (c = 0; c < s->dim; ++c)
        to[c] = (double)out[c];
}

static int row_finite(const double *x, unsigned dim)
{
    unsigned c;
    for (c = 0; c < dim; ++c)
        if (!isfinite(x[c]))
            return 0;
    return 1;
}

/* Weighted mean and covariance of the set; 1/Σw² returned. Rows with weight 0 are skipped. */
static double moments(const double *x, const double *w, size_t n, unsigned dim, double *mean, double *cov)
{
    double sq = 0;
    size_t i;
    unsigned a, b;
    for (a = 0; a < dim; ++a)
        mean[a] = 0;
    for (a = 0; a < dim * dim; ++a)
        cov[a] = 0;
    for (i = 0; i < n; ++i)
        if (w[i] > 0)
            for (a = 0; a < dim; ++a)
                mean[a] += w[i] * x[i * dim + a];
    for (i = 0; i < n; ++i)
        if (w[i] > 0) {
            for (a = 0; a < dim; ++a)
                for (b = 0; b < dim; ++b)
                    cov[a * dim + b] += w[i] * (x[i * dim + a] - mean[a]) * (x[i * dim + b] - mean[b]);
            sq += w[i] * w[i];
        }
    return 1.0 / sq;
}

size_t uxb_joint_pf_workspace_bytes(size_t n, unsigned dim)
{
    return 2u * UX_WS_ROUND(n * dim * sizeof(double)) + UX_WS_ROUND(n * sizeof(double));
}

ux_status uxb_joint_pf_run(const uxb_joint_pf_config *cfg, const uint32_t *k, const double *u, const double *z,
                           size_t T, const uxb_joint_pf_output *out, ux_workspace ws)
{
    run_state s;
    const ux_law *prior;
    uxb_gen g;
    double *x, *moved, *w;
    size_t n, t, i;
    unsigned c, dim;
    ux_status st;

    if (cfg == NULL || out == NULL || k == NULL || u == NULL || z == NULL)
        return UX_ERR_ARG;
    st = setup(&s, cfg, &prior);
    if (st != UX_OK)
        return st;
    n = cfg->n;
    dim = s.dim;
    if (ws.mem == NULL || ((uintptr_t)ws.mem & 7u) != 0 || ws.bytes < uxb_joint_pf_workspace_bytes(n, dim))
        return UX_ERR_WORKSPACE;
    x = (double *)ws.mem;
    moved = x + UX_WS_ROUND(n * dim * sizeof(double)) / sizeof(double);
    w = moved + UX_WS_ROUND(n * dim * sizeof(double)) / sizeof(double);

    uxb_gen_seed(&g, cfg->seed);
    for (i = 0; i < n; ++i)
        for (c = 0; c < dim; ++c)
            x[i * dim + c] = uxb_sample_law(&prior[c], &g);

    for (t = 0; t < T; ++t) {
        double mean[UX_MAX_DIM], cov[UX_MAX_DIM * UX_MAX_DIM], ess, log_evidence;
        int fell_back;
        ux_joint_model_context(s.model, s.params, k[t], (ux_real)u[t], &s.ctx);
        if (t > 0) {
            double *swap;
            uxb_resample_systematic(x, w, n, dim, moved, &g);
            for (i = 0; i < n; ++i)
                move(&s, moved + i * dim, moved + i * dim, &g);
            swap = x;
            x = moved;
            moved = swap;
        }
        for (i = 0; i < n; ++i)
            w[i] = log_likelihood(&s, x + i * dim, z + t * s.dim_obs);
        fell_back = uxb_normalise_log_weights(w, n, &log_evidence);
        if (fell_back) { /* equal weights on the finite rows only: others would poison the moments */
            size_t live = 0;
            for (i = 0; i < n; ++i)
                live += row_finite(x + i * dim, dim) ? 1u : 0u;
            for (i = 0; i < n && live > 0; ++i)
                w[i] = row_finite(x + i * dim, dim) ? 1.0 / (double)live : 0.0;
        }
        ess = moments(x, w, n, dim, mean, cov);
        if (out->mean != NULL)
            memcpy(out->mean + t * dim, mean, dim * sizeof(double));
        if (out->cov != NULL)
            memcpy(out->cov + t * dim * dim, cov, dim * dim * sizeof(double));
        if (out->ess != NULL)
            out->ess[t] = ess;
        if (out->fallback != NULL)
            out->fallback[t] = (uint8_t)fell_back;
        if (out->log_evidence != NULL)
            out->log_evidence[t] = log_evidence;
        if (out->x != NULL)
            memcpy(out->x + t * n * dim, x, n * dim * sizeof(double));
        if (out->w != NULL)
            memcpy(out->w + t * n, w, n * sizeof(double));
    }
    return UX_OK;
}
