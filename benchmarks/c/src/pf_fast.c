/*
 * The bootstrap particle filter as a tuned loop per system (uxbench/pf_fast.h): what a careful engineer
 * would write for one model, to time the ux filter against the sampling baseline at its fastest.
 *
 * One step after the first is one pass over the particles — systematic resampling on the unnormalised
 * weights, the ancestor propagated with one ziggurat normal, its log-weight (constant terms dropped) —
 * then one pass of exp(log-weight − max) accumulating the weight sums and the shifted moments.
 */
#include <math.h>
#include <string.h>

#include "uxbench/fast_random.h"
#include "uxbench/pf_fast.h"
#include "uxbench/sampling.h"

enum system { SYS_SV, SYS_GSS, SYS_CUBIC, SYS_LG, SYS_NONE };

static enum system system_of(const ux_model *model)
{
    static const char *const names[SYS_NONE] = {"sv", "gss", "cubic", "lg"};
    return (enum system)uxb_name_index(model != NULL ? model->name : NULL, names, SYS_NONE);
}

int uxb_pf_fast_supports(const ux_model *model) { return system_of(model) != SYS_NONE; }

/* -- the systems, inlined ---------------------------------------------------------------------------------- */
typedef struct {
    double p[UX_MODEL_MAX_PARAMS];
    double a, b, c, d; /* per-system constants: see setup */
    double sigma; /* process noise std */
    double log_norm; /* the log-likelihood's dropped constant terms */
} sys_consts;

/* Transition with the noise added last, as the model files write it. `drive` is gss's 8cos(1.2k). */
static inline __attribute__((always_inline)) double propagate(enum system s, const sys_consts *m, double x,
                                                              double drive, ux_rng *r)
{
    double w = m->sigma * uxb_fast_normal(r);
    switch (s) {
        case SYS_SV: /* φx + c(1 − φ) + w */
            return m->a * x + m->b + w;
        case SYS_GSS: /* x/2 + 25x/(1 + x²) + 8cos(1.2k) + w */
            return x / 2.0 + 25.0 * x / (1.0 + x * x) + drive + w;
        case SYS_CUBIC: { /* x + αd − αβd³ + w, d = c − x */
            double d = m->c - x;
            return x + m->a * d - m->b * d * d * d + w;
        }
        default: /* lg: ax + w */
            return m->a * x + w;
    }
}

/* log p(z | x) without its constant terms (m->log_norm); cubic draws its inner noise m once here. */
static inline __attribute__((always_inline)) double log_weight(enum system s, const sys_consts *m, double x, double z,
                                                               double zz, ux_rng *r)
{
    switch (s) {
        case SYS_SV: /* N(z; 0, σ_ε² e^x): −x/2 − z² e^{−x} / (2σ_ε²); zz = z² / (2σ_ε²) */
            return -0.5 * x - zz * exp(-x);
        case SYS_GSS: { /* N(z; x²/20, σ_ν²); m->a = 1 / (2σ_ν²) */
            double e = z - x * x / 20.0;
            return -m->d * e * e;
        }
        case SYS_CUBIC: { /* Laplace(z; g, s), g = e^{−x}(1 + m), s = √(σ_base² + max(g, 0)) */
            double g = exp(-x) * (1.0 + m->p[4] * uxb_fast_normal(r));
            double s2 = m->d + ((g > 0 || isnan(g)) ? g : 0.0);
            return -fabs(z - g) / sqrt(s2) - 0.5 * log(s2);
        }
        default: { /* N(z; x, r²) */
            double e = z - x;
            return -m->d * e * e;
        }
    }
}

