/*
 * The BayesLaplace filter: x̂_0 = quantized prior; each step predict = lift(transition, {posterior,
 * process noise}), update = BayesLaplace. Refined mode hands all η² predictive atoms to the update;
 * paper mode reduces them to η first; mixture mode is refined, then replaces the posterior atoms by its
 * quadrature density's piecewise-linear law through its nodes reduced to η (filter_density.c).
 *
 * Workspace layout (fixed at init): the staged prediction (η² positions and weights) at the start, then
 * the density's four η-real areas (the posterior mixture's centres and log-weights, the update's evidence
 * positions and weights), followed by scratch that predict, update and
 * ux_filter_pdf each carve afresh. The posterior's density and its quadrature are in filter_density.c.
 */
#include "filter_internal.h"
#include "ux/pdf.h"
#include "ux/stats.h"
#include "ux/ttr.h"

#include <string.h>

/* Noise atoms per hypothesis of the update: inner-noise atoms (kernel) or the noises' outer product
 * (sampler). The counts depend only on the model's structure, not on its parameter values. */
static size_t noise_points(const ux_model *model, unsigned eta, ux_likelihood lik)
{
    ux_model_noises nz;
    size_t p = 1;
    unsigned r;
    model->code->noises(model->defaults, &nz);
    if (lik == UX_LIK_KERNEL)
        return nz.n_inner > 0 ? eta : 1;
    for (r = 0; r < nz.n_noise; ++r)
        p *= eta;
    return p;
}

size_t ux_filter_workspace_bytes(const ux_model *model, unsigned eta, ux_mode mode, ux_likelihood lik)
{
    size_t pred = (size_t)eta * eta, staged, predict, update, np, nodes;
    (void)mode; /* the same bound in every mode: each stores its density's quadrature nodes (below) */
    if (model == NULL || ux_log2_eta(eta) < 0)
        return 0;
    np = noise_points(model, eta, lik);
    staged = 2 * UX_WS_REALS(pred) + UX_FILTER_DENSITY_BYTES(eta);
    predict = UX_LIFT_WORKSPACE_BYTES(pred); /* paper mode too: it evaluates all η² points, then reduces */
    update =
        lik == UX_LIK_KERNEL ? UX_BAYES_KERNEL_WORKSPACE_BYTES(pred, np) : UX_BAYES_SAMPLER_WORKSPACE_BYTES(pred, np);
    /* The density's nodes and their likelihood's scratch: its quadrature (every mode), and the first update's
     * region (refined and mixture modes). */
    nodes = 2 * UX_WS_REALS(UX_DENSITY_NODES) +
            (lik == UX_LIK_KERNEL ? UX_BAYES_KERNEL_WORKSPACE_BYTES(1, np) : UX_BAYES_SAMPLER_WORKSPACE_BYTES(1, np));
    update = update > nodes ? update : nodes;
    return staged + (predict > update ? predict : update);
}

size_t ux_filter_workspace_in_use(const ux_filter *f) { return f != NULL && f->model != NULL ? f->ws_used : 0; }

int ux_filter_check_params(const ux_model *model, const double *params)
{
    ux_real p[UX_MODEL_MAX_PARAMS];
    unsigned i;
    if (model == NULL || params == NULL)
        return 0;
    for (i = 0; i < model->n_params; ++i) {
        p[i] = (ux_real)params[i];
        if (!ux_finite(p[i])) /* also catches doubles that overflow the float build */
            return (int)i;
    }
    return ux_model_check_params(model, p);
}

/* Staged prediction arrays at the start of the workspace. */
static ux_real *staged_x(const ux_filter *f) { return (ux_real *)f->ws.mem; }
static ux_real *staged_w(const ux_filter *f)
{
    return (ux_real *)(void *)((unsigned char *)f->ws.mem + UX_WS_REALS((size_t)f->eta * f->eta));
}

/* The smooth filter's noise atoms ε_j (docs/semantics.md, "Filter"): N(0, 1) quantized at η, then centred and
 * scaled to mean 0 and variance 1 (sums in atom order), so each predictive component keeps its variance. */
static const ux_law STANDARD_NORMAL = {UX_LAW_GAUSSIAN, 0, 1, 0};

static void standardise(ux_real *x, const ux_real *w, size_t count)
{
    ux_real mean = 0, var = 0, scale;
    size_t j;
    for (j = 0; j < count; ++j)
        mean = mean + w[j] * x[j];
    for (j = 0; j < count; ++j) {
        ux_real d = x[j] - mean;
        var = var + w[j] * (d * d);
    }
    scale = var > 0 ? UX_SQRT(var) : UX_R(1.0);
    for (j = 0; j < count; ++j)
        x[j] = (x[j] - mean) / scale;
}

/* A split cell's noise atoms (docs/semantics.md, "Filter density") into x and w: the η atoms' sibling pairs
 * merged (their weights summed, their weighed mean), standardised. Returns their count, η/2. */
static size_t half_noise(const ux_value *full, ux_real *x, ux_real *w)
{
    size_t j, n = full->count / 2;
    for (j = 0; j < n; ++j) {
        ux_real a = full->w[2 * j], b = full->w[2 * j + 1], pair = a + b;
        x[j] = (a * full->x[2 * j] + b * full->x[2 * j + 1]) / pair;
        w[j] = pair;
    }
    standardise(x, w, n);
    return n;
}

/* Each atom's spread in the value's TTR-binned density (docs/semantics.md, "Density", "Filter"): its two bins
 * reach a to the left and b to the right, the masses that keep its mean make their variance about it a·b/3;
 * the outer bins mirror the nearest split point. 0 for a single atom. `v` doubles as the split points' room. */
static void bin_spreads(const ux_value *b, ux_real *v)
{
    size_t i, n = b->count;
    if (n < 2 || ux_split_points(b->x, b->w, n, v) != UX_OK) {
        for (i = 0; i < n; ++i)
            v[i] = 0;
        return;
    }
    /* From the right: atom i reads split points i − 1 and i before v[i] (split point i) is overwritten. */
    for (i = n; i-- > 0;) {
        ux_real left, right;
        ux_bin_reach(b->x, v, n, i, &left, &right);
        v[i] = (b->x[i] - left) * (right - b->x[i]) / UX_R(3.0);
    }
}

