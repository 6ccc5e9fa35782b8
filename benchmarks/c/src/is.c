/*
 * The inference benchmark's native side (uxbench/is.h): bound observation models, importance
 * sampling over the registry's kernel functions, and repeat loops for timing.
 */
#include <math.h>
#include <string.h>

#include "internal.h" /* ux_evidence_weights: the core's own evidence checks */
#include "uxbench/is.h"

static ux_status bind_params(uxb_observation *o, const ux_model *model, const ux_real *params)
{
    unsigned i;
    for (i = 0; i < UX_MODEL_MAX_PARAMS; ++i)
        o->params[i] = i < model->n_params ? (params != NULL ? params[i] : model->defaults[i]) : 0;
    if (ux_model_check_params(model, o->params) >= 0)
        return UX_ERR_DOMAIN;
    ux_model_context(model, o->params, 0, 0, &o->ctx);
    return UX_OK;
}

ux_status uxb_observation_init(uxb_observation *o, unsigned system_id, const ux_real *params, ux_likelihood form,
                               unsigned eta, ux_sources *src)
{
    const ux_model *model = ux_model_find(system_id);
    ux_model_noises noises;
    ux_status st;
    unsigned r;

    if (o == NULL || src == NULL || model == NULL || ux_log2_eta(eta) < 0)
        return UX_ERR_ARG;
    memset(o, 0, sizeof *o);
    st = bind_params(o, model, params);
    if (st != UX_OK)
        return st;
    model->code->noises(o->params, &noises);
    o->obs.form = form;
    o->obs.ctx = &o->ctx;
    o->obs.eta = eta;
    if (form == UX_LIK_KERNEL) {
        if (model->code->kernel == NULL)
            return UX_ERR_ARG;
        o->obs.family = model->code->family;
        o->obs.kernel = model->code->kernel;
        o->obs.kernel_row = model->code->kernel_row;
        if (noises.n_inner > 0) {
            st = ux_quantize(&noises.inner, eta, &o->noise[0], src);
            if (st != UX_OK)
                return st;
            o->obs.inner = &o->noise[0];
        }
        return UX_OK;
    }
    if (form != UX_LIK_SAMPLER || noises.n_noise < 1 || noises.n_noise > UX_MODEL_MAX_NOISES)
        return UX_ERR_ARG;
    for (r = 0; r < noises.n_noise; ++r) {
        st = ux_quantize(&noises.noise[r], eta, &o->noise[r], src);
        if (st != UX_OK)
            return st;
        o->noise_ptr[r] = &o->noise[r];
    }
    o->obs.sampler = model->code->sampler;
    o->obs.noise = o->noise_ptr;
    o->obs.n_noise = noises.n_noise;
    return UX_OK;
}

/* Uniform in (0, 1), never 0 or 1: the inverse cdfs below take logarithms of u and 1 − u. */
static double open_uniform(ux_rng *rng) { return ((double)(ux_rng_next(rng) >> 11) + 0.5) * 0x1.0p-53; }

ux_status uxb_draw_n(const ux_law *law, ux_rng *rng, ux_real *out, size_t n)
{
    size_t i = 0;
    ux_status st;

    if (law == NULL || rng == NULL || (out == NULL && n > 0))
        return UX_ERR_ARG;
    if (law->kind != UX_LAW_GAUSSIAN && law->kind != UX_LAW_LAPLACE && law->kind != UX_LAW_UNIFORM)
        return UX_ERR_ARG;
    st = ux_law_check(law);
    if (st != UX_OK)
        return st;
    switch (law->kind) {
        case UX_LAW_GAUSSIAN:
            /* Polar method: no trigonometric call, and each accepted pair gives two independent draws. */
            while (i < n) {
                double u, v, s, f;
                do {
                    u = 2.0 * ux_rng_uniform(rng) - 1.0;
                    v = 2.0 * ux_rng_uniform(rng) - 1.0;
                    s = u * u + v * v;
                } while (s >= 1.0 || s == 0.0);
                f = sqrt(-2.0 * log(s) / s);
                out[i++] = law->a + law->b * (ux_real)(u * f);
                if (i < n)
                    out[i++] = law->a + law->b * (ux_real)(v * f);
            }
            break;
        case UX_LAW_LAPLACE:
            for (i = 0; i < n; ++i) {
                double u = open_uniform(rng) - 0.5;
                double t = u < 0 ? log(1.0 + 2.0 * u) : -log(1.0 - 2.0 * u);
                out[i] = law->a + law->b * (ux_real)t;
            }
            break;
        default: /* UX_LAW_UNIFORM */
            for (i = 0; i < n; ++i)
                out[i] = law->a + (law->b - law->a) * (ux_real)ux_rng_uniform(rng);
            break;
    }
    return UX_OK;
}

