/*
 * ux/rmath.h — elementary functions in the build's real type, for model code.
 *
 * A model written with these runs in single precision on the float build (no soft double on a
 * Cortex-M4F) and in double elsewhere, from one source. exp, log, cos and sin are the core's own
 * (ux/uxm.h): a model gets the same bits on every target.
 */
#ifndef UX_RMATH_H
#define UX_RMATH_H

#include <math.h>

#include "config.h"
#include "uxm.h"

#ifdef UX_REAL_FLOAT
static inline ux_real ux_rexp(ux_real v) { return uxm_expf(v); }
static inline ux_real ux_rlog(ux_real v) { return uxm_logf(v); }
static inline ux_real ux_rsqrt(ux_real v) { return sqrtf(v); }
static inline ux_real ux_rcos(ux_real v) { return uxm_cosf(v); }
static inline ux_real ux_rsin(ux_real v) { return uxm_sinf(v); }
#else
static inline ux_real ux_rexp(ux_real v) { return uxm_exp(v); }
static inline ux_real ux_rlog(ux_real v) { return uxm_log(v); }
static inline ux_real ux_rsqrt(ux_real v) { return sqrt(v); }
static inline ux_real ux_rcos(ux_real v) { return uxm_cos(v); }
static inline ux_real ux_rsin(ux_real v) { return uxm_sin(v); }
#endif

#endif /* UX_RMATH_H */