/* UX_OK when cfg names a model, η, a mode and a likelihood form the model has; else UX_ERR_ARG. */
static ux_status check_config(const ux_filter_config *cfg)
{
    const ux_model *model;
    if (cfg == NULL || cfg->model == NULL || cfg->model->n_params > UX_MODEL_MAX_PARAMS)
        return UX_ERR_ARG;
    model = cfg->model;
    if (ux_log2_eta(cfg->eta) < 0 ||
        (cfg->mode != UX_MODE_REFINED && cfg->mode != UX_MODE_PAPER && cfg->mode != UX_MODE_MIXTURE))
        return UX_ERR_ARG;
    if (cfg->likelihood == UX_LIK_KERNEL ? model->code->kernel == NULL
                                         : (cfg->likelihood != UX_LIK_SAMPLER || model->code->sampler == NULL))
        return UX_ERR_ARG;
    return UX_OK;
}

/* The prior and the noises quantized at η, each from a fresh source: the belief, the process noise (smooth:
 * the standard normal's atoms, standardised), the kernel's inner noise or the sampler's noises. */
static ux_status quantize_laws(ux_filter *f, const ux_law *prior, const ux_model_noises *nz)
{
    ux_status st = ux_quantize(prior, f->eta, &f->posterior, &f->sources);
    unsigned i;
    if (st == UX_OK)
        st = ux_quantize(f->smooth ? &STANDARD_NORMAL : &nz->process, f->eta, &f->process, &f->sources);
    if (st == UX_OK && f->smooth)
        standardise(f->process.x, f->process.w, f->process.count);
    if (st == UX_OK && f->likelihood == UX_LIK_KERNEL && nz->n_inner > 0) {
        f->n_inner = 1;
        st = ux_quantize(&nz->inner, f->eta, &f->inner, &f->sources);
    }
    if (st == UX_OK && f->likelihood == UX_LIK_SAMPLER) {
        f->n_noise = nz->n_noise;
        for (i = 0; i < nz->n_noise && st == UX_OK; ++i)
            st = ux_quantize(&nz->noise[i], f->eta, &f->noise[i], &f->sources);
    }
    return st;
}

ux_status ux_filter_init(ux_filter *f, const ux_filter_config *cfg, ux_workspace ws)
{
    ux_model_noises nz;
    const ux_model *model;
    ux_law prior;
    ux_arena arena;
    ux_status st;
    size_t need;

    if (f == NULL)
        return UX_ERR_ARG;
    memset(f, 0, sizeof *f);
    if ((st = check_config(cfg)) != UX_OK)
        return st;
    model = cfg->model;
    if (ux_model_params(model, cfg->params, f->params) != UX_OK)
        return UX_ERR_DOMAIN;
    need = ux_filter_workspace_bytes(model, cfg->eta, cfg->mode, cfg->likelihood);
    st = ux_arena_open(&arena, &ws);
    if (st != UX_OK || ws.bytes < need)
        return UX_ERR_WORKSPACE;

    f->eta = cfg->eta;
    f->n = (unsigned)ux_log2_eta(cfg->eta);
    f->mode = cfg->mode;
    f->likelihood = cfg->likelihood;
    ux_sources_init(&f->sources);
    model->code->noises(f->params, &nz);
    prior = cfg->prior != NULL ? *cfg->prior : model->prior;
    f->smooth =
        (uint8_t)(cfg->mode == UX_MODE_REFINED && model->code->additive_noise && nz.process.kind == UX_LAW_GAUSSIAN);
    if ((st = quantize_laws(f, &prior, &nz)) != UX_OK) {
        memset(f, 0, sizeof *f);
        return st == UX_ERR_ARG ? UX_ERR_DOMAIN : st; /* a bad prior law is a domain error */
    }
    f->ws = ws;
    f->ws_used = need;
    f->staged = 0;
    f->last = UX_OK;
    f->prior = prior;
    f->fresh = 1;
    ux_tests_init(&f->tests);
    f->info = UX_R(1.0); /* no kernel before an update has said how much it took */
    filter_density_reset(
        &f->density, prior.kind == UX_LAW_GAUSSIAN || prior.kind == UX_LAW_LAPLACE ? UX_DENSITY_PRIOR : UX_DENSITY_BINS,
        0);
    f->model = model; /* set last: a filter with a model is a configured filter */
    return UX_OK;
}

/* Reduce η² atoms to η and normalise, in place (`cell`: TTR's scratch, count bytes); returns the count. */
static size_t reduce_in_place(const ux_filter *f, ux_real *x, ux_real *w, size_t count, uint8_t *cell)
{
    size_t r = ux_ttr(x, w, count, f->n, cell);
    ux_normalise(w, r);
    return r;
}

/* The split flags of the mixture's components (A_SPLIT, one byte each). */
static unsigned char *split_flags(const ux_filter *f) { return (unsigned char *)(void *)filter_area(f, A_SPLIT); }

/* Whether f at x lies more than UX_CELL_BEND·reach from `line`. */
static int strays(const ux_filter *f, const ux_model_ctx *ctx, ux_real x, ux_real line, ux_real reach)
{
    ux_real args[2];
    args[0] = x;
    args[1] = 0;
    return UX_FABS(f->model->code->transition(args, ctx) - line) > UX_CELL_BEND * reach;
}

/* Whether the transition bends the cell of spread r² about x whose two points' images have midpoint `mid` and
 * half-distance `tau` (UX_CELL_BEND): |τ| > σ, and f at x strays from the midpoint by |τ|, or f at x ± 2r from
 * the line through the images (mid ± 2τ) by 2|τ|; f is evaluated until one strays. */
static int cell_bends(const ux_filter *f, const ux_model_ctx *ctx, ux_real x, ux_real r, ux_real mid, ux_real tau,
                      ux_real sigma)
{
    ux_real reach = UX_FABS(tau), two = UX_R(2.0);
    if (!(reach > sigma))
        return 0;
    return strays(f, ctx, x, mid, reach) || strays(f, ctx, x + two * r, mid + two * tau, two * reach) ||
           strays(f, ctx, x - two * r, mid - two * tau, two * reach);
}

