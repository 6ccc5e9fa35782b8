/*
 * Time per call of the core's elementary functions (ux/uxm.h) and of the C library's, over the same
 * arguments and through the same kind of call (a function pointer): the speed table of the uxm study
 * (benchmarks/uxbench/uxm.py). Host only.
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime under -std=c11 */

#include <math.h>
#include <stddef.h>
#include <time.h>

#include "ux/uxm.h"

typedef double (*fn_d)(double);
typedef float (*fn_f)(float);

/* In the order of uxemu.libm.FUNCTIONS: exp, expm1, log, log1p, sin, cos. */
static const fn_d OURS_D[] = {uxm_exp, uxm_expm1, uxm_log, uxm_log1p, uxm_sin, uxm_cos};
static const fn_d LIBC_D[] = {exp, expm1, log, log1p, sin, cos};
static const fn_f OURS_F[] = {uxm_expf, uxm_expm1f, uxm_logf, uxm_log1pf, uxm_sinf, uxm_cosf};
static const fn_f LIBC_F[] = {expf, expm1f, logf, log1pf, sinf, cosf};

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Seconds per call of function `which`, the core's (libc 0) or the C library's (libc 1), in double
 * (x, float_build 0) or float (xf, float_build 1), over n arguments `rounds` times; −1 for a bad number. */
double uxb_libm_seconds_per_call(int which, int libc, int float_build, const double *x, const float *xf, size_t n,
                                 int rounds)
{
    if (which < 0 || which >= (int)(sizeof OURS_D / sizeof OURS_D[0]) || rounds < 1 || n == 0)
        return -1.0;
    volatile double sink = 0.0; /* keeps the calls */
    double t0 = now();
    for (int r = 0; r < rounds; r++) {
        if (float_build) {
            fn_f f = libc ? LIBC_F[which] : OURS_F[which];
            for (size_t i = 0; i < n; i++)
                sink = sink + (double)f(xf[i]);
        } else {
            fn_d f = libc ? LIBC_D[which] : OURS_D[which];
            for (size_t i = 0; i < n; i++)
                sink = sink + f(x[i]);
        }
    }
    return (now() - t0) / ((double)n * rounds);
}
