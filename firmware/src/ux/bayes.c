/*
 * BayesLaplace (docs/semantics.md): log-likelihood per hypothesis, weights w·exp(ℓ − max ℓ), then TTR;
 * one evidence point seen once with a kernel likelihood (every filter step) in the linear domain,
 * weights w·(p / max p), without a logarithm per hypothesis.
 * If no hypothesis survives, the result is the prior reduced with TTR and the status says so (the
 * dogmatic-prior fallback), so no NaN ever reaches a posterior.
 */
#include "internal.h"
#include "ux/bayes.h"
#include "ux/pdf.h"
#include "ux/ttr.h"

#include <string.h>

/* log Σ exp(a_j) = M + log Σ exp(a_j − M), sequential; −∞ when the maximum is not finite (all −∞, or a
 * NaN or +∞ term, none of which can be weighed). */
ux_real ux_logsumexp(const ux_real *a, size_t count)
{
    ux_real top = a[0], s = 0;
    size_t j;
    for (j = 0; j < count; ++j) {
        if (isnan(a[j]))
            return -UX_INF;
        if (a[j] > top)
            top = a[j];
    }
    if (!ux_finite(top))
        return -UX_INF;
    if (count == 1) /* exp(0) = 1 and log(1) = 0 exactly: the same bits without two libm calls */
        return top + UX_R(0.0);
    for (j = 0; j < count; ++j)
        s = s + UX_EXP(a[j] - top);
    return top + UX_LOG(s);
}

/* logsumexp of one term, as ux_logsumexp(&a, 1) computes it: −∞ unless a is finite, else a + 0. */
static ux_real logsumexp_one(ux_real a) { return ux_finite(a) ? a + UX_R(0.0) : -UX_INF; }

ux_real ux_family_variance(ux_law_kind family)
{
    return family == UX_LAW_LAPLACE ? UX_R(2.0) : family == UX_LAW_UNIFORM ? UX_R(1.0) / UX_R(12.0) : UX_R(1.0);
}

/* The next atom's loc and scale into the gate's sums (about the first atom's loc: a loc far from 0 loses no
 * digits); nothing without sums. */
static void innovation_add(ux_innovation *sums, ux_real loc, ux_real scale)
{
    ux_real d, w;
    if (sums == NULL)
        return;
    w = sums->w[sums->count];
    sums->first = sums->count == 0 ? loc : sums->first;
    d = loc - sums->first;
    sums->total = sums->total + w;
    sums->s1 = sums->s1 + w * d;
    sums->s2 = sums->s2 + w * (d * d);
    sums->e2 = sums->e2 + w * (scale * scale);
    ++sums->count;
}

/* A pass over the atoms starts its sums afresh (a linear-domain pass that gives way to the log domain). */
static void innovation_start(ux_innovation *sums)
{
    if (sums != NULL) {
        const ux_real *w = sums->w;
        memset(sums, 0, sizeof *sums);
        sums->w = w;
    }
}

/* Var loc (about the sums' first loc), Var z and the worst ν² over the evidence; 0 unless the sums cover
 * `count` atoms. */
static int innovation_moments(const ux_innovation *sums, ux_law_kind family, size_t count, const ux_evidence *ev,
                              ux_real *spread, ux_real *var, ux_real *worst)
{
    ux_real shift;
    unsigned k;
    if (sums == NULL || count == 0 || sums->count != count)
        return 0;
    shift = sums->s1 / sums->total;
    *spread = sums->s2 / sums->total - shift * shift;
    *var = *spread + ux_family_variance(family) * (sums->e2 / sums->total);
    *worst = 0;
    for (k = 0; k < ev->count; ++k) {
        ux_real nu = ev->z[k] - (sums->first + shift), nu2 = nu * nu;
        *worst = k == 0 || nu2 > *worst ? nu2 : *worst;
    }
    return 1;
}

ux_real ux_innovation_finish(const ux_innovation *sums, ux_law_kind family, size_t count, const ux_evidence *ev)
{
    ux_real spread, var, worst;
    if (!innovation_moments(sums, family, count, ev, &spread, &var, &worst))
        return (ux_real)NAN;
    return worst / var;
}