/* One component at n: centre c, scale s, weight w; `split` marks a split cell's (its points take the η/2
 * noise atoms). Its log w − log s waits for the density's first read (filter_mixture_logs). */
static void put_component(const ux_filter *f, size_t n, ux_real c, ux_real s, ux_real w, int split)
{
    filter_area(f, A_C)[n] = c;
    filter_area(f, A_S)[n] = s;
    filter_area(f, A_CW)[n] = w;
    split_flags(f)[n] = (unsigned char)split;
}

/* One cell of spread r² about x carried through f as its two points x ± r (the cell's mean and variance):
 * centre (f₊ + f₋)/2 + μ and scale sqrt(σ² + τ²), τ = (f₊ − f₋)/2 — the mean and spread of those two images,
 * not f at the mean, which on a curved f lies outside them — or, smooth refined at η ≥ 4 (mixture mode keeps one:
 * its log L stays smooth in the parameters a fit moves), for a cell f bends (cell_bends), the
 * two components f₋ + μ and f₊ + μ of scale σ and half the weight each. Writes at n; returns how many. */
static size_t spread_cell(const ux_filter *f, const ux_model_ctx *ctx, const ux_law *process, ux_real x, ux_real r,
                          ux_real w, size_t n)
{
    ux_real args[2], up, down, mid, tau, sigma = process->b;
    args[1] = 0;
    args[0] = x + r;
    up = f->model->code->transition(args, ctx);
    args[0] = x - r;
    down = f->model->code->transition(args, ctx);
    mid = (up + down) * UX_R(0.5);
    tau = (up - down) * UX_R(0.5);
    if (f->smooth && f->eta >= 4 && cell_bends(f, ctx, x, r, mid, tau, sigma)) {
        ux_real half = w * UX_R(0.5);
        put_component(f, n, down + process->a, sigma, half, 1);
        put_component(f, n + 1, up + process->a, sigma, half, 1);
        return 2;
    }
    {
        ux_real s = UX_SQRT(sigma * sigma + tau * tau);
        put_component(f, n, mid + process->a, s, w, 0);
    }
    return 1;
}

/* The predictive mixture's components from the belief the last predict lifted (docs/semantics.md,
 * "Filter density"): centre c_i = f(x_i, 0) + μ and scale σ_i, the process noise's σ; when the belief's atoms
 * carry cell spreads v_i (mixture mode; smooth) each cell as spread_cell makes it. Returns the components'
 * count (at most 2·count), 0 when the model does not declare additive Gaussian process noise, or a centre or
 * scale is not finite. x may lie in the centres' area at η or beyond: each x_i is read before a component at
 * 2i + 1 or below is written. */
static size_t mixture_components(const ux_filter *f, const ux_real *x, const ux_real *w, size_t count)
{
    ux_model_noises nz;
    ux_model_ctx ctx;
    const ux_real *c = filter_area(f, A_C), *s = filter_area(f, A_S), *v = filter_area(f, A_V);
    ux_real args[2];
    size_t i, n = 0, j;

    f->model->code->noises(f->params, &nz);
    if (!f->model->code->additive_noise || nz.process.kind != UX_LAW_GAUSSIAN)
        return 0;
    ux_model_context(f->model, f->params, f->pred_k, f->pred_u, &ctx);
    args[1] = 0;
    for (i = 0; i < count; ++i) {
        size_t made;
        if (f->spread) {
            made = spread_cell(f, &ctx, &nz.process, x[i], UX_SQRT(v[i]), w[i], n);
        } else {
            args[0] = x[i];
            put_component(f, n, f->model->code->transition(args, &ctx) + nz.process.a, nz.process.b, w[i], 0);
            made = 1;
        }
        for (j = n; j < n + made; ++j)
            if (!ux_finite(c[j]) || !ux_finite(s[j]))
                return 0;
        n += made;
    }
    return n;
}

/* Sarle's bimodality coefficient (γ² + 1)/κ of the mixture of N(x_i, v_i) about its mean m (sums in order):
 * 1/3 for a Gaussian, above 5/9 for a bimodal law; ∞ when the fourth moment is not positive. */
static ux_real bimodality(const ux_value *b, ux_real m, const ux_real *v)
{
    ux_shape shape = {0, 0, 0};
    size_t i;
    for (i = 0; i < b->count; ++i)
        shape_add(&shape, b->w[i], b->x[i] - m, v[i]);
    return shape_bimodality(&shape);
}

/* The share of the belief's variance the kernel moves into its components (docs/semantics.md, "Filter"):
 * UX_KERNEL_SHARE·clamp(1 − info / UX_KERNEL_INFO, 0, 1). */
static ux_real kernel_share(const ux_filter *f)
{
    ux_real t = UX_R(1.0) - f->info / UX_KERNEL_INFO;
    t = t > 0 ? t : UX_R(0.0);
    t = t < 1 ? t : UX_R(1.0);
    return UX_KERNEL_SHARE * t;
}

/* The belief the smooth predict carries through the transition (docs/semantics.md, "Filter", the kernel):
 * each atom's bin spread, scaled so that they add up to the posterior's variance less the atoms' own (when
 * known), into v; then, unless the update took much of the variance or the belief is bimodal, the kernel
 * h² moved from between the atoms into every spread: positions m + a·(x_i − m), a = √(1 − h²/B), into x. */
