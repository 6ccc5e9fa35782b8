/*
 * ux/uxm.h — the elementary functions of the core, written once over IEEE +, −, ×, ÷ and exact scaling by
 * powers of two, so every target (glibc host, newlib firmware, any compiler without -ffast-math and with
 * -ffp-contract=off) returns the same bits for the same argument. The platform's libm differs in the last
 * place from one C library to another, which a chaotic filter carries on to other results.
 *
 * Double and float versions; each is within 1 ulp of the exact value, with
 * IEEE results on the special arguments: NaN gives NaN, exp(+inf) = +inf, exp(−inf) = 0, log(0) = −inf,
 * log(x < 0) = NaN, sin(±inf) = NaN; overflow gives inf, underflow rounds into the subnormals; −0 is kept
 * where the function is odd (expm1, log1p, sin).
 */
#ifndef UX_UXM_H
#define UX_UXM_H

double uxm_exp(double x);
double uxm_expm1(double x);
double uxm_log(double x);
double uxm_log1p(double x);
double uxm_sin(double x);
double uxm_cos(double x);

float uxm_expf(float x);
float uxm_expm1f(float x);
float uxm_logf(float x);
float uxm_log1pf(float x);
float uxm_sinf(float x);
float uxm_cosf(float x);

/* Measurement only: a build with -DUX_PLATFORM_LIBM calls the platform's libm in place of these
 * (the core and ux/rmath.h alike), so that `python -m uxbench libm_cycles` can price them on the same
 * commit. Such a build gives up "same bits on every target"; no shipped build defines it. */
#if defined(UX_PLATFORM_LIBM) && !defined(UXM_IMPLEMENTATION)
#include <math.h>
#define uxm_exp exp
#define uxm_expm1 expm1
#define uxm_log log
#define uxm_log1p log1p
#define uxm_sin sin
#define uxm_cos cos
#define uxm_expf expf
#define uxm_expm1f expm1f
#define uxm_logf logf
#define uxm_log1pf log1pf
#define uxm_sinf sinf
#define uxm_cosf cosf
#endif

#endif /* UX_UXM_H */
