/*
 * Statistics of a value. Sums are sequential over the atoms in order (the survival function sums from
 * the top atom down, which keeps a small tail mass exact instead of forming 1 − cdf).
 */
#include "internal.h"
#include "ux/stats.h"

ux_real ux_mean(const ux_value *v)
{
    ux_real s = 0;
    uint32_t i;
    for (i = 0; i < v->count; ++i) {
        ux_real p = v->w[i] * v->x[i];
        s = s + p;
    }
    return s;
}

ux_real ux_var(const ux_value *v)
{
    ux_real m = ux_mean(v), s = 0;
    uint32_t i;
    for (i = 0; i < v->count; ++i) {
        ux_real d = v->x[i] - m, p = v->w[i] * (d * d);
        s = s + p;
    }
    return s;
}

/* Σ w (into *mass) and Σ w·x / Σ w of weighted points, in order. */
static ux_real points_mean(const ux_real *x, const ux_real *w, size_t count, ux_real *mass)
{
    ux_real moment = 0;
    size_t i;
    *mass = 0;
    for (i = 0; i < count; ++i) {
        ux_real p = w[i] * x[i];
        *mass = *mass + w[i];
        moment = moment + p;
    }
    return moment / *mass;
}

ux_real ux_points_mean(const ux_real *x, const ux_real *w, size_t count)
{
    ux_real mass;
    return points_mean(x, w, count, &mass);
}

ux_real ux_points_var(const ux_real *x, const ux_real *w, size_t count)
{
    ux_real mass, mean = points_mean(x, w, count, &mass), s = 0;
    size_t i;
    for (i = 0; i < count; ++i) {
        ux_real d = x[i] - mean, p = w[i] * (d * d);
        s = s + p;
    }
    return s / mass;
}

/* base^k as the reference computes it: the square as one product, other powers through pow. */
static ux_real power(ux_real base, unsigned k)
{
    if (k == 1)
        return base;
    if (k == 2)
        return base * base;
    return UX_POW(base, (ux_real)k);
}

static ux_real moment_about(const ux_value *v, ux_real c, int central, unsigned k)
{
    ux_real s = 0;
    uint32_t i;
    for (i = 0; i < v->count; ++i) {
        ux_real b = central ? v->x[i] - c : v->x[i];
        ux_real p = v->w[i] * power(b, k);
        s = s + p;
    }
    return s;
}

ux_real ux_moment(const ux_value *v, unsigned k) { return moment_about(v, 0, 0, k); }

ux_real ux_central_moment(const ux_value *v, unsigned k) { return moment_about(v, ux_mean(v), 1, k); }

ux_real ux_cdf(const ux_value *v, ux_real t)
{
    ux_real s = 0;
    uint32_t i;
    for (i = 0; i < v->count && v->x[i] <= t; ++i)
        s = s + v->w[i];
    return s;
}

ux_real ux_sf(const ux_value *v, ux_real t)
{
    ux_real s = 0;
    uint32_t i;
    for (i = v->count; i > 0 && v->x[i - 1] > t; --i)
        s = s + v->w[i - 1];
    return s;
}

ux_real ux_quantile(const ux_value *v, ux_real q)
{
    ux_real s = 0;
    uint32_t i;
    if (!(q >= 0 && q <= 1))
        return (ux_real)NAN;
    for (i = 0; i < v->count; ++i) {
        s = s + v->w[i];
        if (s >= q)
            return v->x[i];
    }
    return v->x[v->count - 1]; /* rounding left the total just below q */
}

void ux_support(const ux_value *v, ux_real *lo, ux_real *hi)
{
    *lo = v->x[0];
    *hi = v->x[v->count - 1];
}
