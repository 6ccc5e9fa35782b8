/*
 * The BayesLaplace filter over a vector state (docs/semantics.md, "Joint filter"). The workspace holds
 * the staged prediction (η² rows and weights) at its start and scratch after it. A predict writes its
 * points straight into the staged area (no second η² copy: RAM is what a small board lacks), so a failed
 * predict drops the prediction it was building; the belief it started from is kept.
 */
#include "internal.h"
#include "ux/joint_filter.h"
#include "ux/ttr.h"

#include <string.h>

static ux_real *staged_x(const ux_joint_filter *f) { return (ux_real *)f->ws.mem; }
static ux_real *staged_w(const ux_joint_filter *f)
{
    return (ux_real *)(void *)((unsigned char *)f->ws.mem + UX_WS_REALS((size_t)f->eta * f->eta * f->model->dim));
}
static ux_workspace scratch(const ux_joint_filter *f)
{
    size_t pred = (size_t)f->eta * f->eta, skip = UX_WS_REALS(pred * f->model->dim) + UX_WS_REALS(pred);
    ux_workspace w;
    w.mem = (unsigned char *)f->ws.mem + skip;
    w.bytes = f->ws_used - skip;
    return w;
}

size_t ux_joint_filter_workspace_bytes(const ux_joint_model *model, unsigned eta)
{
    if (model == NULL || ux_log2_eta(eta) < 0 || model->dim < 1 || model->dim > UX_MAX_DIM)
        return 0;
    return UX_JOINT_FILTER_WORKSPACE_BYTES(eta, model->dim);
}

/*
 * The points of `dim` independent location–scale laws, each quantized at `eta` (ux_quantize_scaled), as
 * their outer product (the first law varying slowest, weights multiplied left to right): into x (rows of
 * dim) and w, at most `cap` points; the laws' atoms are kept in `tmp` (2·dim·eta reals) meanwhile. The
 * number of points, or 0 when a law has no location–scale form or is invalid, or the product exceeds cap.
 * Nothing here lives on the stack: a board's worst-case stack is what this file adds to it.
 */
static size_t product_points(const ux_law *laws, unsigned dim, unsigned eta, ux_real *x, ux_real *w, size_t cap,
                             ux_real *tmp)
{
    size_t count[UX_MAX_DIM], idx[UX_MAX_DIM], points = 1, p;
    unsigned k;
    for (k = 0; k < dim; ++k) {
        count[k] = ux_quantize_scaled(&laws[k], eta, tmp + 2u * k * eta, tmp + (2u * k + 1u) * eta);
        if (count[k] == 0)
            return 0;
        points *= count[k];
        idx[k] = 0;
    }
    if (points > cap)
        return 0;
    for (p = 0; p < points; ++p) {
        ux_real wp = tmp[eta + idx[0]];
        for (k = 1; k < dim; ++k)
            wp = wp * tmp[(2u * k + 1u) * eta + idx[k]]; /* left to right */
        for (k = 0; k < dim; ++k)
            x[p * dim + k] = tmp[2u * k * eta + idx[k]];
        w[p] = wp;
        for (k = dim; k-- > 0;) {
            if (++idx[k] < count[k])
                break;
            idx[k] = 0;
        }
    }
    return points;
}

/* The points of `in`'s atoms times `law`'s eta-atom quantization, one component more: the atom varying
 * slowest, weights multiplied left to right, into x (rows of in->dim + 1) and w; the law's atoms are kept in
 * `tmp` (2·eta reals). The number of points, in->count·eta ≤ η². */
static size_t append_component(const ux_joint *in, const ux_law *law, unsigned eta, ux_real *x, ux_real *w,
                               ux_real *tmp)
{
    size_t n = ux_quantize_scaled(law, eta, tmp, tmp + eta), p = 0, i, j;
    unsigned d = in->dim, k;
    for (i = 0; i < in->count; ++i)
        for (j = 0; j < n; ++j, ++p) {
            for (k = 0; k < d; ++k)
                x[p * (d + 1u) + k] = in->x[i * d + k];
            x[p * (d + 1u) + d] = tmp[j];
            w[p] = in->w[i] * tmp[eta + j];
        }
    return p;
}

