// GENERATED from scripts/codegen/uxm_tables.py (π/2 in float pieces with mpmath) by scripts/codegen — do not edit by hand.
// Change the source and run `make generate`; tests fail when this file and its source drift apart.
#ifndef UX_UXM_TRIG_TABLE_H
#define UX_UXM_TRIG_TABLE_H

#define UXM_PIO2F_PIECES 6

/* π/2 = Σ UXM_PIO2F[i] + O(2^-73); each piece but the last has at most 8 significant bits. */
static const float UXM_PIO2F[UXM_PIO2F_PIECES] = {0x1.9200000000000p+0f, 0x1.fc00000000000p-12f, -0x1.5800000000000p-21f, 0x1.1000000000000p-30f, 0x1.6800000000000p-39f, 0x1.84698a0000000p-48f};
static const float UXM_TWO_OVER_PIF = 0x1.45f3060000000p-1f; /* 2/π rounded */

#endif /* UX_UXM_TRIG_TABLE_H */
