"""Independent, loop-by-loop statements of the TTR properties, used as oracles by the tests."""

import numpy as np


def in_order_tree(x, w):
    """In-order sequence (leaf, parent, leaf, …) of the full binary tree over 2**n leaves."""
    n = len(x)
    assert n & (n - 1) == 0

    def build(lo, hi):
        if hi - lo == 1:
            return [x[lo]], w[lo], x[lo] * w[lo]
        mid = (lo + hi) // 2
        ls, lw, lm = build(lo, mid)
        rs, rw, rm = build(mid, hi)
        return ls + [(lm + rm) / (lw + rw)] + rs, lw + rw, lm + rm

    seq, _, _ = build(0, n)
    return np.array(seq)


def brute_w1(xa, wa, xb, wb):
    """W1 of two discrete laws by integrating |F_a − F_b| exactly between breakpoints."""
    pts = np.union1d(xa, xb)
    Fa = np.array([wa[xa <= p].sum() for p in pts])
    Fb = np.array([wb[xb <= p].sum() for p in pts])
    return float(np.sum(np.abs(Fa - Fb)[:-1] * np.diff(pts)))