ux_real ux_innovation_shift(const ux_innovation *sums, ux_law_kind family, size_t count, const ux_evidence *ev,
                            ux_real prior_var)
{
    ux_real spread, var, worst;
    if (!innovation_moments(sums, family, count, ev, &spread, &var, &worst))
        return (ux_real)NAN;
    spread = spread < 0 ? UX_R(0.0) : spread; /* rounding: a loc that does not vary */
    return UX_SQRT(prior_var * spread) / var * UX_SQRT(worst);
}

/* The sums of ux_linear_update: weight, and weighted d, ℓ, d·ℓ, ℓ², d², d³, d⁴ and scale², in atom order. */
typedef struct {
    ux_real t, d, l, dl, ll, d2, d3, d4, e2;
} linear_sums;

static void linear_add(linear_sums *s, ux_real w, ux_real d, ux_real l, ux_real scale)
{
    ux_real dd = d * d;
    s->t = s->t + w;
    s->d = s->d + w * d;
    s->l = s->l + w * l;
    s->dl = s->dl + w * (d * l);
    s->ll = s->ll + w * (l * l);
    s->d2 = s->d2 + w * dd;
    s->d3 = s->d3 + w * (dd * d);
    s->d4 = s->d4 + w * (dd * dd);
    s->e2 = s->e2 + w * (scale * scale);
}

ux_status ux_linear_update(const ux_observation *obs, const ux_real *px, const ux_real *pw, size_t count, ux_real z,
                           ux_real mean, ux_real var, ux_linear *out)
{
    ux_real args[2] = {0, 0}, first = 0, scale0 = 0, md, ml, cov, noise, s, m2, m3, m4, gain, nu, sd;
    linear_sums sums;
    size_t i;
    if (obs == NULL || obs->form != UX_LIK_KERNEL || obs->inner != NULL || px == NULL || pw == NULL || count == 0 ||
        out == NULL)
        return UX_ERR_ARG;
    memset(&sums, 0, sizeof sums);
    out->same_scale = 1;
    for (i = 0; i < count; ++i) {
        ux_real loc, scale;
        args[0] = px[i];
        obs->kernel(args, obs->ctx, &loc, &scale);
        first = i == 0 ? loc : first;
        scale0 = i == 0 ? scale : scale0;
        if (scale != scale0) { /* not linear-Gaussian: the rest is not needed (sv's scale moves with x) */
            out->same_scale = 0;
            return UX_OK;
        }
        linear_add(&sums, pw[i], px[i] - mean, loc - first, scale);
    }
    md = sums.d / sums.t;
    ml = sums.l / sums.t;
    cov = sums.dl / sums.t - md * ml;
    out->loc_var = sums.ll / sums.t - ml * ml;
    noise = ux_family_variance(obs->family) * (sums.e2 / sums.t);
    s = out->loc_var + noise;
    out->residual = out->loc_var - cov * cov / var;
    m2 = sums.d2 / sums.t - md * md;
    m3 = sums.d3 / sums.t;
    m4 = sums.d4 / sums.t;
    out->bimodality = (m3 * m3 / (m2 * m2 * m2) + UX_R(1.0)) / (m4 / (m2 * m2));
    gain = cov / s;
    nu = z - (first + ml);
    sd = UX_SQRT(s);
    out->shift = gain * nu;
    out->noise = noise;
    out->var = var * (noise / s); /* V − K·Cov for a line, without its cancellation when K·Cov ≈ V */
    out->ratio = nu * nu / s;
    out->log_evidence = ux_std_logpdf(UX_LAW_GAUSSIAN, nu / sd) - UX_LOG(sd);
    return UX_OK;
}

ux_status ux_innovation_sums(const ux_observation *obs, const ux_real *px, const ux_real *pw, size_t count,
                             ux_innovation *sums)
{
    ux_real args[2] = {0, 0};
    size_t i, j;
    if (obs->form != UX_LIK_KERNEL)
        return UX_ERR_ARG;
    sums->w = pw;
    innovation_start(sums);
    if (obs->inner != NULL) /* the inner noise's mean, Σ ν_j m_j in order */
        for (j = 0; j < obs->inner->count; ++j)
            args[1] = args[1] + obs->inner->w[j] * obs->inner->x[j];
    for (i = 0; i < count; ++i) {
        ux_real loc, scale;
        args[0] = px[i];
        obs->kernel(args, obs->ctx, &loc, &scale);
        innovation_add(sums, loc, scale);
    }
    return UX_OK;
}

