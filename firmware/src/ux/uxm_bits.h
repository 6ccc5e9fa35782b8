/*
 * Bit-level helpers of the elementary functions (uxm_*.c): exact powers of two and the words of a real.
 * memcpy, not a union or a pointer cast, is the portable way to read a real's bits in C.
 */
#ifndef UX_UXM_BITS_H
#define UX_UXM_BITS_H

#include <float.h>
#include <stdint.h>
#include <string.h>

/* Each operation must round to its own type once: an x87 evaluating in extended precision would round
 * twice and give other bits. */
#if defined(FLT_EVAL_METHOD) && FLT_EVAL_METHOD != 0
#error "ux/uxm needs FLT_EVAL_METHOD 0 (SSE2 on x86: -msse2 -mfpmath=sse)"
#endif

static inline uint64_t uxm_bits(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline double uxm_from_bits(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static inline uint32_t uxm_bitsf(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline float uxm_from_bitsf(uint32_t u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* 2^n for a normal power, −1022 ≤ n ≤ 1023 (float: −126 ≤ n ≤ 127). */
static inline double uxm_pow2(int n) { return uxm_from_bits((uint64_t)(n + 1023) << 52); }
static inline float uxm_pow2f(int n) { return uxm_from_bitsf((uint32_t)(n + 127) << 23); }

/* y·2^k rounded once, for 0.5 ≤ |y| < 2 and −1076 ≤ k ≤ 1025: the first product is exact, so a result in
 * the subnormals is rounded by the second only, and one past the largest real overflows to inf. */
static inline double uxm_scale(double y, int k)
{
    if (k > 1000)
        return (y * uxm_pow2(k - 1000)) * uxm_pow2(1000);
    if (k < -1000)
        return (y * uxm_pow2(k + 1000)) * uxm_pow2(-1000);
    return y * uxm_pow2(k);
}

static inline float uxm_scalef(float y, int k)
{
    if (k > 100)
        return (y * uxm_pow2f(k - 100)) * uxm_pow2f(100);
    if (k < -100)
        return (y * uxm_pow2f(k + 100)) * uxm_pow2f(-100);
    return y * uxm_pow2f(k);
}

/* Rounds v to the nearest integer (ties to even) for |v| < 2^51 (float: 2^22): adding and removing
 * 1.5·2^52 leaves no fraction bits, with IEEE rounding and no library call. */
static inline double uxm_round(double v) { return (v + 0x1.8p52) - 0x1.8p52; }
static inline float uxm_roundf(float v) { return (v + 0x1.8p23f) - 0x1.8p23f; }

#endif /* UX_UXM_BITS_H */
