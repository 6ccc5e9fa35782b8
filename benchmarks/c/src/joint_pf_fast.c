/*
 * The joint bootstrap particle filter as a tuned loop per system (uxbench/joint_pf_fast.h): what a careful
 * engineer would write for one vector-state model.
 *
 * One step after the first is one pass over the particles — systematic resampling on the unnormalised
 * weights, the ancestor propagated with two ziggurat normals (reentry: three), its Gaussian log-weight
 * without constant terms — then one pass of exp(log-weight − max) accumulating the weight sums and the
 * shifted first and second moments. The per-step constants (the WNA factor, the observer's velocity,
 * reentry's noise scales) are the model's own prepare's.
 */
#include <math.h>
#include <string.h>

#include "uxbench/fast_random.h"
#include "uxbench/joint_pf_fast.h"
#include "uxbench/sampling.h"

enum jsystem { J_PENDULUM, J_CVRANGE, J_BEARINGS, J_REENTRY, J_NONE };

static enum jsystem system_of(const ux_joint_model *model)
{
    static const char *const names[J_NONE] = {"pendulum", "cvrange", "bearings", "reentry"};
    return (enum jsystem)uxb_name_index(model != NULL ? model->name : NULL, names, J_NONE);
}

int uxb_joint_pf_fast_supports(const ux_joint_model *model) { return system_of(model) != J_NONE; }

size_t uxb_joint_pf_fast_workspace_bytes(size_t n, unsigned dim)
{
    return 2u * UX_WS_ROUND(n * dim * sizeof(double)) + 2u * UX_WS_ROUND(n * sizeof(double));
}

/* One step's constants: the model's parameters and its prepare's step values, as doubles. */
typedef struct {
    double p[UX_MODEL_MAX_PARAMS], step[UX_MODEL_STEP_CONSTANTS];
    double inv2r2; /* 1 / (2 r²): the Gaussian log-weight's factor */
} step_consts;

static void consts_at(const ux_joint_model *model, const ux_real *params, uint32_t k, double u, step_consts *c)
{
    ux_model_ctx ctx;
    unsigned i;
    ux_joint_model_context(model, params, k, (ux_real)u, &ctx);
    for (i = 0; i < UX_MODEL_MAX_PARAMS; ++i)
        c->p[i] = (double)ctx.params[i];
    for (i = 0; i < UX_MODEL_STEP_CONSTANTS; ++i)
        c->step[i] = (double)ctx.step[i];
    c->inv2r2 = 1.0 / (2.0 * c->p[model->n_params - 1] * c->p[model->n_params - 1]); /* r is last in each */
}

/* x's successor with fresh noise, in place into y. */
static inline __attribute__((always_inline)) void propagate(enum jsystem s, const step_consts *c, const double *x,
                                                            double *y, ux_rng *r)
{
    double w0 = uxb_fast_normal(r), w1 = uxb_fast_normal(r);
    switch (s) {
        case J_PENDULUM: /* θ + ω·dt + L00·w0, ω − g·sin θ·dt + (L10·w0 + L11·w1) */
            y[0] = x[0] + x[1] * c->p[0] + c->step[0] * w0;
            y[1] = x[1] - c->p[1] * sin(x[0]) * c->p[0] + (c->step[1] * w0 + c->step[2] * w1);
            break;
        case J_CVRANGE: /* p + v·dt + L00·w0, v + (L10·w0 + L11·w1) */
            y[0] = x[0] + x[1] * c->p[0] + c->step[0] * w0;
            y[1] = x[1] + (c->step[1] * w0 + c->step[2] * w1);
            break;
        case J_BEARINGS: /* x + vx·dt, y + (vy − vo)·dt, v + s·w */
            y[0] = x[0] + x[2] * c->p[0];
            y[1] = x[1] + (x[3] - c->step[1]) * c->p[0];
            y[2] = x[2] + c->step[0] * w0;
            y[3] = x[3] + c->step[0] * w1;
            break;
        default: { /* h − v·dt + s_h·w0, v·exp(−dt·v·exp(b − h/hs)) + s_v·w1, b + s_b·w2 */
            double drag = exp(x[2] - x[0] / c->p[1]);
            y[0] = (x[0] - x[1] * c->p[0]) + c->step[0] * w0;
            y[1] = x[1] * exp(-(c->p[0] * x[1] * drag)) + c->step[1] * w1;
            y[2] = x[2] + c->step[2] * uxb_fast_normal(r);
            break;
        }
    }
}

