/*
 * xoshiro256** (Blackman & Vigna), seeded through splitmix64, and sampling from a value's atoms.
 * The generator state belongs to the caller, so two runs with the same seed draw the same numbers.
 */
#include "internal.h"
#include "ux/stats.h"

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static uint64_t splitmix64(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

void ux_rng_seed(ux_rng *rng, uint64_t seed)
{
    int i;
    for (i = 0; i < 4; ++i)
        rng->s[i] = splitmix64(&seed);
    /* splitmix64 is a bijection of its counter, so four consecutive outputs are never all zero. */
}

uint64_t ux_rng_next(ux_rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5u, 7) * 9u;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double ux_rng_uniform(ux_rng *rng) { return (double)(ux_rng_next(rng) >> 11) * 0x1.0p-53; }

ux_real ux_sample(const ux_value *v, ux_rng *rng)
{
    double u = ux_rng_uniform(rng), s = 0;
    uint32_t i;
    for (i = 0; i + 1 < v->count; ++i) {
        s += (double)v->w[i];
        if (u < s)
            return v->x[i];
    }
    return v->x[v->count - 1];
}

void ux_sample_n(const ux_value *v, ux_rng *rng, ux_real *out, size_t n)
{
    size_t i;
    for (i = 0; i < n; ++i)
        out[i] = ux_sample(v, rng);
}
