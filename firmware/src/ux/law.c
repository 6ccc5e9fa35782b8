/*
 * Parametric laws: cdf, survival function and partial first moment, and their analytic quantization.
 *
 * The formulas follow docs/semantics.md operation for operation (the reference evaluates the same
 * expressions in the same order), because a cell's mean decides where the next split falls.
 * Cells left of the median take their mass as F(b) − F(a), the others as S(a) − S(b), so tail cells
 * keep full relative precision (1 − F is never formed). A law that is loc + scale·(a standard law) is
 * quantized as the standard law's atoms scaled: those come from a table generated from the reference
 * (std_atoms.c), so the recursion runs only for Student-t and Lognormal.
 */
#include "betainc.h"
#include "internal.h"
#include "ux/law.h"
#include "ux/ttr.h"

#include <string.h>

#define SQRT2 UX_SQRT(UX_R(2.0))
#define INV_SQRT_2PI (UX_R(1.0) / UX_SQRT(UX_R(2.0) * UX_PI))

/* Standard normal density, cdf and survival function. */
static ux_real phi(ux_real t) { return isinf(t) ? UX_R(0.0) : INV_SQRT_2PI * UX_EXP(UX_R(-0.5) * t * t); }
static ux_real Phi(ux_real t) { return UX_R(0.5) * UX_ERFC(-t / SQRT2); }
static ux_real Q(ux_real t) { return UX_R(0.5) * UX_ERFC(t / SQRT2); }

static ux_real lower_bound(const ux_law *l)
{
    switch (l->kind) {
        case UX_LAW_UNIFORM:
            return l->a;
        case UX_LAW_EXPONENTIAL:
        case UX_LAW_LOGNORMAL:
            return UX_R(0.0);
        default:
            return -UX_INF;
    }
}

static ux_real upper_bound(const ux_law *l) { return l->kind == UX_LAW_UNIFORM ? l->b : UX_INF; }

static ux_real median(const ux_law *l)
{
    switch (l->kind) {
        case UX_LAW_UNIFORM:
            return UX_R(0.5) * (l->a + l->b);
        case UX_LAW_EXPONENTIAL:
            return UX_LOG_2 * l->a;
        case UX_LAW_STUDENT_T:
            return l->b;
        case UX_LAW_LOGNORMAL:
            return UX_EXP(l->a);
        default: /* Gaussian, Laplace */
            return l->a;
    }
}

/* Student-t: P(T ≤ z) for z ≤ 0 through I_x(ν/2, ½) with x = ν/(ν + z²). */
static ux_real t_lower_tail(ux_real nu, ux_real z)
{
    ux_real z2, d;
    if (isinf(z))
        return UX_R(0.0);
    z2 = z * z;
    d = nu + z2;
    return UX_R(0.5) * ux_betainc(UX_R(0.5) * nu, UX_R(0.5), nu / d, z2 / d);
}

/* Student-t standard density, and the antiderivative of z·f(z): −(ν + z²)/(ν − 1)·f(z). */
static ux_real t_density(ux_real nu, ux_real z)
{
    ux_real logc = UX_LGAMMA(UX_R(0.5) * (nu + UX_R(1.0))) - UX_LGAMMA(UX_R(0.5) * nu) - UX_R(0.5) * UX_LOG(nu * UX_PI);
    return UX_EXP(logc - UX_R(0.5) * (nu + UX_R(1.0)) * UX_LOG1P(z * z / nu));
}

static ux_real t_H(ux_real nu, ux_real z)
{
    if (isinf(z))
        return UX_R(0.0);
    return -(nu + z * z) / (nu - UX_R(1.0)) * t_density(nu, z);
}

/* Laplace antiderivative of z·f(z) for the standard law, zero at ±∞. */
static ux_real laplace_H(ux_real z)
{
    if (isinf(z))
        return UX_R(0.0);
    if (z < 0)
        return UX_R(0.5) * UX_EXP(z) * (z - UX_R(1.0));
    return UX_R(-0.5) * UX_EXP(-z) * (z + UX_R(1.0));
}

static ux_real lognormal_z(const ux_law *l, ux_real t)
{
    if (t <= 0)
        return -UX_INF;
    return (UX_LOG(t) - l->a) / l->b;
}

