/*
 * BayesLaplace over joint values (docs/semantics.md, "Joint BayesLaplace"): the kernel log-likelihood of
 * each prior atom, weights w·exp(ℓ − max ℓ), then the joint reduction. As the scalar update, if no atom
 * survives the result is the prior reduced and the status says so.
 */
#include "internal.h"
#include "ux/joint_bayes.h"

#include <string.h>

/* ω_k (NULL: 1/J, exactly 1 for one point), refusing non-finite positions, ω ≤ 0 and m = 0. */
static ux_status evidence_weights(const ux_joint_evidence *ev, unsigned dim_obs, ux_real *omega)
{
    unsigned k, c;
    if (ev == NULL || ev->z == NULL || ev->count < 1 || ev->count > UX_MAX_ETA)
        return UX_ERR_ARG;
    if (ev->m < 1)
        return UX_ERR_DOMAIN;
    for (k = 0; k < ev->count; ++k) {
        omega[k] = ev->omega != NULL ? ev->omega[k] : (ev->count == 1 ? UX_R(1.0) : UX_R(1.0) / (ux_real)ev->count);
        if (!ux_finite(omega[k]) || !(omega[k] > 0))
            return UX_ERR_DOMAIN;
        for (c = 0; c < dim_obs; ++c)
            if (!ux_finite(ev->z[k * dim_obs + c]))
                return UX_ERR_DOMAIN;
    }
    return UX_OK;
}

/* A pass's start: its gate sums (obs->gate) afresh, and the scratch S the atoms' adds fill the diagonal of;
 * returns the family's variance. */
static ux_real gate_start(const ux_joint_observation *obs, ux_real *S)
{
    if (obs->gate != NULL) {
        memset(obs->gate, 0, sizeof *obs->gate);
        memset(S, 0, UX_JOINT_MAX_OBS * UX_JOINT_MAX_OBS * sizeof(ux_real));
    }
    return ux_family_variance(obs->family);
}

/* ℓ_i = m Σ_k ω_k Σ_c [g((z_kc − loc_c) / scale_c) − log scale_c], the sums in index order; NaN → −∞. */
static void log_likelihoods(const ux_joint_observation *obs, const ux_real *px, const ux_real *pw, size_t count,
                            unsigned dim, const ux_joint_evidence *ev, const ux_real *omega, ux_real *ell)
{
    ux_real loc[UX_JOINT_MAX_OBS], scale[UX_JOINT_MAX_OBS], log_scale[UX_JOINT_MAX_OBS];
    ux_real S[UX_JOINT_MAX_OBS * UX_JOINT_MAX_OBS], fv = gate_start(obs, S);
    size_t i;
    unsigned k, c;
    for (i = 0; i < count; ++i) {
        ux_real acc = 0;
        obs->kernel(px + i * dim, obs->ctx, loc, scale);
        if (obs->gate != NULL)
            ux_gate_add_kernel(obs->gate, pw[i], loc, scale, fv, S, obs->dim_obs);
        for (c = 0; c < obs->dim_obs; ++c)
            log_scale[c] = UX_LOG(scale[c]);
        for (k = 0; k < ev->count; ++k) {
            ux_real s = 0;
            for (c = 0; c < obs->dim_obs; ++c)
                s = s + (ux_std_logpdf(obs->family, (ev->z[k * obs->dim_obs + c] - loc[c]) / scale[c]) - log_scale[c]);
            acc = acc + omega[k] * s;
        }
        ell[i] = (ux_real)ev->m * acc;
        if (isnan(ell[i]))
            ell[i] = -UX_INF;
    }
}

/* One evidence point seen once (J = 1, ω = 1, m = 1), in the linear domain as the scalar update
 * (docs/semantics.md, "BayesLaplace"): p_i = Π_c e^{g((z_c − loc_c) / scale_c)}/scale_c in index order,
 * NaN → 0. */
static void likelihoods_linear(const ux_joint_observation *obs, const ux_real *px, const ux_real *pw, size_t count,
                               unsigned dim, const ux_real *z, ux_real *lik)
{
    ux_real loc[UX_JOINT_MAX_OBS], scale[UX_JOINT_MAX_OBS], S[UX_JOINT_MAX_OBS * UX_JOINT_MAX_OBS];
    ux_real fv = gate_start(obs, S);
    size_t i;
    unsigned c;
    for (i = 0; i < count; ++i) {
        ux_real p = 0;
        obs->kernel(px + i * dim, obs->ctx, loc, scale);
        if (obs->gate != NULL)
            ux_gate_add_kernel(obs->gate, pw[i], loc, scale, fv, S, obs->dim_obs);
        for (c = 0; c < obs->dim_obs; ++c) {
            ux_real factor = UX_EXP(ux_std_logpdf_inline(obs->family, (z[c] - loc[c]) / scale[c])) / scale[c];
            p = c == 0 ? factor : p * factor;
        }
        lik[i] = isnan(p) ? UX_R(0.0) : p;
    }
}

/* One evidence point z seen once, weighed in the linear domain: w'_i = w_i·(p_i / P), P = max p_i, the
 * joint reduction into out, and the evidence log P + log Σ w'_i − log Σ w_i. Returns UX_FALLBACK, having
 * changed nothing but p, when P is below UX_LINEAR_MIN or not finite: the log domain decides then. */