static void kernel_belief(const ux_filter *f, const ux_value *b, ux_real *x, ux_real *v)
{
    ux_real m = ux_mean(b), between = ux_var(b), alpha = kernel_share(f), a = UX_R(1.0), h2 = 0;
    size_t i, n = b->count;
    int kernel = 0;
    bin_spreads(b, v);
    if (f->has_var) {
        ux_real within = f->post_var - between, total = 0;
        within = within < 0 ? UX_R(0.0) : within;
        for (i = 0; i < n; ++i) {
            ux_real p = b->w[i] * v[i];
            total = total + p;
        }
        for (i = 0; i < n; ++i)
            v[i] = total > 0 ? v[i] * (within / total) : within;
    }
    if (alpha > 0 && between > 0 && bimodality(b, m, v) <= UX_KERNEL_BIMODALITY) {
        ux_real spread = 0, cap = UX_KERNEL_CAP * between;
        for (i = 0; i < n; ++i) {
            ux_real p = b->w[i] * v[i];
            spread = spread + p;
        }
        h2 = alpha * (between + spread);
        h2 = cap < h2 ? cap : h2;
        a = UX_SQRT(UX_R(1.0) - h2 / between);
        kernel = 1;
    }
    for (i = 0; i < n; ++i) {
        x[i] = kernel ? m + a * (b->x[i] - m) : b->x[i];
        v[i] = kernel ? v[i] + h2 : v[i];
    }
}

/* The smooth filter's predictive points (docs/semantics.md, "Filter"): the belief's atoms with their bins'
 * spreads as the mixture's components (centre c_i, scale s_i: each atom's cell carried through the
 * transition), at the noise atoms: c_i + s_i·ε_j with weight w_i·ν_j, i outer, zero weights dropped.
 * UX_ERR_DOMAIN where a centre, a scale or a point is not finite. */
static ux_status smooth_points(ux_filter *f, const ux_value *belief, ux_real *x, ux_real *w, size_t *count)
{
    const ux_real *c = filter_area(f, A_C), *s = filter_area(f, A_S), *cw = filter_area(f, A_CW);
    const unsigned char *split = split_flags(f);
    ux_real *atoms = filter_area(f, A_C) + f->eta; /* the upper half: components are written below each atom read */
    ux_real *half_x = filter_area(f, A_HALF), *half_w = half_x + f->eta / 2;
    size_t i, j, n = 0, components, halves = f->eta >= 4 ? half_noise(&f->process, half_x, half_w) : 0;
    kernel_belief(f, belief, atoms, filter_area(f, A_V));
    f->spread = 1;
    components = mixture_components(f, atoms, belief->w, belief->count);
    if (components == 0)
        return UX_ERR_DOMAIN;
    for (i = 0; i < components; ++i) {
        const ux_real *ex = split[i] ? half_x : f->process.x, *ew = split[i] ? half_w : f->process.w;
        size_t count = split[i] ? halves : f->process.count;
        for (j = 0; j < count; ++j) {
            ux_real wij = cw[i] * ew[j], xij = c[i] + s[i] * ex[j];
            if (!ux_finite(xij))
                return UX_ERR_DOMAIN;
            if (wij != 0) {
                x[n] = xij;
                w[n] = wij;
                ++n;
            }
        }
    }
    f->pending = (uint8_t)components;
    *count = n;
    return UX_OK;
}

ux_status ux_filter_predict(ux_filter *f, uint32_t k, double u)
{
    ux_value belief;
    const ux_value *in[2];
    ux_model_ctx ctx;
    ux_workspace rest;
    ux_arena arena;
    ux_real *x, *w;
    uint8_t *cell;
    size_t count = 0, points;
    ux_status st;

    if (f == NULL || f->model == NULL)
        return UX_ERR_ARG;
    points = (size_t)f->eta * f->eta;
    rest = filter_scratch(f);
    st = ux_arena_open(&arena, &rest);
    if (st != UX_OK)
        return st;
    x = ux_arena_reals(&arena, points);
    w = ux_arena_reals(&arena, points);
    cell = ux_arena_bytes(&arena, points);
    if (x == NULL || w == NULL || cell == NULL)
        return UX_ERR_WORKSPACE;
    /* The belief predicted from: the posterior, or a prediction already staged (reduced to η). */
    ux_value_copy(&belief, &f->posterior);
    if (f->staged > 0) {
        size_t r = reduce_in_place(f, staged_x(f), staged_w(f), f->staged, cell);
        memcpy(belief.x, staged_x(f), r * sizeof(ux_real));
        memcpy(belief.w, staged_w(f), r * sizeof(ux_real));
        belief.count = (uint32_t)r;
        f->staged = r; /* still a valid staged prior should the lift below fail */
    }
    st = ux_independent_copy(&belief, &belief, &f->sources);
    if (st == UX_OK)
        st = ux_independent_copy(&f->process, &f->process, &f->sources);
    if (st != UX_OK)
        return st;

    ux_model_context(f->model, f->params, k, (ux_real)u, &ctx);
    in[0] = &belief;
    in[1] = &f->process;
    /* A staged prediction is lifted from into scratch, so that it is still intact should the lift fail;
     * with none (the usual predict after an update) the points go straight to the staged area. */
    if (f->staged == 0) {
        x = staged_x(f);
        w = staged_w(f);
    }
    if (f->smooth) {
        /* Its components are the next density's, in the areas the previous posterior's density read: that
         * density reads as its bins from here on. */
        uint32_t k0 = f->pred_k;
        ux_real u0 = f->pred_u;
        f->pred_k = k;
        f->pred_u = (ux_real)u;
        f->density.form = f->density.form == UX_DENSITY_MIXTURE ? (uint8_t)UX_DENSITY_BINS : f->density.form;
        st = smooth_points(f, &belief, x, w, &count);
        if (st != UX_OK) {
            f->pred_k = k0;
            f->pred_u = u0;
            f->spread = 0;
            return st;
        }
    } else {
        st = f->model->code->additive_noise
                 ? ux_lift_points_additive(x, w, &count, f->model->code->transition, &ctx, in, 2)
                 : ux_lift_points(x, w, &count, f->model->code->transition, &ctx, in, 2);
        if (st != UX_OK)
            return st;
    }
    if (f->mode == UX_MODE_PAPER)
        count = reduce_in_place(f, x, w, count, cell);
    if (x != staged_x(f)) {
        memcpy(staged_x(f), x, count * sizeof(ux_real));
        memcpy(staged_w(f), w, count * sizeof(ux_real));
    }
    f->staged = count;
    ux_value_copy(&f->posterior, &belief);
    f->pred_k = k;
    f->pred_u = (ux_real)u;
    return UX_OK;
}

