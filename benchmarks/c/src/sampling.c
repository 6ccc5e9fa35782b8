/* Randomness and weight handling shared by the particle filters (uxbench/sampling.h). */
#include <math.h>
#include <string.h>

#include "uxbench/sampling.h"

void uxb_gen_seed(uxb_gen *g, uint64_t seed)
{
    ux_rng_seed(&g->rng, seed);
    g->has_spare = 0;
    g->spare = 0;
}

/* Uniform in (0, 1): the generator's [0, 1) draw with 0 redrawn, so logarithms stay finite. */
static double open_uniform(uxb_gen *g)
{
    double v;
    do {
        v = ux_rng_uniform(&g->rng);
    } while (v == 0.0);
    return v;
}

double uxb_std_normal(uxb_gen *g)
{
    double a, b, s, f;
    if (g->has_spare) {
        g->has_spare = 0;
        return g->spare;
    }
    do {
        a = 2.0 * ux_rng_uniform(&g->rng) - 1.0;
        b = 2.0 * ux_rng_uniform(&g->rng) - 1.0;
        s = a * a + b * b;
    } while (s >= 1.0 || s == 0.0);
    f = sqrt(-2.0 * log(s) / s);
    g->spare = b * f;
    g->has_spare = 1;
    return a * f;
}

int uxb_can_sample(const ux_law *law)
{
    if (ux_law_check(law) != UX_OK)
        return 0;
    switch (law->kind) {
        case UX_LAW_GAUSSIAN:
        case UX_LAW_LAPLACE:
        case UX_LAW_UNIFORM:
        case UX_LAW_EXPONENTIAL:
        case UX_LAW_LOGNORMAL:
        case UX_LAW_POINT:
            return 1;
        default:
            return 0;
    }
}

double uxb_sample_law(const ux_law *law, uxb_gen *g)
{
    double v;
    switch (law->kind) {
        case UX_LAW_GAUSSIAN:
            return law->a + law->b * uxb_std_normal(g);
        case UX_LAW_LAPLACE:
            /* Inverse cdf on a symmetric uniform: |u| < ½ keeps 1 − 2|u| in (0, 1]. */
            v = open_uniform(g) - 0.5;
            return v < 0 ? law->a + law->b * log(1.0 + 2.0 * v) : law->a - law->b * log(1.0 - 2.0 * v);
        case UX_LAW_UNIFORM:
            return law->a + (law->b - law->a) * ux_rng_uniform(&g->rng);
        case UX_LAW_EXPONENTIAL:
            return -log(open_uniform(g)) * law->a;
        case UX_LAW_LOGNORMAL:
            return exp(law->a + law->b * uxb_std_normal(g));
        default: /* UX_LAW_POINT */
            return law->a;
    }
}

int uxb_normalise_log_weights(double *w, size_t n, double *log_evidence)
{
    double top = -INFINITY, sum = 0;
    size_t i;
    for (i = 0; i < n; ++i)
        if (w[i] > top) /* NaN never compares greater: it ends with weight 0 below */
            top = w[i];
    if (!isfinite(top)) {
        for (i = 0; i < n; ++i)
            w[i] = 1.0 / (double)n;
        *log_evidence = top;
        return 1;
    }
    for (i = 0; i < n; ++i) {
        w[i] = w[i] > -INFINITY ? exp(w[i] - top) : 0.0; /* NaN > −∞ is false: weight 0 */
        sum += w[i];
    }
    for (i = 0; i < n; ++i)
        w[i] /= sum;
    *log_evidence = top + log(sum / (double)n);
    return 0;
}

void uxb_resample_systematic(const double *x, const double *w, size_t n, size_t dim, double *to, uxb_gen *g)
{
    double v = ux_rng_uniform(&g->rng), cum = w[0];
    size_t i = 0, j;
    for (j = 0; j < n; ++j) {
        double point = (v + (double)j) / (double)n;
        while (i + 1 < n && cum <= point)
            cum += w[++i];
        memcpy(to + j * dim, x + i * dim, dim * sizeof(double));
    }
}

int uxb_name_index(const char *name, const char *const *names, int count)
{
    int i;
    for (i = 0; name != NULL && i < count; ++i)
        if (strcmp(name, names[i]) == 0)
            return i;
    return count;
}