/* The joint value of independent location–scale laws, each quantized at eta: the first two laws' product
 * reduced to eta, then each further law's product with it reduced to eta again (so no product exceeds η²
 * points, whatever d); one law is its quantized value as it is (a reduction would renormalise its weights,
 * changing their last bits). The points are built in the staged area and reduced in scratch, both free at
 * init. UX_ERR_DOMAIN for a law without a location–scale form or out of domain. */
static ux_status independent_laws(ux_joint_filter *f, ux_joint *out, const ux_law *laws, unsigned dim)
{
    ux_workspace rest = scratch(f);
    ux_real *x = staged_x(f), *w = staged_w(f), *tmp = (ux_real *)rest.mem;
    size_t cap = (size_t)f->eta * f->eta, points;
    unsigned first = dim < 2u ? dim : 2u, k;
    ux_status st;
    for (k = 0; k < dim; ++k)
        if (ux_quantize_scaled(&laws[k], f->eta, tmp, tmp + f->eta) == 0)
            return UX_ERR_DOMAIN;
    if ((points = product_points(laws, first, f->eta, x, w, cap, tmp)) == 0)
        return UX_ERR_WORKSPACE;
    if (dim == 1) {
        memcpy(out->x, x, points * sizeof(ux_real));
        memcpy(out->w, w, points * sizeof(ux_real));
        out->count = (uint32_t)points;
        out->eta = f->eta;
        out->dim = 1;
        out->sources = ux_sources_fresh(&f->sources);
        return UX_OK;
    }
    st = ux_joint_reduce(out, x, w, points, first, f->eta, ux_sources_fresh(&f->sources), &rest);
    for (k = first; k < dim && st == UX_OK; ++k) {
        points = append_component(out, &laws[k], f->eta, x, w, (ux_real *)rest.mem);
        st = ux_joint_reduce(out, x, w, points, k + 1u, f->eta, ux_sources_fresh(&f->sources), &rest);
    }
    return st;
}

ux_status ux_joint_filter_init(ux_joint_filter *f, const ux_joint_filter_config *cfg, ux_workspace ws)
{
    const ux_joint_model *model;
    ux_law process[UX_JOINT_MAX_NOISES];
    ux_arena arena;
    size_t need;
    ux_status st;

    if (f == NULL)
        return UX_ERR_ARG;
    memset(f, 0, sizeof *f);
    if (cfg == NULL || (model = cfg->model) == NULL || model->n_params > UX_MODEL_MAX_PARAMS || model->dim < 1 ||
        model->dim > UX_MAX_DIM || model->code->dim_noise < 1 || model->code->dim_noise > model->dim ||
        model->code->dim_obs < 1 || model->code->dim_obs > UX_JOINT_MAX_OBS)
        return UX_ERR_ARG;
    if (ux_log2_eta(cfg->eta) < 0 || (cfg->mode != UX_MODE_REFINED && cfg->mode != UX_MODE_PAPER))
        return UX_ERR_ARG;
    if (ux_joint_model_params(model, cfg->params, f->params) != UX_OK)
        return UX_ERR_DOMAIN;
    need = ux_joint_filter_workspace_bytes(model, cfg->eta);
    if (ux_arena_open(&arena, &ws) != UX_OK || ws.bytes < need)
        return UX_ERR_WORKSPACE;

    /* The products are built and reduced in the workspace, which is free until the first predict; the
     * staged area and scratch are found through f, so the layout is set first. */
    ux_sources_init(&f->sources);
    model->code->noises(f->params, process);
    f->model = model;
    f->eta = cfg->eta;
    f->ws = ws;
    f->ws_used = need;
    memcpy(f->prior, cfg->prior != NULL ? cfg->prior : model->prior, model->dim * sizeof(ux_law));
    st = independent_laws(f, &f->posterior, f->prior, model->dim);
    if (st == UX_OK)
        st = independent_laws(f, &f->process, process, model->code->dim_noise);
    if (st != UX_OK) {
        memset(f, 0, sizeof *f);
        return st;
    }
    f->fresh = 1;
    f->mode = cfg->mode;
    f->last = UX_OK;
    ux_tests_init(&f->tests);
    return UX_OK;
}