/* log p(z | x) without its constant terms. */
static inline __attribute__((always_inline)) double log_weight(enum jsystem s, const step_consts *c, const double *x,
                                                               double z)
{
    double e;
    switch (s) {
        case J_PENDULUM:
            e = z - sin(x[0]);
            break;
        case J_CVRANGE:
            e = z - sqrt(x[0] * x[0] + c->p[2] * c->p[2]);
            break;
        case J_BEARINGS:
            e = z - x[1] / x[0];
            break;
        default:
            e = z - sqrt(c->p[2] * c->p[2] + (x[0] - c->p[3]) * (x[0] - c->p[3]));
            break;
    }
    e = -c->inv2r2 * e * e;
    return isnan(e) ? -INFINITY : e;
}

/* The step's outputs from the log-weights lw (overwritten by the unnormalised weights); returns their sum. */
static double finish_step(const double *x, double *lw, size_t n, unsigned d, double top, double log_norm, size_t t,
                          const uxb_joint_pf_output *out)
{
    double sum = 0, sq = 0, s1[UX_MAX_DIM] = {0}, s2[UX_MAX_DIM * UX_MAX_DIM] = {0}, ref[UX_MAX_DIM];
    int fell_back = !isfinite(top);
    size_t i;
    unsigned a, b;
    memcpy(ref, x, d * sizeof(double));
    for (i = 0; i < n; ++i) {
        double w = fell_back ? 1.0 : lw[i] > -INFINITY ? exp(lw[i] - top) : 0.0, dx[UX_MAX_DIM];
        lw[i] = w;
        sum += w;
        sq += w * w;
        for (a = 0; a < d; ++a) {
            dx[a] = x[i * d + a] - ref[a];
            s1[a] += w * dx[a];
        }
        for (a = 0; a < d; ++a)
            for (b = 0; b <= a; ++b)
                s2[a * d + b] += w * dx[a] * dx[b];
    }
    for (a = 0; a < d; ++a) {
        double m = s1[a] / sum;
        if (out->mean != NULL)
            out->mean[t * d + a] = ref[a] + m;
        for (b = 0; b <= a && out->cov != NULL; ++b) {
            double v = s2[a * d + b] / sum - m * (s1[b] / sum);
            out->cov[t * d * d + a * d + b] = out->cov[t * d * d + b * d + a] = v;
        }
    }
    if (out->ess != NULL)
        out->ess[t] = sum * sum / sq;
    if (out->fallback != NULL)
        out->fallback[t] = (uint8_t)fell_back;
    if (out->log_evidence != NULL)
        out->log_evidence[t] = fell_back ? top : top + log(sum / (double)n) + log_norm;
    if (out->x != NULL)
        memcpy(out->x + t * n * d, x, n * d * sizeof(double));
    if (out->w != NULL)
        for (i = 0; i < n; ++i)
            out->w[t * n + i] = lw[i] / sum;
    return sum;
}

typedef struct {
    const ux_joint_model *model;
    const ux_real *params;
    const ux_law *prior;
    const uint32_t *k;
    const double *u, *z;
    size_t T, n;
} run_args;

