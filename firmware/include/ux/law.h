/*
 * ux/law.h — parametric laws and their analytic quantization at η atoms.
 *
 * The quantization runs the TTR recursion on the continuous law itself (closed-form cdf and partial
 * first moment of each cell), so no sampling is involved and the result is deterministic.
 */
#ifndef UX_LAW_H
#define UX_LAW_H

#include "config.h"
#include "value.h"

/* The kinds (ux_law_kind, UX_LAW_GAUSSIAN …) and what a, b, c hold for each are in ux/facts.h. */
typedef struct {
    ux_law_kind kind;
    ux_real a, b, c;
} ux_law;

/* UX_OK when the parameters are finite and in the law's domain, else UX_ERR_DOMAIN (UX_ERR_ARG for an
 * unknown kind). */
ux_status ux_law_check(const ux_law *law);

/* The mean and variance of a law with a location–scale form (Gaussian, Laplace, uniform, exponential), in the
 * reference's formulas (uxemu.laws' mean() and var()): UX_OK, or UX_ERR_DOMAIN for another kind, invalid
 * parameters or a variance that overflows the real type. */
ux_status ux_law_moments(const ux_law *law, ux_real *mean, ux_real *var);

/* Quantize `law` at eta atoms (a power of two ≤ UX_MAX_ETA; 0 means UX_DEFAULT_ETA), fresh source. */
ux_status ux_quantize(const ux_law *law, unsigned eta, ux_value *out, ux_sources *src);

/* Convenience constructors (same as ux_quantize with the matching law). */
ux_status ux_gaussian(ux_value *out, ux_real mu, ux_real sigma, unsigned eta, ux_sources *src);
ux_status ux_laplace(ux_value *out, ux_real loc, ux_real scale, unsigned eta, ux_sources *src);
ux_status ux_uniform(ux_value *out, ux_real low, ux_real high, unsigned eta, ux_sources *src);
ux_status ux_exponential(ux_value *out, ux_real scale, unsigned eta, ux_sources *src);
ux_status ux_student_t(ux_value *out, ux_real df, ux_real loc, ux_real scale, unsigned eta, ux_sources *src);
ux_status ux_lognormal(ux_value *out, ux_real mu, ux_real sigma, unsigned eta, ux_sources *src);

/*
 * Log-density of the *standard* member of a kernel family at t: Gaussian −t²/2 − ½log 2π, Laplace
 * −|t| − log 2, Uniform on [−½, ½] 0 inside and −∞ outside. Other kinds give NaN.
 */
ux_real ux_std_logpdf(ux_law_kind family, ux_real t);

#endif /* UX_LAW_H */
