"""The tables of the core's exp and of its float sin/cos (ux/uxm.h).

exp: 2^(j/N) for j = 0 … N − 1 as a pair of reals each, hi + lo.

exp reduces x = (N·k + j)·ln2/N + r, |r| ≤ ln2/(2N), and returns 2^k · 2^(j/N) · e^r: the table holds
2^(j/N) to about twice its precision (hi the nearest real, lo the nearest real to what is left), so the
reduction to a short polynomial costs no accuracy. Double: N = 64; float: N = 32, whose reduction also
needs ln2/32 in two parts, the first short enough that n·hi is exact for every n (|n| < 2^13). Computed
with mpmath at 200 bits.

Float sin/cos: π/2 in PIO2F_PIECES floats (uxm_trig_table.h), each but the last of PIO2F_PIECE_BITS bits, for
the reduction of an argument below 2^16 in floats; with mpmath at 300 bits.
"""

from __future__ import annotations

from .common import ROOT, banner

SOURCE = "scripts/codegen/uxm_tables.py (2^(j/64) with mpmath)"
OUTPUT = ROOT / "firmware/src/ux/uxm_exp_table.h"
LOG2_N = 6  # the double table's size N = 2^LOG2_N: |r| ≤ ln2/(2N), so a degree-6 polynomial suffices
LOG2_NF = 5  # the float table's: a degree-4 polynomial
LN2_HI_BITS_F = 11  # significant bits of ln2/32's first part: n·hi exact for |n| < 2^13 (|x| ≤ 104)
SOURCE_TRIG = "scripts/codegen/uxm_tables.py (π/2 in float pieces with mpmath)"
OUTPUT_TRIG = ROOT / "firmware/src/ux/uxm_trig_table.h"
PIO2F_PIECES = 6  # the float sin/cos reduction's pieces of π/2: the last leaves less than 2^-72
PIO2F_PIECE_BITS = 8  # k·piece exact for |k| < 2^16, the float reduction's medium range


def _round(value, bits: int) -> float:
    """`value` (an mpf) rounded to nearest with `bits` significant bits."""
    import mpmath

    with mpmath.workprec(bits):
        return float(+value)


def exp2_table(log2_n: int = LOG2_N, bits: int = 53) -> list[tuple[float, float]]:
    """(hi, lo) of 2^(j/N), j = 0 … N − 1: hi = round(2^(j/N)), lo = round(2^(j/N) − hi), to `bits`."""
    import mpmath

    n = 1 << log2_n
    out = []
    with mpmath.workprec(200):
        for j in range(n):
            exact = mpmath.power(2, mpmath.mpf(j) / n)
            hi = _round(exact, bits)
            out.append((hi, _round(exact - hi, bits)))
    return out


def ln2_parts_float() -> tuple[float, float, float]:
    """(hi, lo, 1/that) of ln2/32 for the float exp: hi to LN2_HI_BITS_F bits, lo the rest to 24 bits."""
    import mpmath

    with mpmath.workprec(200):
        exact = mpmath.log(2) / (1 << LOG2_NF)
        hi = _round(exact, LN2_HI_BITS_F)
        return hi, _round(exact - hi, 24), _round(1 / exact, 24)


def pio2_pieces_float() -> list[float]:
    """π/2 as PIO2F_PIECES floats, each rounded to PIO2F_PIECE_BITS significant bits from what the ones
    before it leave, but the last, rounded to 24: k·piece is exact for |k| < 2^(24 − PIO2F_PIECE_BITS)."""
    import mpmath

    out = []
    with mpmath.workprec(300):
        rest = mpmath.pi / 2
        for i in range(PIO2F_PIECES):
            out.append(_round(rest, 24 if i == PIO2F_PIECES - 1 else PIO2F_PIECE_BITS))
            rest -= mpmath.mpf(out[-1])
    return out


def two_over_pi_float() -> float:
    import mpmath

    with mpmath.workprec(200):
        return _round(2 / mpmath.pi, 24)


def trig_header() -> str:
    pieces = ", ".join(f"{p.hex()}f" for p in pio2_pieces_float())
    return (
        banner(SOURCE_TRIG, "//")
        + "#ifndef UX_UXM_TRIG_TABLE_H\n#define UX_UXM_TRIG_TABLE_H\n\n"
        + f"#define UXM_PIO2F_PIECES {PIO2F_PIECES}\n\n"
        + f"/* π/2 = Σ UXM_PIO2F[i] + O(2^-73); each piece but the last has at most {PIO2F_PIECE_BITS} significant bits. */\n"
        + f"static const float UXM_PIO2F[UXM_PIO2F_PIECES] = {{{pieces}}};\n"
        + f"static const float UXM_TWO_OVER_PIF = {two_over_pi_float().hex()}f; /* 2/π rounded */\n\n"
        + "#endif /* UX_UXM_TRIG_TABLE_H */\n"
    )


def header() -> str:
    rows = ",\n".join(f"    {hi.hex()}, {lo.hex()}" for hi, lo in exp2_table())
    rows_f = ",\n".join(f"    {hi.hex()}f, {lo.hex()}f" for hi, lo in exp2_table(LOG2_NF, 24))
    hi_f, lo_f, inv_f = ln2_parts_float()
    return (
        banner(SOURCE, "//")
        + "#ifndef UX_UXM_EXP_TABLE_H\n#define UX_UXM_EXP_TABLE_H\n\n"
        + f"#define UXM_EXP_TABLE_BITS {LOG2_N}\n#define UXM_EXPF_TABLE_BITS {LOG2_NF}\n\n"
        + f"/* 2^(j/{1 << LOG2_N}) = UXM_EXP2[2j] + UXM_EXP2[2j + 1], j = 0 … {(1 << LOG2_N) - 1}. */\n"
        + f"static const double UXM_EXP2[{2 << LOG2_N}] = {{\n{rows},\n}};\n\n"
        + f"/* 2^(j/{1 << LOG2_NF}) = UXM_EXP2F[2j] + UXM_EXP2F[2j + 1] in float, j = 0 … {(1 << LOG2_NF) - 1}. */\n"
        + f"static const float UXM_EXP2F[{2 << LOG2_NF}] = {{\n{rows_f},\n}};\n\n"
        + f"/* ln2/{1 << LOG2_NF} = HI + LO, HI of {LN2_HI_BITS_F} bits; INV its inverse, rounded. */\n"
        + f"static const float UXM_LN2_32_HIF = {hi_f.hex()}f, UXM_LN2_32_LOF = {lo_f.hex()}f, "
        + f"UXM_INV_LN2_32F = {inv_f.hex()}f;\n\n"
        + "#endif /* UX_UXM_EXP_TABLE_H */\n"
    )


def outputs() -> dict:
    return {OUTPUT: header(), OUTPUT_TRIG: trig_header()}
