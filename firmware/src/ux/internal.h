/*
 * Internal helpers of the ux core: the math layer for both real types and workspace carving.
 * Not installed; only the core's own .c files include it.
 */
#ifndef UX_INTERNAL_H
#define UX_INTERNAL_H

#include <float.h>
#include <math.h>

#include "ux/bayes.h"
#include "ux/config.h"
#include "ux/filter.h"
#include "ux/law.h"
#include "ux/uxm.h"
#include "ux/value.h"
#include "ux/workspace.h"

/* Literals in the working precision, so the float build never drags in soft double arithmetic. */
#define UX_R(c) ((ux_real)(c))

/* exp, expm1, log, log1p, sin and cos are the core's own (ux/uxm.h): the same bits on every target. */
#ifdef UX_REAL_FLOAT
#define UX_EXP uxm_expf
#define UX_EXPM1 uxm_expm1f
#define UX_LOG uxm_logf
#define UX_LOG1P uxm_log1pf
#define UX_SQRT sqrtf
#define UX_ERFC erfcf
#define UX_LGAMMA lgammaf
#define UX_POW powf
#define UX_SIN uxm_sinf
#define UX_COS uxm_cosf
#define UX_FABS fabsf
#define UX_EPS 1.1920928955078125e-07f
#define UX_NORMAL_MIN FLT_MIN
#define UX_REAL_MAX FLT_MAX
#define UX_LINEAR_MIN 0x1p-90f /* see UX_LINEAR_MIN below */
#else
#define UX_EXP uxm_exp
#define UX_EXPM1 uxm_expm1
#define UX_LOG uxm_log
#define UX_LOG1P uxm_log1p
#define UX_SQRT sqrt
#define UX_ERFC erfc
#define UX_LGAMMA lgamma
#define UX_POW pow
#define UX_SIN uxm_sin
#define UX_COS uxm_cos
#define UX_FABS fabs
#define UX_EPS 2.220446049250313e-16
#define UX_NORMAL_MIN DBL_MIN /* the smallest normal real */
#define UX_REAL_MAX DBL_MAX
/* The smallest likelihood taken in the linear domain — a sum over inner-noise atoms, the largest
 * likelihood of a point update (bayes.c, joint_bayes.c, docs/semantics.md "BayesLaplace"): far above the
 * subnormals, so the terms that underflow to 0 (at most UX_MAX_ETA of them, each below the smallest normal)
 * change such a sum by less than 1e-30 of itself. */
#define UX_LINEAR_MIN 0x1p-900
#endif

#define UX_PI UX_R(3.141592653589793238462643383279502884)
#define UX_INF ((ux_real)INFINITY)

static inline int ux_finite(ux_real v) { return isfinite(v); }

/* For a helper of an inner loop that the compiler would otherwise call (a hint only: plain C elsewhere). */
#if defined(__GNUC__)
#define UX_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define UX_ALWAYS_INLINE inline
#endif

/* log 2 and log 2π as UX_LOG computes them (firmware/tests/test_uxm.c checks it): a C library's log of a
 * constant is folded at compile time, the core's own would be called at every point. */
#ifdef UX_REAL_FLOAT
#define UX_LOG_2 0x1.62e430p-1f
#define UX_LOG_2PI 0x1.d67f1cp+0f
#else
#define UX_LOG_2 0x1.62e42fefa39efp-1
#define UX_LOG_2PI 0x1.d67f1c864beb4p+0
#endif

/* ux_std_logpdf, inline for the likelihood loops that call it once per point. */
static inline ux_real ux_std_logpdf_inline(ux_law_kind family, ux_real t)
{
    switch (family) {
        case UX_LAW_GAUSSIAN:
            return UX_R(-0.5) * t * t - UX_R(0.5) * UX_LOG_2PI; /* a constant: log √(2π) */
        case UX_LAW_LAPLACE:
            return -UX_FABS(t) - UX_LOG_2;
        case UX_LAW_UNIFORM:
            return (t >= UX_R(-0.5) && t <= UX_R(0.5)) ? UX_R(0.0) : -UX_INF;
        default:
            return (ux_real)NAN;
    }
}

/*
 * Carving a workspace: a bump allocator over a copy of the caller's block. Every function that needs
 * scratch takes the caller's ux_workspace by pointer but carves from a local copy, so scratch is
 * released on return and the caller's block is never consumed.
 */
typedef struct {
    unsigned char *next;
    size_t left;
} ux_arena;

/* UX_OK, or UX_ERR_WORKSPACE when the block is missing or not aligned to 8 bytes. */
ux_status ux_arena_open(ux_arena *a, const ux_workspace *ws);
/* `count` reals, or NULL when the block is too small. */
ux_real *ux_arena_reals(ux_arena *a, size_t count);
/* `count` bytes, or NULL when the block is too small. */
uint8_t *ux_arena_bytes(ux_arena *a, size_t count);
/* The rest of the arena as a workspace (for calling another operation). */
ux_workspace ux_arena_rest(const ux_arena *a);

