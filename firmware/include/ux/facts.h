// GENERATED from firmware/src/ux/facts.toml by scripts/codegen — do not edit by hand.
// Change the source and run `make generate`; tests fail when this file and its source drift apart.
#ifndef UX_FACTS_H
#define UX_FACTS_H

#define UX_MAX_LOG2_ETA 6 /* largest number of atoms of a value: η = 2^n with n ≤ UX_MAX_LOG2_ETA (UX_MAX_ETA = 2^n) */
#define UX_MAX_ETA (1 << UX_MAX_LOG2_ETA)
#define UX_DEFAULT_ETA 16 /* size used by constructors when the caller passes eta = 0 */
#define UX_MAX_ARGS 4 /* largest number of inputs of one lift (the outer product has up to η^k points) */
#define UX_MAX_DIM 4 /* largest number of components of a joint value */

/* Every fallible call returns one of these. Errors are negative so `status < 0` tests for failure. */
typedef int ux_status;
#define UX_OK 0 /* success */
#define UX_FALLBACK 1 /* BayesLaplace: every likelihood was zero; the result is the prior */
#define UX_NO_EVIDENCE 2 /* filter: a step without observation; the result is the prediction */
#define UX_REFOCUSED 3 /* filter: the first update re-quantized the prior over the likelihood's region */
#define UX_OUTLIER 4 /* filter: the observation failed the innovation gate (ux_filter_set_gate) */
#define UX_DEPARTED 5 /* filter: the posterior is far from the model's own since an outlier it could not follow */
#define UX_INCONSISTENT 6 /* filter: the recent innovations are larger than the predictions allow (ux_filter_nis) */
#define UX_ERR_ARG (-1) /* bad argument: NULL pointer, η not a power of two ≤ UX_MAX_ETA, ... */
#define UX_ERR_DOMAIN (-2) /* a parameter or a computed point is outside the law's domain or not finite */
#define UX_ERR_DEPENDENT (-3) /* two different inputs share a source: lift one function over the sources */
#define UX_ERR_WORKSPACE (-4) /* the workspace is too small or not aligned to 8 bytes */

/* The kind of a ux_law and what its fields a, b, c hold. */
typedef enum {
    UX_LAW_GAUSSIAN = 0, /* a = mean μ, b = standard deviation σ > 0: normal(loc, scale) */
    UX_LAW_LAPLACE = 1, /* a = loc, b = scale > 0 (density e^{−|x−loc|/scale} / 2·scale) */
    UX_LAW_UNIFORM = 2, /* a = low < b = high */
    UX_LAW_EXPONENTIAL = 3, /* a = scale > 0 = the mean (rate 1/scale), support [0, ∞) */
    UX_LAW_STUDENT_T = 4, /* a = df > 1, b = loc, c = scale > 0: loc + scale·T, T ~ t(df) */
    UX_LAW_LOGNORMAL = 5, /* a = μ, b = σ > 0 of the logarithm: lognormal(mean, sigma) */
    UX_LAW_POINT = 6 /* a = the value */
} ux_law_kind;

/* The filter's modes (numbering matches the link protocol). */
typedef enum {
    UX_MODE_REFINED = 0, /* the update weighs all η² predictive atoms and reduces once (the default) */
    UX_MODE_PAPER = 1, /* the prediction is reduced to η atoms first */
    UX_MODE_MIXTURE = 2, /* refined, the posterior taken from its quadrature density where it has one */
    UX_MODE_CELLS = 3 /* joint systems: the cell filter, at most η Gaussian cells moved by sigma points (ux/joint_cells.h) */
} ux_mode;

/* The observation model's forms. */
typedef enum {
    UX_LIK_KERNEL = 0, /* args = {x, inner noise atom} → location and scale of an outer noise family */
    UX_LIK_SAMPLER = 1 /* y = sampler({x, noise_1, …}) over the noises' outer product */
} ux_likelihood;

#endif /* UX_FACTS_H */
