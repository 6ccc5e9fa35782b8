/*
 * ux/stats.h — statistics of a value and sampling from it.
 *
 * All sums run sequentially over the atoms in order (docs/semantics.md), so results are reproducible
 * bit for bit on one platform and agree with the reference to rounding.
 */
#ifndef UX_STATS_H
#define UX_STATS_H

#include "config.h"
#include "value.h"

ux_real ux_mean(const ux_value *v); /* Σ w x */
ux_real ux_var(const ux_value *v); /* Σ w (x − mean)² */
ux_real ux_moment(const ux_value *v, unsigned k); /* Σ w x^k */
ux_real ux_central_moment(const ux_value *v, unsigned k); /* Σ w (x − mean)^k */
ux_real ux_cdf(const ux_value *v, ux_real t); /* P(X ≤ t) = Σ_{x ≤ t} w */
ux_real ux_sf(const ux_value *v, ux_real t); /* P(X > t) = Σ_{x > t} w */
/* Smallest x[i] with Σ_{j ≤ i} w[j] ≥ q; q outside [0, 1] or NaN gives NaN. */
ux_real ux_quantile(const ux_value *v, ux_real q);
void ux_support(const ux_value *v, ux_real *lo, ux_real *hi); /* (x[0], x[count − 1]) */

/* xoshiro256**: small, fast, and seeded by the caller, so sampling is reproducible. */
typedef struct {
    uint64_t s[4];
} ux_rng;

/* Seed the four state words from one 64-bit seed with splitmix64 (never all zero). */
void ux_rng_seed(ux_rng *rng, uint64_t seed);
uint64_t ux_rng_next(ux_rng *rng);
/* Uniform double in [0, 1): the top 53 bits of one draw times 2^−53. */
double ux_rng_uniform(ux_rng *rng);

/* One draw from the atoms: the first i with u < Σ_{j ≤ i} w[j] (last atom if rounding leaves none). */
ux_real ux_sample(const ux_value *v, ux_rng *rng);
void ux_sample_n(const ux_value *v, ux_rng *rng, ux_real *out, size_t n);

#endif /* UX_STATS_H */