ux_real ux_innovation_ratio(const ux_observation *obs, const ux_real *px, const ux_real *pw, size_t count,
                            const ux_evidence *ev)
{
    ux_innovation sums;
    if (count == 0 || ux_innovation_sums(obs, px, pw, count, &sums) != UX_OK)
        return (ux_real)NAN;
    return ux_innovation_finish(&sums, obs->family, count, ev);
}

/* Kernel form without an inner noise (the common case: SV, GSS, every additive sensor): the log-domain
 * formula with its one term (log ν = 0), ℓ_i = m Σ_k ω_k ((0 + g(u_ik)) − log scale_i), without per-atom
 * arrays; a scale that repeats (GSS's is the same for every x) needs one logarithm, not one per x. */
static void kernel_loglik_outer(const ux_observation *obs, const ux_real *px, size_t count, const ux_evidence *ev,
                                const ux_real *omega, ux_real *ell)
{
    ux_real last_scale = UX_R(1.0), last_log = UX_R(0.0);
    size_t i;
    unsigned k;
    innovation_start(obs->innovation);
    for (i = 0; i < count; ++i) {
        ux_real args[2], loc, scale, acc = 0;
        args[0] = px[i];
        args[1] = UX_R(0.0);
        obs->kernel(args, obs->ctx, &loc, &scale);
        innovation_add(obs->innovation, loc, scale);
        if (scale != last_scale) {
            last_scale = scale;
            last_log = UX_LOG(last_scale);
        }
        for (k = 0; k < ev->count; ++k) {
            ux_real a = (UX_R(0.0) + ux_std_logpdf(obs->family, (ev->z[k] - loc) / scale)) - last_log;
            acc = acc + omega[k] * logsumexp_one(a);
        }
        ell[i] = (ux_real)ev->m * acc;
    }
}

/* The kernel's loc and scale at x for every inner-noise atom (J of them), by kernel_row when the model has one. */
static void kernel_atoms(const ux_observation *obs, ux_real x, size_t J, ux_real *loc, ux_real *scale)
{
    ux_real args[2];
    size_t j;
    if (obs->kernel_row != NULL) {
        obs->kernel_row(x, obs->inner->x, J, obs->ctx, loc, scale);
        return;
    }
    args[0] = x;
    for (j = 0; j < J; ++j) {
        args[1] = obs->inner->x[j];
        obs->kernel(args, obs->ctx, &loc[j], &scale[j]);
    }
}

/* Kernel form with inner noise: log p(z_k | x_i) = log Σ_j (ν_j·e^{g(u_j)})/scale_ij, u_j = (z_k − loc_ij)/scale_ij,
 * summed in j order — one exponential per atom and no logarithm of a scale — when that sum is at least
 * UX_LINEAR_MIN and finite; else logsumexp_j(log ν_j + g(u_j) − log scale_ij), as without inner noise.
 * ℓ_i = m Σ_k ω_k log p(z_k | x_i). */
static ux_status kernel_loglik(const ux_observation *obs, const ux_real *px, size_t count, const ux_evidence *ev,
                               const ux_real *omega, ux_real *ell, ux_arena *arena)
{
    size_t J = obs->inner != NULL ? obs->inner->count : 1, i, j;
    ux_real last_scale = UX_R(1.0), last_log = UX_R(0.0); /* log 1 = 0: the memo starts valid */
    ux_real *log_nu = ux_arena_reals(arena, J), *loc = ux_arena_reals(arena, J);
    ux_real *scale = ux_arena_reals(arena, J), *a = ux_arena_reals(arena, J);
    unsigned k;

    if (log_nu == NULL || loc == NULL || scale == NULL || a == NULL)
        return UX_ERR_WORKSPACE;
    if (obs->inner == NULL) {
        kernel_loglik_outer(obs, px, count, ev, omega, ell);
        return UX_OK;
    }
    for (j = 0; j < J; ++j)
        log_nu[j] = UX_LOG(obs->inner->w[j]);
    for (i = 0; i < count; ++i) {
        ux_real acc = 0;
        kernel_atoms(obs, px[i], J, loc, scale);
        for (k = 0; k < ev->count; ++k) {
            ux_real L = 0;
            for (j = 0; j < J; ++j) {
                a[j] = ux_std_logpdf(obs->family, (ev->z[k] - loc[j]) / scale[j]);
                L = L + obs->inner->w[j] * UX_EXP(a[j]) / scale[j];
            }
            if (L >= UX_LINEAR_MIN && ux_finite(L)) {
                L = UX_LOG(L);
            } else {
                for (j = 0; j < J; ++j) {
                    /* A scale that repeats needs one logarithm, not one per x. */
                    if (scale[j] != last_scale) {
                        last_scale = scale[j];
                        last_log = UX_LOG(last_scale);
                    }
                    a[j] = log_nu[j] + a[j] - last_log;
                }
                L = ux_logsumexp(a, J);
            }
            acc = acc + omega[k] * L;
        }
        ell[i] = (ux_real)ev->m * acc;
    }
    return UX_OK;
}

