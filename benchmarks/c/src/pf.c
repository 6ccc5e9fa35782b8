/*
 * Bootstrap particle filter over the registered models (uxbench/pf.h): the sampling baseline of the
 * filtering benchmark, compiled with the core's flags so both are timed on equal terms.
 */
#include <math.h>
#include <string.h>

#include "internal.h" /* ux_logsumexp: the core's own log-sum-exp */
#include "uxbench/pf.h"
#include "uxbench/sampling.h"

#define DEFAULT_INNER_ETA 64u

/* What one run keeps besides the particles: the model's context and the quantized inner noise. */
typedef struct {
    const ux_model *model;
    ux_model_ctx ctx;
    ux_real params[UX_MODEL_MAX_PARAMS];
    ux_model_noises noises;
    ux_value inner;
    ux_real log_nu[UX_MAX_ETA];
    unsigned n_inner; /* terms of the kernel sum: the inner atoms, or 1 without inner noise */
} run_state;

/* log p(z | x) by the kernel form, summed in the log domain with the largest term factored out. */
static double log_likelihood(const run_state *s, double x, double z)
{
    ux_real args[2], loc, scale, a[UX_MAX_ETA];
    unsigned j;
    args[0] = (ux_real)x;
    for (j = 0; j < s->n_inner; ++j) {
        args[1] = s->noises.n_inner > 0 ? s->inner.x[j] : (ux_real)0.0;
        s->model->code->kernel(args, &s->ctx, &loc, &scale);
        a[j] = s->log_nu[j] + ux_std_logpdf(s->model->code->family, ((ux_real)z - loc) / scale) - log(scale);
    }
    return ux_logsumexp(a, s->n_inner);
}

static ux_status setup(run_state *s, const uxb_pf_config *cfg, ux_law *prior)
{
    ux_sources src;
    unsigned i, inner_eta = cfg->inner_eta ? cfg->inner_eta : DEFAULT_INNER_ETA;

    memset(s, 0, sizeof *s);
    if (cfg->model == NULL || cfg->model->code->kernel == NULL || cfg->n == 0 || ux_log2_eta(inner_eta) < 0 ||
        cfg->model->n_params > UX_MODEL_MAX_PARAMS)
        return UX_ERR_ARG;
    s->model = cfg->model;
    if (ux_model_params(s->model, cfg->params, s->params) != UX_OK)
        return UX_ERR_DOMAIN;
    s->ctx.params = s->params;
    s->model->code->noises(s->params, &s->noises);
    *prior = cfg->prior != NULL ? *cfg->prior : s->model->prior;
    if (!uxb_can_sample(prior) || !uxb_can_sample(&s->noises.process))
        return UX_ERR_ARG;
    s->n_inner = 1;
    s->log_nu[0] = 0;
    if (s->noises.n_inner > 0) {
        ux_status st;
        ux_sources_init(&src);
        st = ux_quantize(&s->noises.inner, inner_eta, &s->inner, &src);
        if (st != UX_OK)
            return st;
        s->n_inner = s->inner.count;
        for (i = 0; i < s->n_inner; ++i)
            s->log_nu[i] = log(s->inner.w[i]);
    }
    return UX_OK;
}

size_t uxb_pf_workspace_bytes(size_t n) { return 3u * UX_WS_ROUND(n * sizeof(double)); }

ux_status uxb_pf_run(const uxb_pf_config *cfg, const uint32_t *k, const double *u, const double *z, size_t T,
                     const uxb_pf_output *out, ux_workspace ws)
{
    run_state s;
    ux_law prior;
    uxb_gen g;
    double *x, *moved, *w;
    size_t n, t, i;
    ux_status st;

    if (cfg == NULL || out == NULL || k == NULL || u == NULL || z == NULL)
        return UX_ERR_ARG;
    st = setup(&s, cfg, &prior);
    if (st != UX_OK)
        return st;
    n = cfg->n;
    if (ws.mem == NULL || ((uintptr_t)ws.mem & 7u) != 0 || ws.bytes < uxb_pf_workspace_bytes(n))
        return UX_ERR_WORKSPACE;
    x = (double *)ws.mem;
    moved = x + UX_WS_ROUND(n * sizeof(double)) / sizeof(double);
    w = moved + UX_WS_ROUND(n * sizeof(double)) / sizeof(double);

    uxb_gen_seed(&g, cfg->seed);
    for (i = 0; i < n; ++i)
        x[i] = uxb_sample_law(&prior, &g);

    for (t = 0; t < T; ++t) {
        double mean = 0, var = 0, sq = 0, log_evidence;
        int fell_back;
        if (t > 0) {
            ux_real args[2];
            double *swap;
            uxb_resample_systematic(x, w, n, 1, moved, &g);
            ux_model_context(s.model, s.params, k[t], (ux_real)u[t], &s.ctx);
            for (i = 0; i < n; ++i) {
                args[0] = (ux_real)moved[i];
                args[1] = (ux_real)uxb_sample_law(&s.noises.process, &g);
                moved[i] = s.model->code->transition(args, &s.ctx);
            }
            swap = x;
            x = moved;
            moved = swap;
        }
        ux_model_context(s.model, s.params, k[t], (ux_real)u[t], &s.ctx);
        for (i = 0; i < n; ++i)
            w[i] = isfinite(x[i]) ? log_likelihood(&s, x[i], z[t]) : -INFINITY;
        fell_back = uxb_normalise_log_weights(w, n, &log_evidence);
        if (fell_back) { /* equal weights on the finite positions only: others would poison the moments */
            size_t live = 0;
            for (i = 0; i < n; ++i)
                live += isfinite(x[i]) ? 1u : 0u;
            for (i = 0; i < n && live > 0; ++i)
                w[i] = isfinite(x[i]) ? 1.0 / (double)live : 0.0;
        }
        for (i = 0; i < n; ++i)
            if (w[i] > 0)
                mean += w[i] * x[i];
        for (i = 0; i < n; ++i)
            if (w[i] > 0) {
                double d = x[i] - mean;
                var += w[i] * d * d;
                sq += w[i] * w[i];
            }
        if (out->mean != NULL)
            out->mean[t] = mean;
        if (out->var != NULL)
            out->var[t] = var;
        if (out->ess != NULL)
            out->ess[t] = 1.0 / sq;
        if (out->fallback != NULL)
            out->fallback[t] = (uint8_t)fell_back;
        if (out->log_evidence != NULL)
            out->log_evidence[t] = log_evidence;
        if (out->x != NULL)
            memcpy(out->x + t * n, x, n * sizeof(double));
        if (out->w != NULL)
            memcpy(out->w + t * n, w, n * sizeof(double));
    }
    return UX_OK;
}
