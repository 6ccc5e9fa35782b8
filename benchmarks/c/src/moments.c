/* Moments of the models' laws and the difference step of the Kalman-type baselines (uxbench/moments.h). */
#include <math.h>

#include "internal.h" /* ux_family_variance: the core's kernel-family variances */
#include "uxbench/kf.h"
#include "uxbench/moments.h"

/* Mean and variance of a law; 0 when they are finite, −1 when the law has none or is invalid. */
int uxb_law_moments(const ux_law *law, double *mean, double *var)
{
    double a = (double)law->a, b = (double)law->b, c = (double)law->c;
    if (ux_law_check(law) != UX_OK)
        return -1;
    switch (law->kind) {
        case UX_LAW_GAUSSIAN:
            *mean = a;
            *var = b * b;
            break;
        case UX_LAW_LAPLACE:
            *mean = a;
            *var = 2.0 * b * b;
            break;
        case UX_LAW_UNIFORM:
            *mean = 0.5 * (a + b);
            *var = (b - a) * (b - a) / 12.0;
            break;
        case UX_LAW_EXPONENTIAL:
            *mean = a;
            *var = a * a;
            break;
        case UX_LAW_STUDENT_T:
            if (!(a > 2.0))
                return -1;
            *mean = b;
            *var = c * c * a / (a - 2.0);
            break;
        case UX_LAW_LOGNORMAL:
            *mean = exp(a + 0.5 * b * b);
            *var = (exp(b * b) - 1.0) * exp(2.0 * a + b * b);
            break;
        case UX_LAW_POINT:
            *mean = a;
            *var = 0.0;
            break;
        default:
            return -1;
    }
    return isfinite(*mean) && isfinite(*var) ? 0 : -1;
}

/* Variance of the standard member of a kernel family (mean 0): the core's ux_family_variance for the
 * Gaussian, Laplace and uniform kernels the Kalman baselines take; −1 for other kinds. */
double uxb_family_var(ux_law_kind family)
{
    int known = family == UX_LAW_GAUSSIAN || family == UX_LAW_LAPLACE || family == UX_LAW_UNIFORM;
    return known ? (double)ux_family_variance(family) : -1.0;
}

/* The central-difference step for a variable at v with standard deviation sd (kf.h). */
double uxb_diff_step(double v, double sd)
{
    double rel = UXB_KF_DIFF_REL * sd, floor = UXB_KF_DIFF_FLOOR * (fabs(v) > 1.0 ? fabs(v) : 1.0);
    return rel > floor ? rel : floor;
}

uxb_ut_weights uxb_ut_weights_for(unsigned n)
{
    uxb_ut_weights u;
    double a2 = UXB_UKF_ALPHA * UXB_UKF_ALPHA;
    double lambda = a2 * UXB_UKF_KAPPA_PLUS_N - (double)n; /* λ = α²(n + κ) − n, κ = 3 − n */
    u.wm0 = lambda / ((double)n + lambda);
    u.wc0 = u.wm0 + 1.0 - a2 + UXB_UKF_BETA;
    u.wi = 1.0 / (2.0 * ((double)n + lambda));
    u.c = sqrt((double)n + lambda);
    return u;
}
