"""TTR(n) of a piecewise-linear density (docs/semantics.md, "Filter", mixture mode), as ux/ttr_linear.c.

The mean-split recursion runs on the continuous law through equally spaced nodes: a cell's mass and mean
are exact integrals of the interpolant, so they move continuously with the node values and spacing. The
loops are scalar Python floats on purpose: each cell's sums run left to right over its pieces in exactly
the C core's order of operations, so both give the same bits.
"""

from __future__ import annotations

import math

import numpy as np


def _linear_at(e, k: int, t_k: float, t_next: float, h: float, s: float) -> float:
    """The interpolant on interval k at s: the node's own value at either node."""
    if s == t_k:
        return e[k]
    if s == t_next:
        return e[k + 1]
    return e[k] + (e[k + 1] - e[k]) * ((s - t_k) / h)


def _cell_integrals(
    e, nodes: int, lo: float, h: float, a: float, b: float, k: int, second: bool = False, lumps=(), closed=False
):
    """Mass and first moment about a of the interpolant over [a, b] (0 outside [lo, hi], hi the last node) and of
    the lumps (at, mass, spread) with a ≤ at < b (at = b too in a closed cell, the last of its level),
    starting from interval k (advanced to the one holding a); returns (mass, moment, the interval holding b), with
    second=True (mass, moment, second moment about a, interval): on a piece with c = s − a, ∫ (c + u)² f =
    fs·(c²d + cd² + d³/3) + (fe − fs)·(c²d/2 + 2cd²/3 + d³/4), a lump's p·(c² + spread), as ux/ttr_linear.c."""
    while k + 2 < nodes and lo + float(k + 1) * h <= a:
        k += 1
    hi = lo + float(nodes - 1) * h
    s, m, g, m2 = (a if a > lo else lo), 0.0, 0.0, 0.0
    end_at = b if b < hi else hi
    while True:
        t_k, t_next = lo + float(k) * h, lo + float(k + 1) * h
        last = k + 2 >= nodes or end_at <= t_next
        end = end_at if last else t_next
        if end > s:
            fs, fe = _linear_at(e, k, t_k, t_next, h, s), _linear_at(e, k, t_k, t_next, h, end)
            d = end - s
            pm = (fs + fe) * 0.5 * d
            m = m + pm
            g = g + (pm * (s - a) + d * d * (fs + fe + fe) / 6.0)
            if second:
                c = s - a
                flat = c * c * d + c * d * d + d * d * d / 3.0
                ramp = c * c * d * 0.5 + 2.0 * c * d * d / 3.0 + d * d * d * 0.25
                m2 = m2 + (fs * flat + (fe - fs) * ramp)
        if last:
            break
        s = end
        k += 1
    m, g, m2 = _lump_integrals(lumps, a, b, closed, m, g, m2)
    return (m, g, m2, k) if second else (m, g, k)


def _lump_integrals(lumps, a: float, b: float, closed: bool, m: float, g: float, m2: float):
    """The cell's sums plus those of the lumps in it, in lump order (ux/ttr_linear.c lump_integrals)."""
    for at, p, spread in lumps:
        if at >= a and (at < b or (closed and at == b)):
            c = at - a
            m = m + p
            g = g + p * c
            m2 = m2 + p * (c * c + spread)
    return m, g, m2


def _cell_spread(mass: float, moment: float, second: float) -> float:
    """The variance about its own mean of a cell with mass > 0 (moments about its left edge); 0 should
    rounding leave it negative."""
    off = moment / mass
    v = second / mass - off * off
    return v if v > 0 else 0.0


def _cell_mean(a: float, b: float, mass: float, moment: float) -> float:
    if not mass > 0:
        return a  # a cell without mass splits at its left edge
    mu = a + moment / mass
    return a if mu < a else (b if mu > b else mu)


def ttr_linear(e, lo: float, h: float, n: int, spreads: bool = False, lumps=()):
    """TTR(n) of the interpolant through (lo + k·h, e[k]) and the lumps (at, mass, spread) beside it, each a mass
    at one point with its own spread (ux/ttr.h ux_ttr_linear_lumps): positions and masses (not renormalised) of
    the cells with mass, in increasing position; with spreads=True also each cell's variance about its mean."""
    e = [float(v) for v in np.asarray(e, dtype=np.float64).ravel()]
    nodes, lo, h = len(e), float(lo), float(h)
    if nodes < 2:
        raise ValueError("a piecewise-linear density needs at least two nodes")
    lumps = [(float(a), float(p), float(v)) for a, p, v in lumps]
    first, last = lo, lo + float(nodes - 1) * h
    for at, _, _ in lumps:
        first, last = (at if at < first else first), (at if at > last else last)
    edges = [first, last]
    for _ in range(n):
        k, split = 0, []
        for i, (a, b) in enumerate(zip(edges[:-1], edges[1:])):
            mass, moment, k = _cell_integrals(e, nodes, lo, h, a, b, k, lumps=lumps, closed=i == len(edges) - 2)
            split += [a, _cell_mean(a, b, mass, moment)]
        edges = split + [edges[-1]]
    xs, ws, vs, k = [], [], [], 0
    for i, (a, b) in enumerate(zip(edges[:-1], edges[1:])):
        mass, moment, second, k = _cell_integrals(
            e, nodes, lo, h, a, b, k, second=True, lumps=lumps, closed=i == len(edges) - 2
        )
        if not mass > 0:
            continue
        x, v = _cell_mean(a, b, mass, moment), _cell_spread(mass, moment, second)
        if xs and x == xs[-1]:  # cells narrower than rounding: one atom, as TTR merges equal positions
            total = ws[-1] + mass
            if spreads:
                vs[-1] = (ws[-1] * vs[-1] + mass * v) / total
            ws[-1] = total
            continue
        xs.append(x)
        ws.append(mass)
        if spreads:
            vs.append(v)
    return (np.array(xs), np.array(ws), np.array(vs)) if spreads else (np.array(xs), np.array(ws))


def remove_interpolation_variance(x, w, h: float) -> np.ndarray:
    """The linear interpolant through the nodes is their law convolved with a triangle of width h, which
    adds h²/6 to the variance: atoms x with normalised weights w, shrunk about their mean to take it out
    again (to no spread at all should they hold less), as ux/filter.c. Sums in atom order."""
    xs, ws = [float(v) for v in x], [float(v) for v in w]
    mean = var = 0.0
    for xi, wi in zip(xs, ws):
        mean = mean + wi * xi
    for xi, wi in zip(xs, ws):
        var = var + wi * ((xi - mean) * (xi - mean))
    if not var > 0:
        return np.array(xs)
    scale = var - h * h / 6.0
    scale = math.sqrt(scale / var) if scale > 0 else 0.0
    return np.array([mean + (xi - mean) * scale for xi in xs])