/* ℓ(x) = m Σ_k ω_k log Σ_j ν_j g((z_k − loc_j)/scale_j)/scale_j: the kernel form of BayesLaplace. */
static ux_real kernel_loglik(const ux_observation *obs, ux_real x, const ux_evidence *ev, const ux_real *omega,
                             const ux_real *log_nu)
{
    ux_real loc[UX_MAX_ETA], scale[UX_MAX_ETA], log_scale[UX_MAX_ETA], a[UX_MAX_ETA], args[2], acc = 0;
    size_t J = obs->inner != NULL ? obs->inner->count : 1, j;
    unsigned k;

    args[0] = x;
    for (j = 0; j < J; ++j) {
        args[1] = obs->inner != NULL ? obs->inner->x[j] : 0;
        obs->kernel(args, obs->ctx, &loc[j], &scale[j]);
        log_scale[j] = log(scale[j]);
    }
    for (k = 0; k < ev->count; ++k) {
        for (j = 0; j < J; ++j)
            a[j] = log_nu[j] + ux_std_logpdf(obs->family, (ev->z[k] - loc[j]) / scale[j]) - log_scale[j];
        acc += omega[k] * ux_logsumexp(a, J);
    }
    return (ux_real)ev->m * acc;
}

ux_status uxb_is_posterior(const ux_observation *obs, const ux_law *prior, const ux_evidence *ev, size_t n, ux_rng *rng,
                           ux_real *x, ux_real *w)
{
    ux_real omega[UX_MAX_ETA], log_nu[UX_MAX_ETA], top = -(ux_real)INFINITY, total = 0;
    size_t J, i, j;
    ux_status st;

    if (obs == NULL || obs->form != UX_LIK_KERNEL || obs->kernel == NULL || n == 0 || x == NULL || w == NULL)
        return UX_ERR_ARG;
    if (obs->inner != NULL && (obs->inner->count < 1 || obs->inner->count > UX_MAX_ETA))
        return UX_ERR_ARG;
    st = ux_evidence_weights(ev, omega);
    if (st != UX_OK)
        return st;
    st = uxb_draw_n(prior, rng, x, n);
    if (st != UX_OK)
        return st;
    J = obs->inner != NULL ? obs->inner->count : 1;
    for (j = 0; j < J; ++j)
        log_nu[j] = obs->inner != NULL ? log(obs->inner->w[j]) : 0;
    for (i = 0; i < n; ++i) {
        ux_real l = kernel_loglik(obs, x[i], ev, omega, log_nu);
        w[i] = isnan(l) ? -(ux_real)INFINITY : l; /* log-weights until normalised */
        if (w[i] > top)
            top = w[i];
    }
    if (!isfinite(top)) {
        /* No particle explains the evidence (or one weight is infinite): keep the prior's draws. */
        for (i = 0; i < n; ++i)
            w[i] = (ux_real)1.0 / (ux_real)n;
        return UX_FALLBACK;
    }
    for (i = 0; i < n; ++i) {
        w[i] = exp(w[i] - top);
        total += w[i];
    }
    for (i = 0; i < n; ++i)
        w[i] /= total;
    return UX_OK;
}

ux_status uxb_is_repeat(const ux_observation *obs, const ux_law *prior, const ux_evidence *ev, size_t n, ux_rng *rng,
                        ux_real *x, ux_real *w, unsigned reps)
{
    ux_status st = UX_ERR_ARG;
    unsigned r;
    for (r = 0; r < reps; ++r) {
        st = uxb_is_posterior(obs, prior, ev, n, rng, x, w);
        if (st < 0)
            break;
    }
    return st;
}

ux_status uxb_bayes_repeat(ux_value *out, const ux_observation *obs, const ux_law *prior, const ux_evidence *ev,
                           unsigned eta, unsigned reps, ux_sources *src, ux_workspace *ws)
{
    ux_status st = UX_ERR_ARG;
    ux_value p;
    unsigned r;
    for (r = 0; r < reps; ++r) {
        st = ux_quantize(prior, eta, &p, src);
        if (st < 0)
            break;
        st = ux_bayes_laplace_value(out, obs, &p, ev, src, ws);
        if (st < 0)
            break;
    }
    return st;
}

ux_status uxb_quantize_repeat(ux_value *out, const ux_law *prior, unsigned eta, unsigned reps, ux_sources *src)
{
    ux_status st = UX_ERR_ARG;
    unsigned r;
    for (r = 0; r < reps; ++r) {
        st = ux_quantize(prior, eta, out, src);
        if (st < 0)
            break;
    }
    return st;
}

size_t uxb_observation_sizeof(void) { return sizeof(uxb_observation); }