/* Reduce the staged prediction to η atoms into the posterior (a fresh source); nothing stays staged. */
static ux_status reduce_staged(ux_joint_filter *f)
{
    ux_workspace rest = scratch(f);
    ux_status st = ux_joint_reduce(&f->posterior, staged_x(f), staged_w(f), f->staged, f->model->dim, f->eta,
                                   ux_sources_fresh(&f->sources), &rest);
    f->staged = 0;
    return st;
}

ux_status ux_joint_filter_predict(ux_joint_filter *f, uint32_t k, double u)
{
    const ux_joint *b, *w;
    ux_real *x, *pw;
    ux_model_ctx ctx;
    unsigned dim, c;
    size_t i, j, p = 0;
    ux_status st;

    if (f == NULL || f->model == NULL)
        return UX_ERR_ARG;
    if (f->staged > 0 && (st = reduce_staged(f)) != UX_OK)
        return st;
    dim = f->model->dim;
    b = &f->posterior;
    w = &f->process;
    x = staged_x(f);
    pw = staged_w(f);
    ux_joint_model_context(f->model, f->params, k, (ux_real)u, &ctx);
    for (i = 0; i < b->count; ++i) {
        for (j = 0; j < w->count; ++j, ++p) {
            f->model->code->transition(x + p * dim, b->x + i * dim, w->x + j * w->dim, &ctx);
            for (c = 0; c < dim; ++c)
                if (!ux_finite(x[p * dim + c]))
                    return UX_ERR_DOMAIN; /* nothing staged yet: the belief is unchanged */
            pw[p] = b->w[i] * w->w[j];
        }
    }
    if (f->mode == UX_MODE_PAPER) { /* reduced to η in place, as ux_joint_reduce would (no ux_joint on the stack) */
        ux_workspace rest = scratch(f);
        if ((st = ux_joint_compact(x, pw, &p, dim)) != UX_OK ||
            (st = ux_joint_ttr(x, pw, p, dim, (unsigned)ux_log2_eta(f->eta), &p, &rest)) != UX_OK)
            return st;
        ux_normalise(pw, p);
    }
    f->staged = p;
    return UX_OK;
}

/* The points the first update weighs in refined mode (docs/semantics.md, "Joint filter"), written into the
 * staged arrays: at most η² of them, as every later update weighs the η² points of a prediction. d = 1:
 * the prior law at min(η², UX_MAX_ETA) atoms (the scalar filter's rule); d = 2: the product of the
 * components' η-atom quantizations, η² points, unreduced. 0 (the η-atom joint prior serves) for d > 2 or
 * a component law without a location–scale form. */
static size_t first_prior(ux_joint_filter *f)
{
    ux_workspace rest = scratch(f);
    size_t cap = (size_t)f->eta * f->eta;
    if (f->model->dim == 1) {
        unsigned m = cap < UX_MAX_ETA ? (unsigned)cap : UX_MAX_ETA;
        return ux_quantize_scaled(&f->prior[0], m, staged_x(f), staged_w(f));
    }
    if (f->model->dim != 2)
        return 0;
    return product_points(f->prior, 2, f->eta, staged_x(f), staged_w(f), cap, (ux_real *)rest.mem);
}

/* The largest test ratio over the J evidence points against the predictive of the `count` points to be weighed
 * (docs/semantics.md, "Joint filter"): each point's kernel location, and the family's variance × its scale² per
 * component, in the gate's sums (gate_sums.c); NaN where the sums give none. */