static ux_status joint_linear(ux_joint *out, const ux_joint_observation *obs, ux_real *px, ux_real *pw, size_t count,
                              unsigned dim, const ux_real *z, unsigned eta, uint64_t sources, ux_real *p,
                              ux_workspace *rest, ux_real *log_evidence)
{
    ux_real top, prior_mass, mass = 0;
    ux_status st;
    size_t i;
    likelihoods_linear(obs, px, pw, count, dim, z, p);
    top = ux_linear_top(pw, p, count, &prior_mass);
    if (!(top >= UX_LINEAR_MIN && ux_finite(top)))
        return UX_FALLBACK;
    for (i = 0; i < count; ++i) {
        pw[i] = pw[i] * (p[i] / top);
        mass += pw[i];
    }
    if ((st = ux_joint_reduce(out, px, pw, count, dim, eta, sources, rest)) != UX_OK)
        return st;
    if (log_evidence != NULL)
        *log_evidence = UX_LOG(top) + UX_LOG(mass) - UX_LOG(prior_mass);
    return UX_OK;
}

/* UX_OK when the call's shapes are ones the core takes: an observation with a kernel of a family with a
 * standard density, 1..UX_JOINT_MAX_OBS components, a state of 1..UX_MAX_DIM, η a power of two; else
 * UX_ERR_ARG. */
static ux_status check_call(const ux_joint *out, const ux_joint_observation *obs, const ux_real *px, const ux_real *pw,
                            size_t count, unsigned dim, unsigned eta)
{
    if (out == NULL || obs == NULL || obs->kernel == NULL || px == NULL || pw == NULL || count == 0 || dim < 1 ||
        dim > UX_MAX_DIM || obs->dim_obs < 1 || obs->dim_obs > UX_JOINT_MAX_OBS || ux_log2_eta(eta) < 0)
        return UX_ERR_ARG;
    if (ux_std_logpdf(obs->family, 0) != ux_std_logpdf(obs->family, 0))
        return UX_ERR_ARG; /* a family without a standard density */
    return UX_OK;
}

/* The log domain's posterior from the log-likelihoods ell: w'_i = w_i·exp(ℓ_i − L), L = max_i ℓ_i, reduced
 * into out; UX_FALLBACK and the prior reduced when L is not finite. */
static ux_status joint_log_domain(ux_joint *out, ux_real *px, ux_real *pw, size_t count, unsigned dim,
                                  const ux_real *ell, unsigned eta, uint64_t sources, ux_workspace *rest,
                                  ux_real *log_evidence)
{
    ux_real top = -UX_INF, prior_mass = 0, mass = 0;
    ux_status st;
    size_t i;
    for (i = 0; i < count; ++i) {
        prior_mass += pw[i];
        if (ell[i] > top)
            top = ell[i];
    }
    if (!ux_finite(top)) { /* every likelihood zero (or one infinite, which cannot be weighed) */
        if ((st = ux_joint_reduce(out, px, pw, count, dim, eta, sources, rest)) != UX_OK)
            return st;
        if (log_evidence != NULL)
            *log_evidence = top;
        return UX_FALLBACK;
    }
    for (i = 0; i < count; ++i) {
        pw[i] = pw[i] * UX_EXP(ell[i] - top); /* the best atom keeps its weight: not all can underflow */
        mass += pw[i];
    }
    if ((st = ux_joint_reduce(out, px, pw, count, dim, eta, sources, rest)) != UX_OK)
        return st; /* zero weights are dropped there, the order kept */
    if (log_evidence != NULL)
        *log_evidence = top + UX_LOG(mass) - UX_LOG(prior_mass);
    return UX_OK;
}

ux_status ux_joint_bayes_laplace(ux_joint *out, const ux_joint_observation *obs, ux_real *px, ux_real *pw, size_t count,
                                 unsigned dim, const ux_joint_evidence *ev, unsigned eta, uint64_t sources,
                                 ux_workspace *ws, ux_real *log_evidence)
{
    ux_real omega[UX_MAX_ETA], *ell;
    ux_arena arena;
    ux_workspace rest;
    ux_status st;

    if ((st = check_call(out, obs, px, pw, count, dim, eta)) != UX_OK)
        return st;
    if ((st = evidence_weights(ev, obs->dim_obs, omega)) != UX_OK)
        return st;
    if ((st = ux_arena_open(&arena, ws)) != UX_OK)
        return st;
    if ((ell = ux_arena_reals(&arena, count)) == NULL)
        return UX_ERR_WORKSPACE;
    rest = ux_arena_rest(&arena);
    if (ev->count == 1 && ev->m == 1 && omega[0] == UX_R(1.0)) {
        st = joint_linear(out, obs, px, pw, count, dim, ev->z, eta, sources, ell, &rest, log_evidence);
        if (st != UX_FALLBACK)
            return st;
    }
    log_likelihoods(obs, px, pw, count, dim, ev, omega, ell);
    return joint_log_domain(out, px, pw, count, dim, ell, eta, sources, &rest, log_evidence);
}
