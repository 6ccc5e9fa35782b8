/*
 * uxm_vec.c — the core's elementary functions (ux/uxm.h) over an array, for the reference
 * (emulator/uxemu/libm.py): one call per array, not one per element through ctypes.
 *
 * Host builds only (libux.so, libux_float.so).
 */
#include <stddef.h>

#include "ux/uxm.h"

typedef double (*uxm_fn)(double);
typedef float (*uxm_fnf)(float);

/* In the order of uxemu.libm.FUNCTIONS. */
static const uxm_fn FUNCTIONS[] = {uxm_exp, uxm_expm1, uxm_log, uxm_log1p, uxm_sin, uxm_cos};
static const uxm_fnf FUNCTIONS_F[] = {uxm_expf, uxm_expm1f, uxm_logf, uxm_log1pf, uxm_sinf, uxm_cosf};

/* y[i] = f(x[i]) for the function numbered `which`; returns 0, or −1 for an unknown number. */
int uxm_apply(int which, const double *x, double *y, size_t n)
{
    if (which < 0 || which >= (int)(sizeof FUNCTIONS / sizeof FUNCTIONS[0]))
        return -1;
    for (size_t i = 0; i < n; i++)
        y[i] = FUNCTIONS[which](x[i]);
    return 0;
}

/* The float versions likewise (the accuracy study, benchmarks/uxbench/uxm.py). */
int uxm_apply_float(int which, const float *x, float *y, size_t n)
{
    if (which < 0 || which >= (int)(sizeof FUNCTIONS_F / sizeof FUNCTIONS_F[0]))
        return -1;
    for (size_t i = 0; i < n; i++)
        y[i] = FUNCTIONS_F[which](x[i]);
    return 0;
}