/* The smooth filter's posterior variance, state beside its atoms (docs/semantics.md, "Filter"). */
static void set_posterior_var(ux_filter *f, ux_real v)
{
    f->post_var = v;
    f->has_var = 1;
}

/* A step without observation: the prior of the update (the staged prediction, or the current belief)
 * reduced to η atoms and normalised, exactly as a fallback leaves it. */
static ux_status no_evidence(ux_filter *f)
{
    ux_workspace rest = filter_scratch(f);
    ux_arena arena;
    ux_real *x = staged_x(f), *w = staged_w(f);
    uint8_t *cell;
    size_t count = f->staged;
    ux_status st = ux_arena_open(&arena, &rest);

    if (st != UX_OK)
        return st;
    cell = ux_arena_bytes(&arena, (size_t)f->eta * f->eta);
    if (cell == NULL)
        return UX_ERR_WORKSPACE;
    if (count == 0) {
        count = f->posterior.count;
        memcpy(x, f->posterior.x, count * sizeof(ux_real));
        memcpy(w, f->posterior.w, count * sizeof(ux_real));
    }
    /* Its density is the predictive mixture (or the prior's) without a likelihood factor. */
    if (f->staged > 0) {
        size_t components =
            f->smooth ? f->pending : mixture_components(f, f->posterior.x, f->posterior.w, f->posterior.count);
        filter_density_reset(&f->density, components > 0 ? UX_DENSITY_MIXTURE : UX_DENSITY_BINS, components);
    } else if (f->fresh && (f->prior.kind == UX_LAW_GAUSSIAN || f->prior.kind == UX_LAW_LAPLACE)) {
        filter_density_reset(&f->density, (ux_density_form)f->density.form, f->density.count);
    } else {
        filter_density_reset(&f->density, UX_DENSITY_BINS, f->density.count);
    }
    f->spread = 0;
    if (f->smooth && f->staged > 0) { /* the prediction's points: their variance, and no information taken */
        set_posterior_var(f, ux_points_var(x, w, count));
        f->info = UX_R(0.0);
    }
    ux_value_set(&f->posterior, x, w, ux_ttr(x, w, count, f->n, cell), f->eta, ux_sources_fresh(&f->sources));
    f->fresh = 0;
    f->staged = 0;
    f->last = UX_NO_EVIDENCE;
    f->log_evidence = 0; /* nothing observed: p(∅) = 1 */
    return UX_NO_EVIDENCE;
}

/* Atoms of the prior law the first update weighs in refined mode (docs/semantics.md, "Filter"): as every
 * later update sees the η² points of a prediction, the first sees the prior law quantized at
 * min(η², UX_MAX_ETA) atoms rather than at η, so a prior much wider than the likelihood still has atoms
 * where the likelihood is. */
unsigned filter_first_prior_atoms(const ux_filter *f)
{
    unsigned m = f->eta * f->eta;
    return m < UX_MAX_ETA ? m : UX_MAX_ETA;
}

/* The update's observation model (ctx and noise are the caller's, referenced by obs). */
void filter_observation(const ux_filter *f, ux_model_ctx *ctx, const ux_value **noise, ux_observation *obs)
{
    unsigned k;
    ux_model_context(f->model, f->params, 0, 0, ctx);
    memset(obs, 0, sizeof *obs);
    obs->form = f->likelihood;
    obs->ctx = ctx;
    obs->family = f->model->code->family;
    obs->kernel = f->model->code->kernel;
    obs->kernel_row = f->model->code->kernel_row;
    obs->inner = f->n_inner > 0 ? &f->inner : NULL;
    obs->sampler = f->model->code->sampler;
    for (k = 0; k < f->n_noise; ++k)
        noise[k] = &f->noise[k];
    obs->noise = noise;
    obs->n_noise = f->n_noise;
    obs->eta = f->eta;
}

/* The evidence as reals (omega NULL: equal weights), checked before the staged prior is touched, so that a
 * rejected update changes nothing: UX_ERR_ARG without z or with J outside 1..UX_MAX_ETA, UX_ERR_DOMAIN for
 * m = 0 or a value that is not finite (or a weight not > 0). */
static ux_status read_evidence(const double *z, const double *omega, unsigned J, unsigned m, ux_real *zr, ux_real *wr)
{
    unsigned k;
    if (z == NULL || J < 1 || J > UX_MAX_ETA)
        return UX_ERR_ARG;
    if (m < 1)
        return UX_ERR_DOMAIN;
    for (k = 0; k < J; ++k) {
        zr[k] = (ux_real)z[k];
        wr[k] = omega != NULL ? (ux_real)omega[k] : (J == 1 ? UX_R(1.0) : UX_R(1.0) / (ux_real)J);
        if (!ux_finite(zr[k]) || !ux_finite(wr[k]) || !(wr[k] > 0))
            return UX_ERR_DOMAIN;
    }
    return UX_OK;
}

/* The update's prior atoms into the staged area: the staged prediction, the prior law at the first update
 * (first_prior_atoms; not in paper mode), or the current belief. Returns their count. */
static size_t stage_update_prior(ux_filter *f)
{
    size_t count = f->staged;
    if (count == 0 && f->fresh && f->mode != UX_MODE_PAPER)
        count = ux_quantize_scaled(&f->prior, filter_first_prior_atoms(f), staged_x(f), staged_w(f));
    if (count == 0) {
        memcpy(staged_x(f), f->posterior.x, f->posterior.count * sizeof(ux_real));
        memcpy(staged_w(f), f->posterior.w, f->posterior.count * sizeof(ux_real));
        count = f->posterior.count;
    }
    return count;
}

/* The form of the posterior's density after an update (docs/semantics.md, "Filter density"). */
static ux_density_form update_density_form(const ux_filter *f, unsigned J, int predicted, size_t components)
{
    if (J > f->eta)
        return UX_DENSITY_BINS;
    if (predicted && components > 0)
        return UX_DENSITY_MIXTURE;
    if (!predicted && f->fresh && (f->prior.kind == UX_LAW_GAUSSIAN || f->prior.kind == UX_LAW_LAPLACE))
        return UX_DENSITY_PRIOR;
    return UX_DENSITY_BINS;
}