static ux_real evidence_test_ratio(const ux_gate_sums *g, const ux_real *z, unsigned J, unsigned mo)
{
    ux_real worst = 0;
    unsigned k;
    for (k = 0; k < J; ++k) {
        ux_real r = ux_gate_ratio(g, z + k * mo, mo);
        if (!(r == r))
            return r;
        worst = r > worst ? r : worst;
    }
    return worst;
}

/* The gate's sums over the points to be weighed, in a kernel pass of their own: what a filter that gates
 * outliers must know before it weighs them (one that does not takes them from BayesLaplace's pass). */
static void evidence_gate_sums(const ux_joint_filter *f, const ux_model_ctx *ctx, size_t count, ux_gate_sums *g)
{
    ux_real loc[UX_JOINT_MAX_OBS], scale[UX_JOINT_MAX_OBS], S[UX_JOINT_MAX_OBS * UX_JOINT_MAX_OBS] = {0};
    ux_real fv = ux_family_variance(f->model->code->family);
    unsigned d = f->model->dim;
    size_t i;
    memset(g, 0, sizeof *g);
    for (i = 0; i < count; ++i) {
        f->model->code->kernel(staged_x(f) + i * d, ctx, loc, scale);
        ux_gate_add_kernel(g, staged_w(f)[i], loc, scale, fv, S, f->model->code->dim_obs);
    }
}

/* A step without observation: the staged prediction reduced to η atoms (a belief without one stays). */
static ux_status without_observation(ux_joint_filter *f, ux_status status)
{
    ux_status st;
    if (f->staged > 0 && (st = reduce_staged(f)) != UX_OK)
        return st;
    f->fresh = 0;
    f->last = status;
    f->log_evidence = 0;
    return status;
}

ux_status ux_joint_filter_update(ux_joint_filter *f, const double *z, const double *omega, unsigned J, unsigned m)
{
    ux_real zr[UX_MAX_ETA * UX_JOINT_MAX_OBS], wr[UX_MAX_ETA], log_evidence;
    ux_joint_observation obs;
    ux_joint_evidence ev;
    ux_model_ctx ctx;
    ux_workspace rest;
    ux_gate_sums gate;
    unsigned dim_obs, k;
    size_t count;
    ux_status st;
    int outlier, inconsistent;

    if (f == NULL || f->model == NULL)
        return UX_ERR_ARG;
    dim_obs = f->model->code->dim_obs;
    if (J == 0 && m == 0) {
        f->tests.ratio = (ux_real)NAN;
        return without_observation(f, UX_NO_EVIDENCE);
    }
    if (z == NULL || J < 1 || J > UX_MAX_ETA)
        return UX_ERR_ARG;
    if (m < 1)
        return UX_ERR_DOMAIN;
    /* Evidence converted and checked before the staged prior is touched: a refused update changes nothing. */
    for (k = 0; k < J * dim_obs; ++k)
        zr[k] = (ux_real)z[k];
    for (k = 0; k < J; ++k)
        wr[k] = omega != NULL ? (ux_real)omega[k] : (J == 1 ? UX_R(1.0) : UX_R(1.0) / (ux_real)J);
    for (k = 0; k < J * dim_obs; ++k)
        if (!ux_finite(zr[k]))
            return UX_ERR_DOMAIN;
    for (k = 0; k < J; ++k)
        if (!ux_finite(wr[k]) || !(wr[k] > 0))
            return UX_ERR_DOMAIN;
    count = f->staged;
    if (count == 0 && f->fresh && f->mode == UX_MODE_REFINED)
        count = first_prior(f);
    if (count == 0) {
        count = f->posterior.count;
        memcpy(staged_x(f), f->posterior.x, count * f->model->dim * sizeof(ux_real));
        memcpy(staged_w(f), f->posterior.w, count * sizeof(ux_real));
    }
    ux_joint_model_context(f->model, f->params, 0, 0, &ctx);
    obs.gate = NULL;
    if (f->tests.drop) { /* the test decides whether to weigh: a pass of its own first */
        evidence_gate_sums(f, &ctx, count, &gate);
        if (ux_tests_outlier(&f->tests, evidence_test_ratio(&gate, zr, J, dim_obs))) { /* not weighed */
            ux_tests_track(&f->tests, dim_obs);
            return without_observation(f, UX_OUTLIER);
        }
    } else {
        obs.gate = &gate; /* the sums from BayesLaplace's own kernel calls */
    }
    obs.ctx = &ctx;
    obs.family = f->model->code->family;
    obs.kernel = f->model->code->kernel;
    obs.dim_obs = dim_obs;
    ev.z = zr;
    ev.omega = wr;
    ev.count = J;
    ev.m = m;
    rest = scratch(f);
    st = ux_joint_bayes_laplace(&f->posterior, &obs, staged_x(f), staged_w(f), count, f->model->dim, &ev, f->eta,
                                ux_sources_fresh(&f->sources), &rest, &log_evidence);
    if (st < 0)
        return st; /* the evidence was checked above and init sized the workspace: not reached in practice */
    /* the ratio from BayesLaplace's pass, or the one the dropping filter's own pass recorded */
    outlier =
        ux_tests_outlier(&f->tests, obs.gate != NULL ? evidence_test_ratio(&gate, zr, J, dim_obs) : f->tests.ratio);
    inconsistent = ux_tests_track(&f->tests, dim_obs);
    f->staged = 0;
    f->fresh = 0;
    f->last = outlier && st == UX_OK ? UX_OUTLIER : st;
    f->last = inconsistent && f->last == UX_OK ? UX_INCONSISTENT : f->last;
    f->log_evidence = log_evidence;
    f->log_likelihood += (double)log_evidence;
    return f->last;
}