/* The sampler form's sizes: P, the points of the noises' outer product, and n, log2 of the size its laws are
 * reduced to (obs->eta, else the largest eta of the noises). UX_ERR_ARG for a missing or malformed noise. */
static ux_status sampler_sizes(const ux_observation *obs, size_t *P, unsigned *n)
{
    unsigned r, eta = obs->eta;
    int ln;
    if (obs->noise == NULL || obs->n_noise < 1 || obs->n_noise >= UX_MAX_ARGS)
        return UX_ERR_ARG;
    *P = 1;
    for (r = 0; r < obs->n_noise; ++r) {
        const ux_value *v = obs->noise[r];
        if (v == NULL || v->count < 1 || v->count > UX_MAX_ETA)
            return UX_ERR_ARG;
        *P *= v->count;
        if (eta == 0 && v->eta > eta)
            eta = v->eta;
    }
    ln = ux_log2_eta(eta);
    if (ln < 0)
        return UX_ERR_ARG;
    *n = (unsigned)ln;
    return UX_OK;
}

/* y = h(x, noise…) at the P points of the noises' outer product (last noise fastest), weights the noises'
 * products; points the model cannot evaluate, or of weight 0, leave the law (the only place mass is
 * dropped). Returns the points kept, in evaluation order. */
static size_t sampler_points(const ux_observation *obs, ux_real x, size_t P, ux_real *y, ux_real *w)
{
    uint32_t idx[UX_MAX_ARGS] = {0};
    ux_real args[UX_MAX_ARGS];
    size_t live = 0, p;
    unsigned r;
    args[0] = x;
    for (p = 0; p < P; ++p) {
        ux_real q = obs->noise[0]->w[idx[0]], v;
        for (r = 1; r < obs->n_noise; ++r)
            q = q * obs->noise[r]->w[idx[r]];
        for (r = 0; r < obs->n_noise; ++r)
            args[r + 1] = obs->noise[r]->x[idx[r]];
        v = obs->sampler(args, obs->ctx);
        if (ux_finite(v) && q != 0) {
            y[live] = v;
            w[live] = q;
            ++live;
        }
        for (r = obs->n_noise; r-- > 0;) {
            if (++idx[r] < obs->noise[r]->count)
                break;
            idx[r] = 0;
        }
    }
    return live;
}

/* Σ_k ω_k log pdf_y(z_k) of the law of the `live` points y, w reduced by TTR at 2^n (cell: its scratch). */
static ux_real sampler_point_loglik(ux_real *y, ux_real *w, size_t live, unsigned n, uint8_t *cell,
                                    const ux_evidence *ev, const ux_real *omega)
{
    ux_real split[UX_MAX_ETA], acc = 0;
    size_t c = live > 0 ? ux_ttr(y, w, live, n, cell) : 0;
    unsigned k;
    if (c < 2) { /* a one-atom law has no density */
        for (k = 0; k < ev->count; ++k)
            acc = acc + omega[k] * -UX_INF;
        return acc;
    }
    ux_normalise(w, c);
    ux_split_points(y, w, c, split);
    for (k = 0; k < ev->count; ++k)
        acc = acc + omega[k] * UX_LOG(ux_pdf_atoms(y, w, c, split, ev->z[k]));
    return acc;
}

/* Sampler form: y_i = h(x_i, noise…) over the noises' outer product, non-finite points dropped,
 * TTR in evaluation order, normalise; ℓ_i = m Σ_k ω_k log pdf_{y_i}(z_k). */