/* Point i at xi of weight wi on one side of ux_point_edges (0: lowest, 1: highest). */
static void edge_take(ux_point_edges *e, int side, ux_real xi, ux_real wi, size_t i)
{
    ux_real *edge = &e->edge[side], *inner = &e->inner[side];
    size_t *at = &e->probe.at[2 * side];
    if (side ? xi > *edge : xi < *edge) {
        *inner = *edge;
        at[1] = at[0];
        *edge = xi;
        at[0] = i;
        e->weight[side] = wi;
    } else if (xi == *edge) {
        e->weight[side] = e->weight[side] + wi;
    } else if (side ? xi > *inner : xi < *inner) {
        *inner = xi;
        at[1] = i;
    }
}

/* The outermost of the `count` prior points on each side (ux_point_edges), in one pass in order. */
static void point_edges(const ux_real *x, const ux_real *w, size_t count, ux_point_edges *e)
{
    size_t i;
    e->edge[0] = e->inner[1] = UX_INF;
    e->edge[1] = e->inner[0] = -UX_INF;
    e->weight[0] = e->weight[1] = 0;
    memset(e->probe.at, 0, sizeof e->probe.at);
    for (i = 0; i < count; ++i) {
        edge_take(e, 0, x[i], w[i], i);
        edge_take(e, 1, x[i], w[i], i);
    }
}

/* Whether a smooth update of weighed points (`edges` non-NULL) must refocus: fewer than UX_REFOCUS_ESS·η
 * effective points (twice that at η ≥ UX_REFOCUS_WIDE_ETA), or an open edge (filter_edge_open). Both need the
 * update's own evidence. */
static int smooth_refocus(ux_filter *f, ux_real ess, const ux_point_edges *edges, ux_real log_evidence)
{
    unsigned least = UX_REFOCUS_ESS * f->eta * (f->eta >= UX_REFOCUS_WIDE_ETA ? 2u : 1u);
    if (ess < (ux_real)least)
        return 1;
    return edges != NULL && f->density.lik && edges->inner[0] < UX_INF && filter_edge_open(f, edges, log_evidence);
}

/* An update whose density has a quadrature keeps its evidence for it, and in mixture mode — or when it must
 * refocus (smooth: smooth_refocus; else the first update's concentration; a kernel likelihood's fallback, whose
 * points all missed it: a sampler's zeros are its bins', not the model's) — takes its posterior from that
 * quadrature (mixture_posterior, which writes *log_evidence). Returns the update's status: UX_REFOCUSED for a
 * first update so refocused, UX_OK for a fallback so weighed, else `st`. */
static ux_status quadrature_posterior(ux_filter *f, ux_status st, const ux_real *zr, const ux_real *wr, unsigned J,
                                      unsigned m, int first, ux_real ess, const ux_point_edges *edges,
                                      ux_real *log_evidence)
{
    const int fell_back = st == UX_FALLBACK && f->mode != UX_MODE_PAPER && f->likelihood == UX_LIK_KERNEL;
    int concentrated = 0, refocus;
    if (f->density.form == UX_DENSITY_BINS)
        return st;
    memcpy(filter_area(f, A_Z), zr, J * sizeof(ux_real));
    memcpy(filter_area(f, A_OM), wr, J * sizeof(ux_real));
    f->density.J = (uint8_t)J;
    f->density.m = m;
    f->density.lik = st == UX_OK || fell_back;
    if (first && f->mode != UX_MODE_PAPER && f->density.form == UX_DENSITY_PRIOR && st == UX_OK)
        concentrated = filter_first_region(f);
    refocus = fell_back || (f->smooth ? smooth_refocus(f, ess, edges, *log_evidence) : concentrated);
    if ((f->mode == UX_MODE_MIXTURE || refocus) && f->density.lik && filter_mixture_posterior(f, log_evidence))
        return refocus && first ? UX_REFOCUSED : fell_back ? UX_OK : st;
    f->density.lik = st == UX_OK; /* a fallback the nodes did not weigh either keeps the prior, as it left it */
    return st;
}

/* The predictive mixture's components the update's density reads (none unless a prediction is staged and the
 * evidence fits the density's areas), from the belief the predict lifted, which the update will replace. */
static size_t update_components(ux_filter *f, int predicted, unsigned J)
{
    if (!predicted || J > f->eta)
        return 0;
    return f->smooth ? f->pending : mixture_components(f, f->posterior.x, f->posterior.w, f->posterior.count);
}

/* The innovation gate (ux_filter_set_gate) on the prior atoms: taken by BayesLaplace's own kernel calls where
 * the kernel has no inner noise and nothing waits on it (returns 1: *ratio is finished after BayesLaplace from
 * sums); else first, in a pass of its own (same sums, kept in *sums) into *ratio (returns 0). */
static int gate_start(const ux_filter *f, ux_observation *obs, ux_innovation *sums, size_t count, const ux_evidence *ev,
                      ux_real *ratio)
{
    int fused = !f->tests.drop && obs->form == UX_LIK_KERNEL && obs->inner == NULL;
    memset(sums, 0, sizeof *sums);
    sums->w = staged_w(f);
    obs->innovation = fused ? sums : NULL;
    if (!fused && ux_innovation_sums(obs, staged_x(f), staged_w(f), count, sums) == UX_OK)
        *ratio = ux_innovation_finish(sums, obs->family, count, ev);
    return fused;
}

/* The filters that keep a departure (docs/semantics.md, "Departure"): smooth refined and mixture mode. */
static int tracks_departure(const ux_filter *f) { return f->smooth || f->mode == UX_MODE_MIXTURE; }

/* The posterior's variance as ux_filter_var reports it after an update: smooth, the state beside its atoms; else
 * its atoms'. */
static ux_real updated_var(const ux_filter *f) { return f->smooth ? f->post_var : ux_var(&f->posterior); }

/* Departure (docs/semantics.md): an outlier leaves the distance between how far a linear update would have moved
 * the mean (`reach`) and how far this one did (the larger of it and what was left); every other update keeps
 * the share of it the update left of the variance. Returns the status to report: UX_DEPARTED for `st` UX_OK
 * when the departure exceeds UX_DEPARTURE_SD of the posterior's sd. */