ux_status ux_joint_filter_set_gate(ux_joint_filter *f, double gate, int gate_outliers)
{
    return f != NULL && f->model != NULL ? ux_tests_set_gate(&f->tests, gate, gate_outliers) : UX_ERR_ARG;
}

double ux_joint_filter_test_ratio(const ux_joint_filter *f) { return f != NULL ? (double)f->tests.ratio : (double)NAN; }
double ux_joint_filter_nis(const ux_joint_filter *f) { return f != NULL ? (double)f->tests.nis : (double)NAN; }

ux_status ux_joint_filter_set_consistency(ux_joint_filter *f, double limit)
{
    return f != NULL && f->model != NULL ? ux_tests_set_consistency(&f->tests, limit) : UX_ERR_ARG;
}

size_t ux_joint_filter_sizeof(void) { return sizeof(ux_joint_filter); }
const ux_joint *ux_joint_filter_posterior(const ux_joint_filter *f) { return f != NULL ? &f->posterior : NULL; }
ux_status ux_joint_filter_last_status(const ux_joint_filter *f) { return f != NULL ? f->last : UX_ERR_ARG; }
double ux_joint_filter_log_evidence(const ux_joint_filter *f) { return (double)f->log_evidence; }
double ux_joint_filter_log_likelihood(const ux_joint_filter *f) { return f->log_likelihood; }

ux_status ux_joint_filter_mean(const ux_joint_filter *f, double *mean)
{
    ux_real m[UX_MAX_DIM];
    unsigned k;
    ux_status st;
    if (f == NULL || f->model == NULL || mean == NULL)
        return UX_ERR_ARG;
    if ((st = ux_joint_mean(&f->posterior, m)) != UX_OK)
        return st;
    for (k = 0; k < f->posterior.dim; ++k)
        mean[k] = (double)m[k];
    return UX_OK;
}

ux_status ux_joint_filter_cov(const ux_joint_filter *f, double *cov)
{
    ux_real c[UX_MAX_DIM * UX_MAX_DIM];
    unsigned k;
    ux_status st;
    if (f == NULL || f->model == NULL || cov == NULL)
        return UX_ERR_ARG;
    if ((st = ux_joint_cov(&f->posterior, c)) != UX_OK)
        return st;
    for (k = 0; k < f->posterior.dim * f->posterior.dim; ++k)
        cov[k] = (double)c[k];
    return UX_OK;
}