static ux_status sampler_loglik(const ux_observation *obs, const ux_real *px, size_t count, const ux_evidence *ev,
                                const ux_real *omega, ux_real *ell, ux_arena *arena)
{
    size_t P, i;
    unsigned n;
    ux_real *y, *w;
    uint8_t *cell;
    ux_status st = sampler_sizes(obs, &P, &n);

    if (st != UX_OK)
        return st;
    y = ux_arena_reals(arena, P);
    w = ux_arena_reals(arena, P);
    cell = ux_arena_bytes(arena, P);
    if (y == NULL || w == NULL || cell == NULL)
        return UX_ERR_WORKSPACE;
    for (i = 0; i < count; ++i) {
        size_t live = sampler_points(obs, px[i], P, y, w);
        ell[i] = (ux_real)ev->m * sampler_point_loglik(y, w, live, n, cell, ev, omega);
    }
    return UX_OK;
}

ux_status ux_evidence_weights(const ux_evidence *ev, ux_real *omega)
{
    unsigned k;
    if (ev == NULL || ev->z == NULL || ev->count < 1 || ev->count > UX_MAX_ETA)
        return UX_ERR_ARG;
    if (ev->m < 1)
        return UX_ERR_DOMAIN;
    for (k = 0; k < ev->count; ++k) {
        omega[k] = ev->omega != NULL ? ev->omega[k] : (ev->count == 1 ? UX_R(1.0) : UX_R(1.0) / (ux_real)ev->count);
        if (!ux_finite(ev->z[k]) || !ux_finite(omega[k]) || !(omega[k] > 0))
            return UX_ERR_DOMAIN;
    }
    return UX_OK;
}

/* The linear-domain likelihood of one evidence point seen once (docs/semantics.md, "BayesLaplace"):
 * p_i = e^{g(u_i)}/scale_i without inner noise, Σ_j (ν_j·e^{g(u_ij)})/scale_ij with it (j order); a NaN
 * p_i (a model that cannot be evaluated there) is 0. */
static ux_status kernel_lik_linear(const ux_observation *obs, const ux_real *px, size_t count, ux_real z, ux_real *lik,
                                   ux_arena *arena)
{
    size_t i, j, J = obs->inner != NULL ? obs->inner->count : 1;
    ux_real *loc = ux_arena_reals(arena, J), *scale = ux_arena_reals(arena, J);
    if (loc == NULL || scale == NULL)
        return UX_ERR_WORKSPACE;
    innovation_start(obs->inner == NULL ? obs->innovation : NULL);
    for (i = 0; i < count; ++i) {
        ux_real L = 0;
        if (obs->inner == NULL) {
            ux_real args[2];
            args[0] = px[i];
            args[1] = UX_R(0.0);
            obs->kernel(args, obs->ctx, &loc[0], &scale[0]);
            innovation_add(obs->innovation, loc[0], scale[0]);
            L = UX_EXP(ux_std_logpdf_inline(obs->family, (z - loc[0]) / scale[0])) / scale[0];
        } else {
            kernel_atoms(obs, px[i], J, loc, scale);
            for (j = 0; j < J; ++j) {
                ux_real g = ux_std_logpdf_inline(obs->family, (z - loc[j]) / scale[j]);
                L = L + obs->inner->w[j] * UX_EXP(g) / scale[j];
            }
        }
        lik[i] = isnan(L) ? UX_R(0.0) : L;
    }
    return UX_OK;
}

ux_status ux_log_likelihoods(const ux_observation *obs, const ux_real *px, size_t count, const ux_evidence *ev,
                             ux_real *ell, const ux_workspace *ws)
{
    ux_real omega[UX_MAX_ETA];
    ux_arena arena;
    ux_status st = ux_evidence_weights(ev, omega);
    size_t i;
    if (st != UX_OK)
        return st;
    st = ux_arena_open(&arena, ws);
    if (st != UX_OK)
        return st;
    st = obs->form == UX_LIK_KERNEL ? kernel_loglik(obs, px, count, ev, omega, ell, &arena)
                                    : sampler_loglik(obs, px, count, ev, omega, ell, &arena);
    for (i = 0; st == UX_OK && i < count; ++i)
        if (isnan(ell[i]))
            ell[i] = -UX_INF;
    return st;
}