static ux_status track_departure(ux_filter *f, ux_status st, int outlier, ux_real reach, ux_real prior_mean)
{
    if (outlier) {
        ux_real d = reach - UX_FABS(ux_mean(&f->posterior) - prior_mean);
        f->departure = d > f->departure ? d : f->departure;
    } else {
        ux_real keep = UX_R(1.0) - f->info;
        keep = keep > 0 ? keep : UX_R(0.0);
        f->departure = f->departure * (keep < 1 ? keep : UX_R(1.0));
    }
    return st == UX_OK && f->departure > UX_DEPARTURE_SD * UX_SQRT(updated_var(f)) ? UX_DEPARTED : st;
}

/* How far an outlier that is not the linear update's would move the mean (docs/semantics.md, "Departure"): the
 * gate's linear shift, or the reach under a Gaussian predictive (`tail`, filter_gaussian_reach; NaN: not taken)
 * where that is larger or the shift is NaN. */
static ux_real outlier_reach(const ux_innovation *sums, const ux_observation *obs, size_t count, const ux_evidence *ev,
                             ux_real prior_var, ux_real tail)
{
    ux_real shift = ux_innovation_shift(sums, obs->family, count, ev, prior_var);
    return tail == tail && !(shift >= tail) ? tail : shift;
}

/* The linear update (docs/semantics.md, "Linear update") serves the smooth filter's update of one evidence point
 * seen once whose kernel is Gaussian, without inner noise, of one scale and linear in the state over the prior
 * atoms (what a line leaves of Var loc is within UX_LINEAR_RESIDUAL of the noise's variance, and rounding
 * UX_LINEAR_ROUNDING of Var loc), on prior atoms that are unimodal (bimodality coefficient at most
 * UX_LINEAR_BIMODALITY): exact for a Gaussian prior, whose tails weighed atoms lack. */
static int linear_applies(const ux_filter *f, const ux_observation *obs, const ux_evidence *ev, size_t count,
                          ux_real mean, ux_real var, ux_linear *lin)
{
    if (!f->smooth || obs->form != UX_LIK_KERNEL || obs->inner != NULL || obs->family != UX_LAW_GAUSSIAN ||
        ev->count != 1 || ev->m != 1 || ev->omega[0] != UX_R(1.0) || !(var > 0))
        return 0;
    if (ux_linear_update(obs, staged_x(f), staged_w(f), count, ev->z[0], mean, var, lin) != UX_OK)
        return 0;
    return lin->same_scale && lin->residual <= UX_LINEAR_RESIDUAL * lin->noise + UX_LINEAR_ROUNDING * lin->loc_var &&
           lin->bimodality <= UX_LINEAR_BIMODALITY && lin->var > 0 && ux_finite(lin->shift) &&
           ux_finite(lin->log_evidence);
}

/* The linear update's posterior: the prior atoms moved by its shift and scaled about their mean to its variance
 * (x ↦ m + K·ν + a·(x − m), a = √(V'/V)), reduced to η and normalised; its evidence, no effective count
 * (nothing weighed: no refocus) and its variance as BayesLaplace gives them. UX_ERR_DOMAIN, the atoms
 * untouched, should a moved atom not be finite. */
static ux_status linear_posterior(ux_filter *f, const ux_linear *lin, size_t count, ux_real mean, ux_real var,
                                  ux_workspace *rest, ux_real *log_evidence, ux_real *ess, ux_real *spread)
{
    ux_real *x = staged_x(f), *w = staged_w(f), a = UX_SQRT(lin->var / var), to = mean + lin->shift;
    ux_arena arena;
    uint8_t *cell;
    size_t i;
    ux_status st = ux_arena_open(&arena, rest);
    if (st != UX_OK)
        return st;
    cell = ux_arena_bytes(&arena, count);
    if (cell == NULL)
        return UX_ERR_WORKSPACE;
    for (i = 0; i < count; ++i)
        if (!ux_finite(to + a * (x[i] - mean)))
            return UX_ERR_DOMAIN;
    for (i = 0; i < count; ++i)
        x[i] = to + a * (x[i] - mean);
    ux_value_set(&f->posterior, x, w, ux_ttr(x, w, count, f->n, cell), f->eta, ux_sources_fresh(&f->sources));
    *log_evidence = lin->log_evidence;
    *ess = (ux_real)NAN;
    *spread = lin->var;
    return UX_OK;
}

/* The prior points' mean and variance, in order (ux_points_mean, ux_points_var). */
static void prior_moments(const ux_filter *f, size_t count, ux_real *mean, ux_real *var)
{
    *var = ux_points_var(staged_x(f), staged_w(f), count);
    *mean = ux_points_mean(staged_x(f), staged_w(f), count);
}

/* An update that failed (st < 0) leaves the filter as it was, but for its density: the areas may no longer hold
 * the previous posterior's mixture (mixture_components may have written some centres before it met a
 * non-finite one). Returns st. */
static ux_status update_failed(ux_filter *f, ux_status st, size_t components, int predicted, unsigned J)
{
    if (components > 0 || (predicted && J <= f->eta && f->density.form == UX_DENSITY_MIXTURE))
        f->density.form = UX_DENSITY_BINS;
    return st;
}

