/*
 * Argument reduction by π/2 in integer arithmetic (uxm_reduce.h): x·2/π is formed exactly as the product
 * of x's integer mantissa with a 256-bit window of the bits of 2/π, starting where the bits above give
 * only multiples of 4 (a whole number of turns). Every x, however large, is reduced with the same
 * relative accuracy, and the result does not depend on the platform's floating point at all.
 */
#include "uxm_reduce.h"

/* 2/π = Σ_j TWO_OVER_PI[j]·2^-32(j+1): enough words for the largest double, 2^1024 (the 8-word window
 * starts at word 30 at most). */
static const uint32_t TWO_OVER_PI[40] = {
    0xa2f9836e, 0x4e441529, 0xfc2757d1, 0xf534ddc0, 0xdb629599, 0x3c439041, 0xfe5163ab, 0xdebbc561,
    0xb7246e3a, 0x424dd2e0, 0x06492eea, 0x09d1921c, 0xfe1deb1c, 0xb129a73e, 0xe88235f5, 0x2ebb4484,
    0xe99c7026, 0xb45f7e41, 0x3991d639, 0x835339f4, 0x9c845f8b, 0xbdf9283b, 0x1ff897ff, 0xde05980f,
    0xef2f118b, 0x5a0a6d1f, 0x6d367ecf, 0x27cb09b7, 0x4f463f66, 0x9e5fea2d, 0x7527bac7, 0xebe5f17b,
    0x3d0739f7, 0x8a5292ea, 0x6bfb5fb1, 0x1f8d5d08, 0x56033046, 0xfc7b6bab, 0xf0cfbc20, 0x9af4361d,
};

/* π/2 = PIO2·2^-127, truncated to 128 bits. */
static const uint32_t PIO2[4] = {0x80dc1cd1, 0xc4c6628b, 0x2168c234, 0xc90fdaa2}; /* least significant first */

#define WINDOW 8 /* words of 2/π in the product */
#define PWORDS (WINDOW + 2)

/* out[0 .. na+nb) = a·b, words least significant first. */
static void mul_words(const uint32_t *a, int na, const uint32_t *b, int nb, uint32_t *out)
{
    for (int i = 0; i < na + nb; i++)
        out[i] = 0;
    for (int i = 0; i < na; i++) {
        uint64_t carry = 0;
        for (int j = 0; j < nb; j++) {
            uint64_t t = (uint64_t)a[i] * b[j] + out[i + j] + carry;
            out[i + j] = (uint32_t)t;
            carry = t >> 32;
        }
        out[i + nb] = (uint32_t)carry;
    }
}

static int bit_at(const uint32_t *p, int pos) { return (int)((p[pos >> 5] >> (pos & 31)) & 1u); }

static uint32_t word_or_0(const uint32_t *p, int n, int i) { return i >= 0 && i < n ? p[i] : 0u; }

/* The 32 bits of p at positions pos .. pos + 31 (positions outside p read as 0). */
static uint32_t bits32(const uint32_t *p, int n, int pos)
{
    int i = pos >= 0 ? pos / 32 : -((31 - pos) / 32), off = pos - 32 * i; /* floor division */
    uint32_t low = word_or_0(p, n, i) >> off;
    return off == 0 ? low : low | (word_or_0(p, n, i + 1) << (32 - off));
}

static uint64_t bits64(const uint32_t *p, int n, int pos)
{
    return (uint64_t)bits32(p, n, pos) | (uint64_t)bits32(p, n, pos + 32) << 32;
}

/* Clears the bits of p at positions ≥ s. */
static void clear_from(uint32_t *p, int n, int s)
{
    for (int i = s / 32; i < n; i++)
        p[i] &= i == s / 32 ? (1u << (s % 32)) - 1u : 0u;
}

/* The position of the highest set bit of a nonzero w: a binary search, five steps whatever w. */
static int top_of_word(uint32_t w)
{
    int b = 0;
    for (int half = 16; half > 0; half >>= 1)
        if (w >> (b + half))
            b += half;
    return b;
}

/* The position of p's highest set bit, or −1 for p = 0. */
static int top_bit(const uint32_t *p, int n)
{
    for (int i = n - 1; i >= 0; i--)
        if (p[i] != 0)
            return 32 * i + top_of_word(p[i]);
    return -1;
}

/* p ← 2^s − p over its low s bits (the distance to the next integer). */
static void negate_low(uint32_t *p, int n, int s)
{
    uint64_t borrow = 0;
    for (int i = 0; i < n; i++) {
        uint64_t t = (uint64_t)0 - p[i] - borrow;
        p[i] = (uint32_t)t;
        borrow = (t >> 32) & 1u;
    }
    clear_from(p, n, s);
}

int uxm_reduce_pio2(uint64_t m, int e, uint64_t mant[2], int *exp2, int *neg)
{
    /* Words j < j0 of 2/π give m·2^e·word·2^-32(j+1) ≡ 0 mod 4: skipped. */
    int j0 = e - 2 >= 0 ? (e - 2) / 32 : 0;
    uint32_t mw[2] = {(uint32_t)m, (uint32_t)(m >> 32)}, win[WINDOW], p[PWORDS];
    for (int i = 0; i < WINDOW; i++)
        win[i] = TWO_OVER_PI[j0 + WINDOW - 1 - i];
    mul_words(mw, mw[1] ? 2 : 1, win, WINDOW, p); /* a float's mantissa is one word */
    if (!mw[1])
        p[PWORDS - 1] = 0;
    int s = 32 * (j0 + WINDOW) - e; /* p's bit s is the units bit of x·2/π */
    int n = bit_at(p, s) + 2 * bit_at(p, s + 1);
    clear_from(p, PWORDS, s);
    *neg = bit_at(p, s - 1);
    if (*neg) { /* fraction ≥ 1/2: round n up, t = fraction − 1 */
        n = (n + 1) & 3;
        negate_low(p, PWORDS, s);
    }
    int top = top_bit(p, PWORDS);
    if (top < 0) {
        mant[0] = mant[1] = 0;
        *exp2 = 0;
        return n;
    }
    /* |t| = (hi·2^64 + lo)·2^(top − 127 − s), hi's top bit set; times π/2 = PIO2·2^-127. */
    uint64_t hi = bits64(p, PWORDS, top - 63), lo = bits64(p, PWORDS, top - 127);
    uint32_t tw[4] = {(uint32_t)lo, (uint32_t)(lo >> 32), (uint32_t)hi, (uint32_t)(hi >> 32)}, q[8];
    mul_words(tw, 4, PIO2, 4, q);
    int shift = bit_at(q, 255) ? 128 : 127; /* the product is in [2^254, 2^256) */
    mant[0] = bits64(q, 8, shift + 64);
    mant[1] = bits64(q, 8, shift);
    *exp2 = (top - 127 - s) + shift - 127;
    return n;
}
