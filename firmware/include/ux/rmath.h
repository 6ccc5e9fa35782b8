/*
 * ux/rmath.h — elementary functions in the build's real type, for model code.
 *
 * A model written with these runs in single precision on the float build (no soft double on a
 * Cortex-M4F) and in double elsewhere, from one source.
 */
#ifndef UX_RMATH_H
#define UX_RMATH_H

#include <math.h>

#include "config.h"

#ifdef UX_REAL_FLOAT
static inline ux_real ux_rexp(ux_real v) { return expf(v); }
static inline ux_real ux_rlog(ux_real v) { return logf(v); }
static inline ux_real ux_rsqrt(ux_real v) { return sqrtf(v); }
static inline ux_real ux_rcos(ux_real v) { return cosf(v); }
static inline ux_real ux_rsin(ux_real v) { return sinf(v); }
#else
static inline ux_real ux_rexp(ux_real v) { return exp(v); }
static inline ux_real ux_rlog(ux_real v) { return log(v); }
static inline ux_real ux_rsqrt(ux_real v) { return sqrt(v); }
static inline ux_real ux_rcos(ux_real v) { return cos(v); }
static inline ux_real ux_rsin(ux_real v) { return sin(v); }
#endif

#endif /* UX_RMATH_H */