static ux_real cdf1(const ux_law *l, ux_real t)
{
    ux_real z, v;
    switch (l->kind) {
        case UX_LAW_GAUSSIAN:
            return Phi((t - l->a) / l->b);
        case UX_LAW_LAPLACE:
            z = (t - l->a) / l->b;
            return z < 0 ? UX_R(0.5) * UX_EXP(z) : UX_R(1.0) - UX_R(0.5) * UX_EXP(-z);
        case UX_LAW_UNIFORM:
            v = (t - l->a) / (l->b - l->a);
            v = v > 0 ? v : UX_R(0.0);
            return v < 1 ? v : UX_R(1.0);
        case UX_LAW_EXPONENTIAL:
            return t > 0 ? -UX_EXPM1(-t / l->a) : UX_R(0.0);
        case UX_LAW_STUDENT_T:
            z = (t - l->b) / l->c;
            return z <= 0 ? t_lower_tail(l->a, z) : UX_R(1.0) - t_lower_tail(l->a, -z);
        case UX_LAW_LOGNORMAL:
            return Phi(lognormal_z(l, t));
        default:
            return (ux_real)NAN;
    }
}

static ux_real sf1(const ux_law *l, ux_real t)
{
    ux_real z, v;
    switch (l->kind) {
        case UX_LAW_GAUSSIAN:
            return Q((t - l->a) / l->b);
        case UX_LAW_LAPLACE:
            z = (t - l->a) / l->b;
            return z < 0 ? UX_R(1.0) - UX_R(0.5) * UX_EXP(z) : UX_R(0.5) * UX_EXP(-z);
        case UX_LAW_UNIFORM:
            v = (l->b - t) / (l->b - l->a);
            v = v > 0 ? v : UX_R(0.0);
            return v < 1 ? v : UX_R(1.0);
        case UX_LAW_EXPONENTIAL:
            return t > 0 ? UX_EXP(-t / l->a) : UX_R(1.0);
        case UX_LAW_STUDENT_T:
            z = (t - l->b) / l->c;
            return z >= 0 ? t_lower_tail(l->a, -z) : UX_R(1.0) - t_lower_tail(l->a, z);
        case UX_LAW_LOGNORMAL:
            return Q(lognormal_z(l, t));
        default:
            return (ux_real)NAN;
    }
}

static ux_real mass(const ux_law *l, ux_real a, ux_real b)
{
    if (a < median(l))
        return cdf1(l, b) - cdf1(l, a);
    return sf1(l, a) - sf1(l, b);
}

/* ∫_a^b t dF(t). */
static ux_real partial(const ux_law *l, ux_real a, ux_real b)
{
    ux_real za, zb, lo, hi, scale, ea, eb;
    switch (l->kind) {
        case UX_LAW_GAUSSIAN:
            za = (a - l->a) / l->b;
            zb = (b - l->a) / l->b;
            return l->a * mass(l, a, b) + l->b * (phi(za) - phi(zb));
        case UX_LAW_LAPLACE:
            za = (a - l->a) / l->b;
            zb = (b - l->a) / l->b;
            return l->a * mass(l, a, b) + l->b * (laplace_H(zb) - laplace_H(za));
        case UX_LAW_UNIFORM:
            lo = l->a > a ? l->a : a;
            hi = l->b < b ? l->b : b;
            if (!(hi > lo))
                return UX_R(0.0);
            /* Factored: hi² − lo² would cancel away ~η|t|/(b − a) ulps on a narrow off-centre law. */
            return (hi - lo) * (hi + lo) / (UX_R(2.0) * (l->b - l->a));
        case UX_LAW_EXPONENTIAL:
            lo = a > 0 ? a : UX_R(0.0);
            /* H(t) = −e^{−t/scale}(t + scale), zero at +∞ */
            eb = isinf(b) ? UX_R(0.0) : -UX_EXP(-b / l->a) * (b + l->a);
            ea = isinf(lo) ? UX_R(0.0) : -UX_EXP(-lo / l->a) * (lo + l->a);
            return eb - ea;
        case UX_LAW_STUDENT_T:
            za = (a - l->b) / l->c;
            zb = (b - l->b) / l->c;
            return l->b * mass(l, a, b) + l->c * (t_H(l->a, zb) - t_H(l->a, za));
        case UX_LAW_LOGNORMAL:
            za = lognormal_z(l, a);
            zb = lognormal_z(l, b);
            scale = UX_EXP(l->a + UX_R(0.5) * (l->b * l->b));
            if (za < 0)
                return scale * (Phi(zb - l->b) - Phi(za - l->b));
            return scale * (Q(za - l->b) - Q(zb - l->b));
        default:
            return (ux_real)NAN;
    }
}