static void setup_consts(enum system s, const ux_real *params, sys_consts *m)
{
    int i;
    memset(m, 0, sizeof *m);
    for (i = 0; i < UX_MODEL_MAX_PARAMS; ++i)
        m->p[i] = (double)params[i];
    switch (s) {
        case SYS_SV:
            m->a = m->p[0];
            m->b = m->p[1] * (1.0 - m->p[0]);
            m->sigma = m->p[2];
            m->d = 1.0 / (2.0 * m->p[3] * m->p[3]);
            m->log_norm = -log(m->p[3]) - 0.5 * log(2.0 * 3.14159265358979323846);
            break;
        case SYS_GSS:
            m->sigma = m->p[0];
            m->d = 1.0 / (2.0 * m->p[1] * m->p[1]);
            m->log_norm = -log(m->p[1]) - 0.5 * log(2.0 * 3.14159265358979323846);
            break;
        case SYS_CUBIC:
            m->a = m->p[0];
            m->b = m->p[0] * m->p[1];
            m->c = m->p[2];
            m->sigma = m->p[3];
            m->d = m->p[5] * m->p[5];
            m->log_norm = -log(2.0);
            break;
        default:
            m->a = m->p[0];
            m->sigma = m->p[1];
            m->d = 1.0 / (2.0 * m->p[2] * m->p[2]);
            m->log_norm = -log(m->p[2]) - 0.5 * log(2.0 * 3.14159265358979323846);
            break;
    }
}

size_t uxb_pf_fast_workspace_bytes(size_t n) { return 4u * UX_WS_ROUND(n * sizeof(double)); }

/* The weighted set's summaries from the log-weights lw (overwritten by the unnormalised weights); returns the
 * weights' sum (0 after a fallback, whose equal weights are then in lw). */
static double finish_step(const double *x, double *lw, size_t n, double top, double log_norm, size_t t,
                          const uxb_pf_output *out)
{
    double sum = 0, s1 = 0, s2 = 0, sq = 0, ref = x[0], mean, var, log_evidence;
    int fell_back = !isfinite(top);
    size_t i;
    if (!fell_back) {
        for (i = 0; i < n; ++i) {
            double w = lw[i] > -INFINITY ? exp(lw[i] - top) : 0.0; /* NaN > −∞ is false: weight 0 */
            double d = w > 0 ? x[i] - ref : 0.0;
            lw[i] = w;
            sum += w;
            s1 += w * d;
            s2 += w * d * d;
            sq += w * w;
        }
        log_evidence = top + log(sum / (double)n) + log_norm;
    } else { /* equal weights on the finite positions only: others would poison the moments */
        size_t live = 0;
        for (i = 0; i < n; ++i)
            live += isfinite(x[i]) ? 1u : 0u;
        for (i = 0; i < n; ++i) {
            double w = isfinite(x[i]) && live > 0 ? 1.0 : 0.0;
            double d = w > 0 ? x[i] - ref : 0.0;
            lw[i] = w;
            sum += w;
            s1 += w * d;
            s2 += w * d * d;
            sq += w * w;
        }
        if (!isfinite(ref)) { /* the moments need a finite reference */
            for (i = 0; i < n && !isfinite(x[i]); ++i) {
            }
            ref = i < n ? x[i] : 0.0;
            s1 = s2 = 0;
            for (i = 0; i < n; ++i)
                if (lw[i] > 0) {
                    s1 += x[i] - ref;
                    s2 += (x[i] - ref) * (x[i] - ref);
                }
        }
        if (sum == 0) { /* nothing finite: the old filter's equal weights over all */
            for (i = 0; i < n; ++i)
                lw[i] = 1.0;
            sum = (double)n;
            sq = (double)n;
        }
        log_evidence = top;
    }
    mean = s1 / sum;
    var = s2 / sum - mean * mean;
    if (var < 0)
        var = 0;
    if (out->mean != NULL)
        out->mean[t] = ref + mean;
    if (out->var != NULL)
        out->var[t] = var;
    if (out->ess != NULL)
        out->ess[t] = sum * sum / sq;
    if (out->fallback != NULL)
        out->fallback[t] = (uint8_t)fell_back;
    if (out->log_evidence != NULL)
        out->log_evidence[t] = log_evidence;
    if (out->x != NULL)
        memcpy(out->x + t * n, x, n * sizeof(double));
    if (out->w != NULL)
        for (i = 0; i < n; ++i)
            out->w[t * n + i] = lw[i] / sum;
    return sum;
}