/* The open-edge test's likelihoods and prior mass (ux_probe), before TTR reuses `lik`. */
static void probe_read(ux_probe *probe, const ux_real *lik, ux_real prior_mass, int linear)
{
    unsigned k;
    for (k = 0; k < 4; ++k)
        probe->lik[k] = lik[probe->at[k]];
    probe->prior_mass = prior_mass;
    probe->linear = linear;
}

/* One evidence point z seen once, weighed in the linear domain (docs/semantics.md, "BayesLaplace"):
 * w'_i = w_i·(p_i / P), P = max p_i, zero weights dropped (order kept), TTR into out, and the evidence
 * log P + log Σ w'_i − log Σ w_i. Returns UX_FALLBACK, having changed nothing but p, when P is below
 * UX_LINEAR_MIN or not finite: the log domain decides then. p: room for count reals, reused as TTR's cells. */
static ux_status bayes_linear(ux_value *out, const ux_observation *obs, ux_real *px, ux_real *pw, size_t count,
                              ux_real z, unsigned eta, unsigned n, ux_sources *src, ux_real *p,
                              const ux_workspace *rest, ux_real *log_evidence, ux_real *ess, ux_real *spread,
                              ux_probe *probe)
{
    ux_real top, prior_mass, mass = 0, moment = 0, square = 0;
    ux_arena arena;
    size_t i, kept = 0;
    ux_status st = ux_arena_open(&arena, rest);
    if (st == UX_OK)
        st = kernel_lik_linear(obs, px, count, z, p, &arena);
    if (st != UX_OK)
        return st;
    top = ux_linear_top(pw, p, count, &prior_mass);
    if (!(top >= UX_LINEAR_MIN && ux_finite(top)))
        return UX_FALLBACK;
    if (probe != NULL)
        probe_read(probe, p, prior_mass, 1);
    /* The mass and first moment of the weights are TTR's level-0 sums: a zero weight adds exactly 0 to
     * both (x is finite), so summing every hypothesis gives the kept ones' sums bit for bit. */
    for (i = 0; i < count; ++i) {
        ux_real wi = pw[i] * (p[i] / top), xi = px[i];
        mass = mass + wi;
        moment = moment + wi * xi;
        square = square + wi * wi;
        if (wi != 0) {
            px[kept] = xi;
            pw[kept] = wi;
            ++kept;
        }
    }
    if (spread != NULL)
        *spread = ux_points_var(px, pw, kept);
    ux_value_set(out, px, pw, ux_ttr_summed(px, pw, kept, n, (uint8_t *)(void *)p, mass, moment), eta,
                 ux_sources_fresh(src));
    if (log_evidence != NULL)
        *log_evidence = UX_LOG(top) + UX_LOG(mass) - UX_LOG(prior_mass);
    *ess = mass * mass / square;
    return UX_OK;
}

ux_status ux_bayes_laplace(ux_value *out, const ux_observation *obs, ux_real *px, ux_real *pw, size_t prior_count,
                           const ux_evidence *ev, unsigned eta, ux_sources *src, ux_workspace *ws,
                           ux_real *log_evidence)
{
    ux_real ess;
    return ux_bayes_laplace_ess(out, obs, px, pw, prior_count, ev, eta, src, ws, log_evidence, &ess, NULL, NULL);
}

/* UX_OK when obs names a likelihood the core can evaluate: a kernel of a family with a standard density, or a
 * sampler; else UX_ERR_ARG. */
static ux_status check_observation(const ux_observation *obs)
{
    if (obs->form == UX_LIK_KERNEL)
        return obs->kernel != NULL && ux_std_logpdf(obs->family, 0) == ux_std_logpdf(obs->family, 0) ? UX_OK
                                                                                                     : UX_ERR_ARG;
    return obs->form == UX_LIK_SAMPLER && obs->sampler != NULL ? UX_OK : UX_ERR_ARG;
}

/* The log domain's posterior from the log-likelihoods ell (docs/semantics.md, "BayesLaplace"): w'_i =
 * w_i·exp(ℓ_i − L), L = max_i ℓ_i, zero weights dropped (order kept), TTR into out; UX_FALLBACK and the prior
 * reduced when L is not finite. ell's memory serves as TTR's cells once it is read. */