ux_status ux_law_check(const ux_law *law)
{
    if (law == NULL)
        return UX_ERR_ARG;
    switch (law->kind) {
        case UX_LAW_GAUSSIAN:
        case UX_LAW_LAPLACE:
        case UX_LAW_LOGNORMAL:
            return ux_finite(law->a) && ux_finite(law->b) && law->b > 0 ? UX_OK : UX_ERR_DOMAIN;
        case UX_LAW_UNIFORM:
            return ux_finite(law->a) && ux_finite(law->b) && law->a < law->b ? UX_OK : UX_ERR_DOMAIN;
        case UX_LAW_EXPONENTIAL:
            return ux_finite(law->a) && law->a > 0 ? UX_OK : UX_ERR_DOMAIN;
        case UX_LAW_STUDENT_T:
            return ux_finite(law->a) && law->a > 1 && ux_finite(law->b) && ux_finite(law->c) && law->c > 0
                       ? UX_OK
                       : UX_ERR_DOMAIN;
        case UX_LAW_POINT:
            return ux_finite(law->a) ? UX_OK : UX_ERR_DOMAIN;
        default:
            return UX_ERR_ARG;
    }
}

/* 1 and (loc, scale) when the law is loc + scale·S for the standard law S of its kind, else 0. */
static int location_scale(const ux_law *l, ux_real *loc, ux_real *scale)
{
    switch (l->kind) {
        case UX_LAW_GAUSSIAN:
        case UX_LAW_LAPLACE:
            *loc = l->a;
            *scale = l->b;
            return 1;
        case UX_LAW_UNIFORM:
            *loc = l->a;
            *scale = l->b - l->a;
            return 1;
        case UX_LAW_EXPONENTIAL:
            *loc = 0;
            *scale = l->a;
            return 1;
        default:
            return 0;
    }
}

ux_status ux_law_moments(const ux_law *law, ux_real *mean, ux_real *var)
{
    ux_real m, v;
    if (ux_law_check(law) != UX_OK)
        return UX_ERR_DOMAIN;
    switch (law->kind) {
        case UX_LAW_GAUSSIAN:
            m = law->a;
            v = law->b * law->b;
            break;
        case UX_LAW_LAPLACE:
            m = law->a;
            v = UX_R(2.0) * (law->b * law->b);
            break;
        case UX_LAW_UNIFORM:
            m = UX_R(0.5) * (law->a + law->b);
            v = (law->b - law->a) * (law->b - law->a) / UX_R(12.0);
            break;
        case UX_LAW_EXPONENTIAL:
            m = law->a;
            v = law->a * law->a;
            break;
        default:
            return UX_ERR_DOMAIN;
    }
    if (!ux_finite(m) || !ux_finite(v))
        return UX_ERR_DOMAIN; /* a law whose variance overflows the real type has none here */
    *mean = m;
    *var = v;
    return UX_OK;
}

/* loc + scale·(standard atoms) into x, w; neighbours that a tiny scale rounds together merge (masses
 * added). *out_count = the atoms written. */
static ux_status scale_standard(ux_real *ox, ux_real *ow, size_t *out_count, ux_real loc, ux_real scale,
                                const ux_real *sx, const ux_real *sw, size_t count)
{
    size_t i, k = 0;
    for (i = 0; i < count; ++i) {
        ux_real x = loc + scale * sx[i];
        if (!ux_finite(x))
            return UX_ERR_DOMAIN;
        if (k > 0 && ox[k - 1] == x) {
            ow[k - 1] = ow[k - 1] + sw[i];
        } else {
            ox[k] = x;
            ow[k] = sw[i];
            ++k;
        }
    }
    *out_count = k;
    return UX_OK;
}

size_t ux_quantize_scaled(const ux_law *law, unsigned eta, ux_real *x, ux_real *w)
{
    const ux_real *sx, *sw;
    ux_real loc, scale;
    size_t count;
    int n = ux_log2_eta(eta);
    if (n < 0 || ux_law_check(law) != UX_OK || !location_scale(law, &loc, &scale) ||
        !ux_std_atoms(law->kind, (unsigned)n, &sx, &sw))
        return 0;
    return scale_standard(x, w, &count, loc, scale, sx, sw, eta) == UX_OK ? count : 0;
}