/* The standard atoms of a law kind at 2^n atoms (scripts/codegen/std_atoms.py, from the reference):
 * 1 with *x, *w set for a kind with a location–scale form, else 0. */
int ux_std_atoms(ux_law_kind kind, unsigned n, const ux_real **x, const ux_real **w);

/* A law with a location–scale form (Gaussian, Laplace, uniform, exponential) quantized at eta atoms
 * straight into x, w (as ux_quantize, without a ux_value): the atoms written, or 0 when the law has no
 * such form or is invalid. */
size_t ux_quantize_scaled(const ux_law *law, unsigned eta, ux_real *x, ux_real *w);

/* out ← (x, w / Σw) with `count` atoms built for size eta: the last step of every operation that
 * reduces atoms into a value. w is normalised in place. */
void ux_value_set(ux_value *out, const ux_real *x, ux_real *w, size_t count, unsigned eta, uint64_t sources);
/* *out = *in for the header and the atoms in use (count ≤ UX_MAX_ETA of them, a valid value's): its tail
 * past count is never read, and copying all UX_MAX_ETA atoms is a large part of a small η's predict. */
void ux_value_copy(ux_value *out, const ux_value *in);

/* log Σ exp(a_j), max-subtracted, summed in index order; −∞ when a term is NaN or the maximum is not
 * finite. The one log-sum-exp of BayesLaplace, shared with the host-only baselines. */
ux_real ux_logsumexp(const ux_real *a, size_t count);

/* 1 when every one of the n values is finite (inline: the cells' predict asks it of every sigma point). */
static inline int ux_all_finite(const ux_real *v, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i)
        if (!ux_finite(v[i]))
            return 0;
    return 1;
}
/* Lower Cholesky factor L of the symmetric d × d P (its lower triangle read): 1 when every pivot is positive; a
 * pivot that is not leaves its column 0, and 0 is returned (matrix.c). */
int ux_cholesky(const ux_real *P, unsigned d, ux_real *L);
/* y = L⁻¹ b for a lower L with positive diagonal. */
void ux_forward(const ux_real *L, unsigned d, const ux_real *b, ux_real *y);
/* x = (L·Lᵀ)⁻¹ b: forward, then back substitution. */
void ux_solve(const ux_real *L, unsigned d, const ux_real *b, ux_real *x);
/* vᵀ·(L·Lᵀ)⁻¹·v. */
ux_real ux_metric(const ux_real *L, unsigned d, const ux_real *v);

/* The innovation gate's sums (gate_sums.c): weight W, Σ w_i·d_i and Σ w_i·(S_i + d_i·d_iᵀ) with
 * d_i = zh_i − zh_0, in point order (about the first point's zh); zero-initialise, then add each point. */
typedef struct ux_gate_sums {
    ux_real W, z0[UX_MAX_DIM], s[UX_MAX_DIM], M[UX_MAX_DIM * UX_MAX_DIM];
    unsigned n;
} ux_gate_sums;
void ux_gate_add(ux_gate_sums *g, ux_real w, const ux_real *zh, const ux_real *S, unsigned mo);
/* A kernel's point into the sums: zh its location, S diagonal with fv·scale_c² (fv the family's variance; the
 * joint atom filter's points, weighed or about to be). S is the caller's mo × mo scratch, zeroed once per pass:
 * only its diagonal is written. Inline: it runs once per weighed point. */
static inline void ux_gate_add_kernel(ux_gate_sums *g, ux_real w, const ux_real *loc, const ux_real *scale, ux_real fv,
                                      ux_real *S, unsigned mo)
{
    unsigned c;
    for (c = 0; c < mo; ++c)
        S[c * mo + c] = (scale[c] * scale[c]) * fv;
    ux_gate_add(g, w, loc, S, mo);
}
/* The sums' predictive of z: its innovation ν = z − (zh_0 + s/W) and covariance S = M/W − (s/W)(s/W)ᵀ (mo, mo²);
 * 0 when a value is not finite. */
int ux_gate_innovation(const ux_gate_sums *g, const ux_real *z, unsigned mo, ux_real *nu, ux_real *S);
/* νᵀ·S⁻¹·ν of z against the sums' predictive (mean zh_0 + s/W, covariance M/W − (s/W)(s/W)ᵀ); NaN where that
 * covariance is not positive definite or a sum is not finite. */
ux_real ux_gate_ratio(const ux_gate_sums *g, const ux_real *z, unsigned mo);
/* The evidence tests every filter keeps (filter.h ux_evidence_tests; gate_sums.c): init's values; the gate
 * (> 0) and whether a failing observation is dropped; the consistency limit (> 0); an update's test ratio over
 * mo observation components recorded, returning whether it fails the gate, and folded into the consistency mean
 * (a NaN ratio, no test, leaves it: docs/semantics.md, "Consistency"), returning whether that exceeds the
 * limit. */