ux_status ux_filter_update(ux_filter *f, const double *z, const double *omega, unsigned J, unsigned m)
{
    ux_real zr[UX_MAX_ETA], wr[UX_MAX_ETA];
    const ux_value *noise[UX_MODEL_MAX_NOISES];
    ux_observation obs;
    ux_evidence ev;
    ux_model_ctx ctx;
    ux_workspace rest;
    ux_status st;
    ux_real log_evidence, ess, spread = 0, prior_var = (ux_real)NAN, prior_mean = (ux_real)NAN, ratio = (ux_real)NAN,
                               tail = (ux_real)NAN;
    size_t count, components = 0;
    int predicted, first, outlier, fused, weighed, linear;
    ux_innovation sums;
    ux_linear lin;
    ux_point_edges edges;

    if (f == NULL || f->model == NULL)
        return UX_ERR_ARG;
    if (J == 0 && m == 0) {
        f->tests.ratio = (ux_real)NAN;
        return no_evidence(f);
    }
    st = read_evidence(z, omega, J, m, zr, wr);
    if (st != UX_OK)
        return st;
    predicted = f->staged > 0;
    first = !predicted && f->fresh;
    count = stage_update_prior(f);

    filter_observation(f, &ctx, noise, &obs);
    ev.z = zr;
    ev.omega = wr;
    ev.count = J;
    ev.m = m;
    fused = gate_start(f, &obs, &sums, count, &ev, &ratio);
    /* Failing the gate and dropped: treated as missing, the staged prior (or the belief), not the first's. Not
     * ux_tests_outlier: a reading that passes records its ratio only once its update has succeeded. */
    if (f->tests.drop && ratio > f->tests.gate * f->tests.gate) {
        no_evidence(f);
        f->tests.ratio = ratio;
        ux_tests_track(&f->tests, 1);
        f->last = UX_OUTLIER;
        return UX_OUTLIER;
    }
    components = update_components(f, predicted, J);
    rest = filter_scratch(f);
    if (tracks_departure(f)) /* before BayesLaplace reweighs the prior atoms in place */
        prior_moments(f, count, &prior_mean, &prior_var);
    linear = linear_applies(f, &obs, &ev, count, prior_mean, prior_var, &lin);
    if (f->smooth && !linear) /* before BayesLaplace reorders them */
        point_edges(staged_x(f), staged_w(f), count, &edges);
    st = linear ? linear_posterior(f, &lin, count, prior_mean, prior_var, &rest, &log_evidence, &ess, &spread)
                /* BayesLaplace writes its output only once it has succeeded, so it can write the posterior in
                 * place (one value less on the stack). */
                : ux_bayes_laplace_ess(&f->posterior, &obs, staged_x(f), staged_w(f), count, &ev, f->eta, &f->sources,
                                       &rest, &log_evidence, &ess, f->smooth ? &spread : NULL,
                                       f->smooth ? &edges.probe : NULL);
    if (st < 0)
        return update_failed(f, st, components, predicted, J);
    weighed = st == UX_OK;
    filter_density_reset(&f->density, update_density_form(f, J, predicted, components), components);
    f->spread = 0; /* the update's own posterior has no cell spreads; mixture_posterior's has */
    if (f->smooth) /* a fallback keeps the prior atoms: their variance */
        set_posterior_var(f, weighed ? spread : prior_var);
    if (linear || fused)
        ratio = linear ? lin.ratio : ux_innovation_finish(&sums, obs.family, count, &ev);
    outlier = ux_tests_outlier(&f->tests, ratio);
    st = quadrature_posterior(f, st, zr, wr, J, m, first, ess, f->smooth && !linear ? &edges : NULL, &log_evidence);
    weighed = st != UX_FALLBACK; /* a fallback the density's nodes weighed is weighed */
    /* an outlier the linear update did not take: how far a Gaussian predictive would have let it move the mean */
    if (outlier && !linear && tracks_departure(f) && f->density.lik && f->density.form != UX_DENSITY_BINS)
        tail = filter_gaussian_reach(f, prior_mean, prior_var);
    if (tracks_departure(f)) /* the share of the variance this update took (after a refocus: the quadrature's) */
        f->info = prior_var > 0 && weighed ? UX_R(1.0) - updated_var(f) / prior_var : UX_R(0.0);
    f->fresh = 0;
    f->staged = 0;
    f->last = outlier && st != UX_FALLBACK ? UX_OUTLIER : st; /* a fallback weighed nothing: it says more */
    if (tracks_departure(f)) /* how far the mean should have moved: the linear update's shift, else outlier_reach */
        f->last = track_departure(f, f->last, outlier,
                                  linear ? UX_FABS(lin.shift) : outlier_reach(&sums, &obs, count, &ev, prior_var, tail),
                                  prior_mean);
    if (ux_tests_track(&f->tests, 1) && f->last == UX_OK)
        f->last = UX_INCONSISTENT;
    f->log_evidence = log_evidence;
    f->log_likelihood += (double)log_evidence;
    return f->last;
}

size_t ux_filter_sizeof(void) { return sizeof(ux_filter); }
const ux_value *ux_filter_posterior(const ux_filter *f) { return f != NULL ? &f->posterior : NULL; }
double ux_filter_mean(const ux_filter *f) { return (double)ux_mean(&f->posterior); }
/* The smooth filter's variance is its binned density's: the atoms' plus their bins' spreads, Σ w_i·v_i in
 * order (bin_spreads, into the spreads' area: scratch once a predict has read it). */
double ux_filter_var(const ux_filter *f)
{
    ux_real v = ux_var(&f->posterior), within = 0, *s;
    uint32_t i;
    if (!f->smooth)
        return (double)v;
    if (f->has_var)
        return (double)f->post_var;
    s = filter_area(f, A_V);
    bin_spreads(&f->posterior, s);
    for (i = 0; i < f->posterior.count; ++i)
        within = within + f->posterior.w[i] * s[i];
    return (double)(v + within);
}
ux_status ux_filter_last_status(const ux_filter *f) { return f != NULL ? f->last : UX_ERR_ARG; }

ux_status ux_filter_set_gate(ux_filter *f, double gate, int gate_outliers)
{
    return f != NULL && f->model != NULL ? ux_tests_set_gate(&f->tests, gate, gate_outliers) : UX_ERR_ARG;
}

double ux_filter_test_ratio(const ux_filter *f) { return f != NULL ? (double)f->tests.ratio : (double)NAN; }
double ux_filter_nis(const ux_filter *f) { return f != NULL ? (double)f->tests.nis : (double)NAN; }

ux_status ux_filter_set_consistency(ux_filter *f, double limit)
{
    return f != NULL && f->model != NULL ? ux_tests_set_consistency(&f->tests, limit) : UX_ERR_ARG;
}
double ux_filter_log_evidence(const ux_filter *f) { return (double)f->log_evidence; }
double ux_filter_log_likelihood(const ux_filter *f) { return f->log_likelihood; }
