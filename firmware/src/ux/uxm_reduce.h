/*
 * Reduction of an argument of sin and cos by π/2 (uxm_reduce.c), shared by the double and float versions.
 */
#ifndef UX_UXM_REDUCE_H
#define UX_UXM_REDUCE_H

#include <stdint.h>

/* x·2/π = n + t, n an integer, |t| ≤ 1/2, for x = m·2^e > 0 (m < 2^53, −64 ≤ e ≤ 971): returns n mod 4 and
 * |t|·π/2 = (mant[0]·2^64 + mant[1])·2^*exp2 with mant[0]'s top bit set (mant 0, 0 for t = 0), its sign
 * (1: negative) in *neg. Exact to 2^-100 of |t| or better, for every double. */
int uxm_reduce_pio2(uint64_t m, int e, uint64_t mant[2], int *exp2, int *neg);

#endif /* UX_UXM_REDUCE_H */
