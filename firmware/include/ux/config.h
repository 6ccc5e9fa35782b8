/*
 * ux/config.h — build-time configuration and status codes of the ux core.
 *
 * The core is portable C11 with no allocation, no I/O and no global mutable state: every call takes
 * its inputs, its outputs and (when it needs scratch memory) a caller-provided workspace.
 */
#ifndef UX_CONFIG_H
#define UX_CONFIG_H

#include <stddef.h>
#include <stdint.h>

/*
 * The real type. Double by default; define UX_REAL_FLOAT for cores whose FPU is single precision only
 * (Cortex-M4F), where double arithmetic would be emulated in software.
 */
#ifdef UX_REAL_FLOAT
typedef float ux_real;
#define UX_REAL_BYTES 4
#else
typedef double ux_real;
#define UX_REAL_BYTES 8
#endif

/* Largest number of atoms of a value: η = 2^n with n ≤ UX_MAX_LOG2_ETA. */
#define UX_MAX_LOG2_ETA 6
#define UX_MAX_ETA (1 << UX_MAX_LOG2_ETA)

/* Size used by constructors when the caller passes eta = 0. */
#define UX_DEFAULT_ETA 16

/* Largest number of inputs of one lift (the outer product has up to η^k points). */
#define UX_MAX_ARGS 4

/* Every fallible call returns one of these. Errors are negative so `status < 0` tests for failure. */
typedef int ux_status;
#define UX_OK 0
#define UX_FALLBACK 1          /* BayesLaplace: every likelihood was zero; the result is the prior */
#define UX_NO_EVIDENCE 2       /* filter: a step without observation; the result is the prediction */
#define UX_REFOCUSED 3         /* filter: the first update re-quantized the prior over the likelihood's region */
#define UX_OUTLIER 4           /* filter: the observation failed the innovation gate (ux_filter_set_gate) */
#define UX_DEPARTED 5          /* filter: the posterior is far from the model's own since an outlier it could not follow */
#define UX_ERR_ARG (-1)        /* bad argument: NULL pointer, η not a power of two ≤ UX_MAX_ETA, ... */
#define UX_ERR_DOMAIN (-2)     /* a parameter or a computed point is outside the law's domain or not finite */
#define UX_ERR_DEPENDENT (-3)  /* two different inputs share a source: lift one function over the sources */
#define UX_ERR_WORKSPACE (-4)  /* the workspace is too small or not aligned to 8 bytes */

/* log2 of a power of two η in 1..UX_MAX_ETA, or -1 when η is not one. */
int ux_log2_eta(unsigned eta);

#endif /* UX_CONFIG_H */
