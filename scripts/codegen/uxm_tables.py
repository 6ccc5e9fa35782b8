"""The table of the core's exp (ux/uxm.h): 2^(j/N) for j = 0 … N − 1 as a pair of doubles each, hi + lo.

exp reduces x = (64·k + j)·ln2/64 + r, |r| ≤ ln2/128, and returns 2^k · 2^(j/64) · e^r: the table holds
2^(j/64) to about 106 bits (hi the nearest double, lo the nearest double to what is left), so the
reduction to a short polynomial costs no accuracy. Computed with mpmath at 200 bits.
"""

from __future__ import annotations

from .common import ROOT, banner

SOURCE = "scripts/codegen/uxm_tables.py (2^(j/64) with mpmath)"
OUTPUT = ROOT / "firmware/src/ux/uxm_exp_table.h"
LOG2_N = 6  # the table's size N = 2^LOG2_N: |r| ≤ ln2/(2N), so a degree-6 polynomial suffices


def exp2_table(log2_n: int = LOG2_N) -> list[tuple[float, float]]:
    """(hi, lo) of 2^(j/N), j = 0 … N − 1: hi = round(2^(j/N)), lo = round(2^(j/N) − hi)."""
    import mpmath

    n = 1 << log2_n
    out = []
    with mpmath.workprec(200):
        for j in range(n):
            exact = mpmath.power(2, mpmath.mpf(j) / n)
            hi = float(exact)
            out.append((hi, float(exact - hi)))
    return out


def header() -> str:
    rows = ",\n".join(f"    {hi.hex()}, {lo.hex()}" for hi, lo in exp2_table())
    return (
        banner(SOURCE, "//")
        + "#ifndef UX_UXM_EXP_TABLE_H\n#define UX_UXM_EXP_TABLE_H\n\n"
        + f"#define UXM_EXP_TABLE_BITS {LOG2_N}\n\n"
        + f"/* 2^(j/{1 << LOG2_N}) = UXM_EXP2[2j] + UXM_EXP2[2j + 1], j = 0 … {(1 << LOG2_N) - 1}. */\n"
        + f"static const double UXM_EXP2[{2 << LOG2_N}] = {{\n{rows},\n}};\n\n"
        + "#endif /* UX_UXM_EXP_TABLE_H */\n"
    )


def outputs() -> dict:
    return {OUTPUT: header()}