static ux_status bayes_log_domain(ux_value *out, ux_real *px, ux_real *pw, size_t prior_count, ux_real *ell,
                                  unsigned eta, unsigned n, ux_sources *src, ux_real *log_evidence, ux_real *ess,
                                  ux_real *spread, ux_probe *probe)
{
    ux_real top = -UX_INF, prior_mass = 0, mass = 0, square = 0;
    uint8_t *cell = (uint8_t *)(void *)ell; /* a real is ≥ a byte */
    size_t i, kept = 0;
    for (i = 0; i < prior_count; ++i) {
        prior_mass += pw[i];
        if (ell[i] > top)
            top = ell[i];
    }
    if (!ux_finite(top)) {
        /* Every likelihood zero (or one infinite, which cannot be weighed): keep the prior. */
        ux_value_set(out, px, pw, ux_ttr(px, pw, prior_count, n, cell), eta, ux_sources_fresh(src));
        if (log_evidence != NULL)
            *log_evidence = top;
        *ess = (ux_real)NAN;
        return UX_FALLBACK;
    }
    if (probe != NULL)
        probe_read(probe, ell, prior_mass, 0);
    /* The best hypothesis keeps its prior weight, so the weights cannot all underflow (TTR writes `cell`
     * only after this). */
    for (i = 0; i < prior_count; ++i) {
        ux_real wi = pw[i] * UX_EXP(ell[i] - top);
        mass += wi;
        square = square + wi * wi;
        if (wi != 0) {
            px[kept] = px[i];
            pw[kept] = wi;
            ++kept;
        }
    }
    if (spread != NULL)
        *spread = ux_points_var(px, pw, kept);
    ux_value_set(out, px, pw, ux_ttr(px, pw, kept, n, cell), eta, ux_sources_fresh(src));
    /* log p(z) = log Σ w_i·exp(ℓ_i) − log Σ w_i, with the same max subtracted. */
    if (log_evidence != NULL)
        *log_evidence = top + UX_LOG(mass) - UX_LOG(prior_mass);
    *ess = mass * mass / square;
    return UX_OK;
}

ux_status ux_bayes_laplace_ess(ux_value *out, const ux_observation *obs, ux_real *px, ux_real *pw, size_t prior_count,
                               const ux_evidence *ev, unsigned eta, ux_sources *src, ux_workspace *ws,
                               ux_real *log_evidence, ux_real *ess, ux_real *spread, ux_probe *probe)
{
    ux_real omega[UX_MAX_ETA];
    ux_real *ell;
    ux_arena arena;
    ux_workspace rest;
    ux_status st;
    int n = ux_log2_eta(eta);

    if (out == NULL || obs == NULL || px == NULL || pw == NULL || prior_count == 0 || src == NULL || n < 0)
        return UX_ERR_ARG;
    st = ux_evidence_weights(ev, omega); /* refused evidence before any work */
    if (st == UX_OK)
        st = check_observation(obs);
    if (st == UX_OK)
        st = ux_arena_open(&arena, ws);
    if (st != UX_OK)
        return st;
    ell = ux_arena_reals(&arena, prior_count);
    if (ell == NULL)
        return UX_ERR_WORKSPACE;
    rest = ux_arena_rest(&arena);
    if (obs->form == UX_LIK_KERNEL && ev->count == 1 && ev->m == 1 && omega[0] == UX_R(1.0)) {
        st = bayes_linear(out, obs, px, pw, prior_count, ev->z[0], eta, (unsigned)n, src, ell, &rest, log_evidence, ess,
                          spread, probe);
        if (st != UX_FALLBACK)
            return st;
    }
    st = ux_log_likelihoods(obs, px, prior_count, ev, ell, &rest); /* a NaN ℓ_i (impossible) is −∞ */
    if (st != UX_OK)
        return st;
    return bayes_log_domain(out, px, pw, prior_count, ell, eta, (unsigned)n, src, log_evidence, ess, spread, probe);
}

ux_status ux_bayes_laplace_value(ux_value *out, const ux_observation *obs, const ux_value *prior, const ux_evidence *ev,
                                 ux_sources *src, ux_workspace *ws)
{
    ux_real x[UX_MAX_ETA], w[UX_MAX_ETA];
    if (prior == NULL || prior->count < 1 || prior->count > UX_MAX_ETA)
        return UX_ERR_ARG;
    memcpy(x, prior->x, prior->count * sizeof(ux_real));
    memcpy(w, prior->w, prior->count * sizeof(ux_real));
    return ux_bayes_laplace(out, obs, x, w, prior->count, ev, prior->eta, src, ws, NULL);
}