/* The whole run for one system; called with a constant `s`, so each system gets its own loop. */
static inline __attribute__((always_inline)) void run_system(enum jsystem s, const run_args *a, ux_rng *r, double *x,
                                                             double *moved, double *w, double *lws,
                                                             const uxb_joint_pf_output *out)
{
    unsigned d = a->model->dim, c;
    size_t n = a->n, t, i, j;
    step_consts sc;
    double top = -INFINITY, sum, log_norm;
    consts_at(a->model, a->params, a->k[0], a->u[0], &sc);
    log_norm = -0.5 * log(2.0 * 3.14159265358979323846) + 0.5 * log(2.0 * sc.inv2r2);
    for (i = 0; i < n; ++i) {
        for (c = 0; c < d; ++c)
            x[i * d + c] = (double)a->prior[c].a + (double)a->prior[c].b * uxb_fast_normal(r);
        w[i] = log_weight(s, &sc, x + i * d, a->z[0]);
        top = w[i] > top ? w[i] : top;
    }
    sum = finish_step(x, w, n, d, top, log_norm, 0, out);
    for (t = 1; t < a->T; ++t) {
        double step = sum / (double)n, point = uxb_fast_uniform(r) * step, cum = w[0], *swap;
        consts_at(a->model, a->params, a->k[t], a->u[t], &sc);
        top = -INFINITY;
        for (i = 0, j = 0; j < n; ++j, point += step) { /* w is read ahead of j: the new log-weights go to lws */
            while (cum <= point && i + 1 < n)
                cum += w[++i];
            propagate(s, &sc, x + i * d, moved + j * d, r);
            lws[j] = log_weight(s, &sc, moved + j * d, a->z[t]);
            top = lws[j] > top ? lws[j] : top;
        }
        swap = x;
        x = moved;
        moved = swap;
        swap = w;
        w = lws;
        lws = swap;
        sum = finish_step(x, w, n, d, top, log_norm, t, out);
    }
}

ux_status uxb_joint_pf_fast_run(const uxb_joint_pf_config *cfg, const uint32_t *k, const double *u, const double *z,
                                size_t T, const uxb_joint_pf_output *out, ux_workspace ws)
{
    ux_real params[UX_MODEL_MAX_PARAMS] = {0};
    const ux_law *prior;
    run_args a;
    ux_rng r;
    enum jsystem s;
    double *x, *moved, *w, *lws;
    unsigned c;

    if (cfg == NULL || out == NULL || k == NULL || u == NULL || z == NULL || cfg->model == NULL || cfg->n == 0 ||
        cfg->model->n_params > UX_MODEL_MAX_PARAMS)
        return UX_ERR_ARG;
    s = system_of(cfg->model);
    prior = cfg->prior != NULL ? cfg->prior : cfg->model->prior;
    for (c = 0; s != J_NONE && c < cfg->model->dim; ++c)
        if (prior[c].kind != UX_LAW_GAUSSIAN)
            s = J_NONE;
    if (s == J_NONE)
        return UX_ERR_ARG;
    if (ux_joint_model_params(cfg->model, cfg->params, params) != UX_OK)
        return UX_ERR_DOMAIN;
    if (ws.mem == NULL || ((uintptr_t)ws.mem & 7u) != 0 ||
        ws.bytes < uxb_joint_pf_fast_workspace_bytes(cfg->n, cfg->model->dim))
        return UX_ERR_WORKSPACE;
    if (T == 0)
        return UX_OK;
    x = (double *)ws.mem;
    moved = x + UX_WS_ROUND(cfg->n * cfg->model->dim * sizeof(double)) / sizeof(double);
    w = moved + UX_WS_ROUND(cfg->n * cfg->model->dim * sizeof(double)) / sizeof(double);
    lws = w + UX_WS_ROUND(cfg->n * sizeof(double)) / sizeof(double);
    a = (run_args){cfg->model, params, prior, k, u, z, T, cfg->n};
    uxb_zig_init();
    ux_rng_seed(&r, cfg->seed);
    switch (s) {
        case J_PENDULUM:
            run_system(J_PENDULUM, &a, &r, x, moved, w, lws, out);
            break;
        case J_CVRANGE:
            run_system(J_CVRANGE, &a, &r, x, moved, w, lws, out);
            break;
        case J_BEARINGS:
            run_system(J_BEARINGS, &a, &r, x, moved, w, lws, out);
            break;
        default:
            run_system(J_REENTRY, &a, &r, x, moved, w, lws, out);
            break;
    }
    return UX_OK;
}