/* The whole run for one system; called with a constant `s`, so each system gets its own loop. */
static inline __attribute__((always_inline)) void run_system(enum system s, const sys_consts *m, ux_rng *r,
                                                             const ux_law *prior, uxb_gen *prior_gen, const uint32_t *k,
                                                             const double *z, size_t T, size_t n, double *x,
                                                             double *moved, double *w, double *lws,
                                                             const uxb_pf_output *out)
{
    size_t t, i, j;
    double top = -INFINITY, sum;
    for (i = 0; i < n; ++i) {
        double lw;
        x[i] = prior->kind == UX_LAW_GAUSSIAN ? prior->a + prior->b * uxb_fast_normal(r)
                                              : uxb_sample_law(prior, prior_gen);
        lw = log_weight(s, m, x[i], z[0], z[0] * z[0] * m->d, r);
        w[i] = lw;
        top = lw > top ? lw : top;
    }
    sum = finish_step(x, w, n, top, m->log_norm, 0, out);
    for (t = 1; t < T; ++t) {
        double step = sum / (double)n, point = uxb_fast_uniform(r) * step, cum = w[0], zt = z[t], zz = zt * zt * m->d;
        double drive = s == SYS_GSS ? 8.0 * cos(1.2 * (double)k[t]) : 0.0, *swap;
        /* the new log-weights go to lws: w is read ahead of j (an ancestor index may trail j) */
        top = -INFINITY;
        for (i = 0, j = 0; j < n; ++j, point += step) {
            double xn, lw;
            while (cum <= point && i + 1 < n)
                cum += w[++i];
            xn = propagate(s, m, x[i], drive, r);
            lw = log_weight(s, m, xn, zt, zz, r);
            moved[j] = xn;
            lws[j] = lw;
            top = lw > top ? lw : top;
        }
        swap = x;
        x = moved;
        moved = swap;
        swap = w;
        w = lws;
        lws = swap;
        sum = finish_step(x, w, n, top, m->log_norm, t, out);
    }
}

ux_status uxb_pf_fast_run(const uxb_pf_config *cfg, const uint32_t *k, const double *u, const double *z, size_t T,
                          const uxb_pf_output *out, ux_workspace ws)
{
    ux_real params[UX_MODEL_MAX_PARAMS] = {0};
    ux_model_noises noises;
    ux_law prior;
    sys_consts m;
    ux_rng r;
    uxb_gen prior_gen;
    enum system s;
    double *x, *moved, *w, *lws;
    size_t n;

    (void)u;
    if (cfg == NULL || out == NULL || k == NULL || u == NULL || z == NULL || cfg->model == NULL || cfg->n == 0 ||
        cfg->model->n_params > UX_MODEL_MAX_PARAMS)
        return UX_ERR_ARG;
    s = system_of(cfg->model);
    if (s == SYS_NONE)
        return UX_ERR_ARG;
    if (ux_model_params(cfg->model, cfg->params, params) != UX_OK)
        return UX_ERR_DOMAIN;
    cfg->model->code->noises(params, &noises);
    prior = cfg->prior != NULL ? *cfg->prior : cfg->model->prior;
    if (!uxb_can_sample(&prior))
        return UX_ERR_ARG;
    n = cfg->n;
    if (ws.mem == NULL || ((uintptr_t)ws.mem & 7u) != 0 || ws.bytes < uxb_pf_fast_workspace_bytes(n))
        return UX_ERR_WORKSPACE;
    if (T == 0)
        return UX_OK;
    x = (double *)ws.mem;
    moved = x + UX_WS_ROUND(n * sizeof(double)) / sizeof(double);
    w = moved + UX_WS_ROUND(n * sizeof(double)) / sizeof(double);
    lws = w + UX_WS_ROUND(n * sizeof(double)) / sizeof(double);
    uxb_zig_init();
    setup_consts(s, params, &m);
    ux_rng_seed(&r, cfg->seed);
    uxb_gen_seed(&prior_gen, cfg->seed ^ 0x9e3779b97f4a7c15u);
    switch (s) {
        case SYS_SV:
            run_system(SYS_SV, &m, &r, &prior, &prior_gen, k, z, T, n, x, moved, w, lws, out);
            break;
        case SYS_GSS:
            run_system(SYS_GSS, &m, &r, &prior, &prior_gen, k, z, T, n, x, moved, w, lws, out);
            break;
        case SYS_CUBIC:
            run_system(SYS_CUBIC, &m, &r, &prior, &prior_gen, k, z, T, n, x, moved, w, lws, out);
            break;
        default:
            run_system(SYS_LG, &m, &r, &prior, &prior_gen, k, z, T, n, x, moved, w, lws, out);
            break;
    }
    return UX_OK;
}
