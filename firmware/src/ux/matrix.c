/*
 * Small dense matrices of the vector-state filters (d ≤ UX_MAX_DIM, row-major): the Cholesky factor and
 * the solves on it. Sums run in index order, as uxemu/_linalg.py's, so the reference gives the same bits.
 */
#include "internal.h"

#include <string.h>

/* Lower Cholesky factor L of the symmetric P (its lower triangle read): 1 when every pivot is positive; a
 * pivot that is not leaves its column 0 (a flat direction), and 0 is returned. */
int ux_cholesky(const ux_real *P, unsigned d, ux_real *L)
{
    int full = 1;
    unsigned i, j, k;
    memset(L, 0, (size_t)d * d * sizeof(ux_real));
    for (j = 0; j < d; ++j) {
        ux_real s = P[j * d + j];
        for (k = 0; k < j; ++k)
            s = s - L[j * d + k] * L[j * d + k];
        if (!(s > 0)) {
            full = 0;
            continue;
        }
        L[j * d + j] = UX_SQRT(s);
        for (i = j + 1; i < d; ++i) {
            ux_real t = P[i * d + j];
            for (k = 0; k < j; ++k)
                t = t - L[i * d + k] * L[j * d + k];
            L[i * d + j] = t / L[j * d + j];
        }
    }
    return full;
}

/* y = L⁻¹ b for the lower L with positive diagonal. */
void ux_forward(const ux_real *L, unsigned d, const ux_real *b, ux_real *y)
{
    unsigned a, k;
    for (a = 0; a < d; ++a) {
        ux_real t = b[a];
        for (k = 0; k < a; ++k)
            t = t - L[a * d + k] * y[k];
        y[a] = t / L[a * d + a];
    }
}

/* x = (L·Lᵀ)⁻¹ b: forward, then back substitution. */
void ux_solve(const ux_real *L, unsigned d, const ux_real *b, ux_real *x)
{
    ux_real y[UX_MAX_DIM];
    unsigned a, k;
    ux_forward(L, d, b, y);
    for (a = d; a-- > 0;) {
        ux_real t = y[a];
        for (k = a + 1; k < d; ++k)
            t = t - L[k * d + a] * x[k];
        x[a] = t / L[a * d + a];
    }
}

/* vᵀ·(L·Lᵀ)⁻¹·v: v's squared length in the metric of L·Lᵀ. */
ux_real ux_metric(const ux_real *L, unsigned d, const ux_real *v)
{
    ux_real y[UX_MAX_DIM], s = 0;
    unsigned a;
    ux_forward(L, d, v, y);
    for (a = 0; a < d; ++a)
        s = s + y[a] * y[a];
    return s;
}