ux_status ux_quantize(const ux_law *law, unsigned eta, ux_value *out, ux_sources *src)
{
    const ux_real *sx, *sw;
    ux_real loc, scale;
    /* Interval cells of the current level: cell c is (edge[c], edge[c + 1]). */
    ux_real edge[UX_MAX_ETA + 1], next[UX_MAX_ETA + 1];
    size_t cells = 1, c, k = 0;
    int n, level;
    ux_status st;

    if (out == NULL || src == NULL)
        return UX_ERR_ARG;
    if (eta == 0)
        eta = UX_DEFAULT_ETA;
    n = ux_log2_eta(eta);
    if (n < 0)
        return UX_ERR_ARG;
    st = ux_law_check(law);
    if (st != UX_OK)
        return st;
    if (law->kind == UX_LAW_POINT)
        return ux_point(out, law->a, eta, src);
    if (location_scale(law, &loc, &scale) && ux_std_atoms(law->kind, (unsigned)n, &sx, &sw)) {
        size_t count;
        st = scale_standard(out->x, out->w, &count, loc, scale, sx, sw, eta);
        if (st != UX_OK)
            return st;
        out->count = (uint32_t)count;
        out->eta = eta;
        out->sources = ux_sources_fresh(src);
        return UX_OK;
    }

    edge[0] = lower_bound(law);
    edge[1] = upper_bound(law);
    for (level = 0; level < n; ++level) {
        for (c = 0; c < cells; ++c) {
            ux_real a = edge[c], b = edge[c + 1];
            next[2 * c] = a;
            next[2 * c + 1] = partial(law, a, b) / mass(law, a, b);
        }
        next[2 * cells] = edge[cells];
        cells *= 2;
        memcpy(edge, next, (cells + 1) * sizeof(ux_real));
    }
    for (c = 0; c < cells; ++c) {
        ux_real a = edge[c], b = edge[c + 1], p = mass(law, a, b), x;
        if (!(p > 0)) /* cells the law gives no mass (or NaN) are dropped */
            continue;
        x = partial(law, a, b) / p;
        if (!ux_finite(x)) /* a law whose atoms lie beyond the real type's range (lognormal, μ = 1e155) */
            return UX_ERR_DOMAIN;
        if (k > 0 && !(x > out->x[k - 1])) { /* a scale so small that cell means round together (or even
                                                 * out of order): merge into the previous atom */
            out->w[k - 1] = out->w[k - 1] + p;
        } else {
            out->x[k] = x;
            out->w[k] = p;
            ++k;
        }
    }
    if (k == 0)
        return UX_ERR_DOMAIN;
    ux_normalise(out->w, k);
    out->count = (uint32_t)k;
    out->eta = eta;
    out->sources = ux_sources_fresh(src);
    return UX_OK;
}

static ux_status quantize_law(ux_value *out, ux_law_kind kind, ux_real a, ux_real b, ux_real c, unsigned eta,
                              ux_sources *src)
{
    ux_law l;
    l.kind = kind;
    l.a = a;
    l.b = b;
    l.c = c;
    return ux_quantize(&l, eta, out, src);
}

ux_status ux_gaussian(ux_value *out, ux_real mu, ux_real sigma, unsigned eta, ux_sources *src)
{
    return quantize_law(out, UX_LAW_GAUSSIAN, mu, sigma, 0, eta, src);
}

ux_status ux_laplace(ux_value *out, ux_real loc, ux_real scale, unsigned eta, ux_sources *src)
{
    return quantize_law(out, UX_LAW_LAPLACE, loc, scale, 0, eta, src);
}

ux_status ux_uniform(ux_value *out, ux_real low, ux_real high, unsigned eta, ux_sources *src)
{
    return quantize_law(out, UX_LAW_UNIFORM, low, high, 0, eta, src);
}

ux_status ux_exponential(ux_value *out, ux_real scale, unsigned eta, ux_sources *src)
{
    return quantize_law(out, UX_LAW_EXPONENTIAL, scale, 0, 0, eta, src);
}

ux_status ux_student_t(ux_value *out, ux_real df, ux_real loc, ux_real scale, unsigned eta, ux_sources *src)
{
    return quantize_law(out, UX_LAW_STUDENT_T, df, loc, scale, eta, src);
}

ux_status ux_lognormal(ux_value *out, ux_real mu, ux_real sigma, unsigned eta, ux_sources *src)
{
    return quantize_law(out, UX_LAW_LOGNORMAL, mu, sigma, 0, eta, src);
}

ux_real ux_std_logpdf(ux_law_kind family, ux_real t) { return ux_std_logpdf_inline(family, t); }