void ux_tests_init(ux_evidence_tests *t);
ux_status ux_tests_set_gate(ux_evidence_tests *t, double gate, int drop);
ux_status ux_tests_set_consistency(ux_evidence_tests *t, double limit);
int ux_tests_outlier(ux_evidence_tests *t, ux_real ratio);
int ux_tests_track(ux_evidence_tests *t, unsigned mo);

/* The variance of the kernel family's standard member (ux_std_logpdf's): 1, Laplace(0, 1)'s 2, the uniform on
 * [−½, ½]'s 1/12 (bayes.c: the scalar gate and linear update, joint_cells.c: the cells' observation noise). */
ux_real ux_family_variance(ux_law_kind family);

/* Validates evidence (1..UX_MAX_ETA finite observations, positive finite weights, m ≥ 1) and writes
 * its weights to omega (1/J each when the caller gave none). Shared with the host-only baselines. */
ux_status ux_evidence_weights(const ux_evidence *ev, ux_real *omega);

/* The linear-domain update's prior mass and largest likelihood: returns P = max(0, max_i p_i) and sets
 * *prior_mass = Σ_i w_i (in index order). The update weighs in the linear domain only when P ≥ UX_LINEAR_MIN
 * and finite (bayes.c, joint_bayes.c). */
static inline ux_real ux_linear_top(const ux_real *w, const ux_real *p, size_t count, ux_real *prior_mass)
{
    ux_real top = 0, mass = 0;
    size_t i;
    for (i = 0; i < count; ++i) {
        mass += w[i];
        if (p[i] > top)
            top = p[i];
    }
    *prior_mass = mass;
    return top;
}

/* ux_ttr given its level-0 sums W = Σ w_i and S = Σ (w_i·x_i), each product rounded, summed in index order
 * from 0 — exactly what ux_ttr computes first — by a caller that has them from a pass of its own. */
size_t ux_ttr_summed(ux_real *x, ux_real *w, size_t count, unsigned n, uint8_t *cell, ux_real W, ux_real S);
/* What BayesLaplace reads out for the smooth filter's open-edge test before TTR reuses its memory: the
 * likelihoods at four chosen prior indices — p_i in the linear domain (`linear`), ℓ_i in the log domain; ℓ_i is
 * log p_i (ux_probe_ell) — and the prior weights' sum Σ w_i in order. */
typedef struct {
    size_t at[4];
    ux_real lik[4], prior_mass;
    int linear;
} ux_probe;

static inline ux_real ux_probe_ell(const ux_probe *p, unsigned k) { return p->linear ? UX_LOG(p->lik[k]) : p->lik[k]; }

/* ux_bayes_laplace that also writes the weighed atoms' effective count (Σ w')²/Σ w'² to *ess (NaN on a
 * fallback): how many of the prior atoms the likelihood left to carry the posterior (docs/semantics.md,
 * "Filter", smooth refined); unless `spread` is NULL, their variance before TTR (ux_points_var; untouched
 * on a fallback); unless `probe` is NULL, the log-likelihoods it asks for (untouched on a fallback). */
ux_status ux_bayes_laplace_ess(ux_value *out, const ux_observation *obs, ux_real *px, ux_real *pw, size_t prior_count,
                               const ux_evidence *ev, unsigned eta, ux_sources *src, ux_workspace *ws,
                               ux_real *log_evidence, ux_real *ess, ux_real *spread, ux_probe *probe);

/* Variance of `count` weighted points (weights > 0, not necessarily normalised), sums in order:
 * Σ w·(x − m)² / Σ w, m = Σ w·x / Σ w. */
ux_real ux_points_var(const ux_real *x, const ux_real *w, size_t count);
/* Their mean Σ w·x / Σ w (sums in order). */
ux_real ux_points_mean(const ux_real *x, const ux_real *w, size_t count);

/* ux_reduce of points already known to be finite with weights > 0 (a lift's): without its ux_compact pass. */
ux_status ux_reduce_valid(ux_value *out, ux_real *x, ux_real *w, size_t count, unsigned eta, uint64_t sources,
                          ux_workspace *ws);

/* ℓ_i = m Σ_k ω_k log p(z_k | x_i) for `count` points, as BayesLaplace weighs them (a NaN is −∞).
 * Workspace: the likelihood form's scratch (UX_BAYES_*_WORKSPACE_BYTES without the ℓ array). */
ux_status ux_log_likelihoods(const ux_observation *obs, const ux_real *px, size_t count, const ux_evidence *ev,
                             ux_real *ell, const ux_workspace *ws);

#endif /* UX_INTERNAL_H */
