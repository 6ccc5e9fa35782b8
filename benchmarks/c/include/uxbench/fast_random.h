/*
 * uxbench/fast_random.h — the tuned baselines' random numbers, inlined: xoshiro256** on the core's ux_rng
 * state (one seed, one stream) and standard normals by a 256-layer ziggurat (Marsaglia & Tsang 2000; tables
 * as in Doornik's ZIGNOR), ~99 % of draws one comparison. Call uxb_zig_init() once before the first normal.
 */
#ifndef UXBENCH_FAST_RANDOM_H
#define UXBENCH_FAST_RANDOM_H

#include <math.h>
#include <stdint.h>

#include "ux/stats.h"

static inline uint64_t uxb_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline uint64_t uxb_fast_next(ux_rng *r)
{
    uint64_t *s = r->s, result = uxb_rotl(s[1] * 5u, 7) * 9u, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = uxb_rotl(s[3], 45);
    return result;
}

static inline double uxb_fast_uniform(ux_rng *r) { return (double)(uxb_fast_next(r) >> 11) * 0x1p-53; } /* [0, 1) */

/* The ziggurat's layer edges x_0 > x_1 = R > … > x_256 = 0 and exp(−x²/2) there (uxb_zig_init builds them). */
extern double uxb_zig_x[257], uxb_zig_f[257];
void uxb_zig_init(void);
/* A draw that missed the fast test: the wedge's rejection test and the tail. */
double uxb_zig_slow(ux_rng *r, unsigned i, double u, double x);

/* One standard normal: 8 bits pick the layer, the top 53 a signed uniform. */
static inline double uxb_fast_normal(ux_rng *r)
{
    uint64_t b = uxb_fast_next(r);
    unsigned i = (unsigned)(b & 0xffu);
    double u = (double)(b >> 11) * 0x1p-52 - 1.0, x = u * uxb_zig_x[i];
    return fabs(x) < uxb_zig_x[i + 1] ? x : uxb_zig_slow(r, i, u, x);
}

#endif /* UXBENCH_FAST_RANDOM_H */
