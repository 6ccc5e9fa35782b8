"""Exact laws of the propagation benchmark's outputs, tabulated, and W1 of a reconstruction against them.

A 10⁶-sample Monte Carlo ground truth is itself ≈ 10⁻³ σ away from the true law in W1 — as large as
the TTR-binned reconstruction's own W1 at η ≥ 16 — so the benchmark measures against the exact law
instead. Every output here has the form Y = g(U, V) where, given the other inputs U, the cdf of Y in
one input V has a closed form (V Gaussian, Laplace or uniform, entering g monotonically). The exact
cdf is then a one- or two-dimensional integral over U,

    F(y) = E_U[ P(g(U, V) ≤ y | U) ],

computed with Gauss rules matched to U's law (Hermite for a Gaussian, Laguerre on each side of a
Laplace's centre, Legendre for a uniform), so each integrand is analytic on each piece. The cdf and its
density are tabulated on a grid y = m + s·sinh(t), uniform in t (dense in the bulk, geometric in the
tails, reaching the ε = 1e-12 quantiles), with A(y) = ∫_{−∞}^{y} F added by the Hermite-corrected
trapezoid rule. `LawTable` (uxbench.mc_native) carries the table to C; `cdf` and `integrated_cdf`
evaluate its cubic Hermite interpolants here.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special

from .mc_native import LawTable

TAIL = 1e-12  # mass left outside the table on each side
GRID = 2049  # table nodes (1025 already agree with 8193 to 2·10⁻⁷ of every W1 measured)
SUBDIVIDE = 1024  # pieces per bin for ∫|F_rec − F| (error ∝ piece²: 256 and 1024 agree to 4·10⁻⁶ of W1)
LAGUERRE_MAX = 128  # Gauss–Laguerre nodes per side of a Laplace law


# -- the three input families ------------------------------------------------------------------------
def family_cdf(law, y):
    """cdf of ("gaussian", μ, σ), ("laplace", μ, b) or ("uniform", lo, hi) at y."""
    kind, a, b = law
    y = np.asarray(y, dtype=np.float64)
    if kind == "gaussian":
        return special.ndtr((y - a) / b)
    if kind == "laplace":
        z = (y - a) / b
        e = 0.5 * np.exp(-np.abs(z))
        return np.where(z < 0, e, 1.0 - e)
    if kind == "uniform":
        return np.clip((y - a) / (b - a), 0.0, 1.0)
    raise ValueError(f"unknown law {kind!r}")


def family_pdf(law, y):
    kind, a, b = law
    y = np.asarray(y, dtype=np.float64)
    if kind == "gaussian":
        z = (y - a) / b
        return np.exp(-0.5 * z * z) / (b * math.sqrt(2.0 * math.pi))
    if kind == "laplace":
        return np.exp(-np.abs(y - a) / b) / (2.0 * b)
    if kind == "uniform":
        return np.where((y >= a) & (y <= b), 1.0 / (b - a), 0.0)
    raise ValueError(f"unknown law {kind!r}")


@functools.lru_cache(maxsize=32)
def _standard_rule(kind: str, n: int):
    if kind == "gaussian":
        t, w = special.roots_hermitenorm(n)
        return t, w / w.sum()
    if kind == "laplace":  # e^{−t} on each side of the centre; beyond 128 nodes the rule overflows
        t, w = special.roots_laguerre(min(n // 2, LAGUERRE_MAX))
        w = w / w.sum() / 2.0
        return np.concatenate([-t[::-1], t]), np.concatenate([w[::-1], w])
    if kind == "uniform":
        t, w = special.roots_legendre(n)
        return 0.5 * (t + 1.0), w / w.sum()
    raise ValueError(f"unknown law {kind!r}")


def quadrature(law, n: int):
    """Gauss nodes and weights (summing to 1) for expectations under `law`."""
    kind, a, b = law
    t, w = _standard_rule(kind, n)
    if kind == "uniform":
        return a + (b - a) * t, w
    return a + b * t, w


# -- tabulation ----------------------------------------------------------------------------------------
def tabulate(cond, nodes, weights, *, grid: int | None = None, tail: float = TAIL, chunk: int = 1 << 22) -> LawTable:
    """The law with cdf Σ_j w_j F(y | node_j), from `cond(y, *nodes) -> (F, f)` (broadcasting y[:, None]
    against the node arrays), tabulated over its [tail, 1 − tail] quantile range."""
    grid = GRID if grid is None else grid
    nodes = [np.asarray(u, dtype=np.float64) for u in nodes]
    weights = np.asarray(weights, dtype=np.float64)
    rows = max(1, chunk // max(weights.size, 1))

    def both(y):
        y = np.atleast_1d(np.asarray(y, dtype=np.float64))
        F, f = np.empty(y.size), np.empty(y.size)
        for i in range(0, y.size, rows):
            Fi, fi = cond(y[i : i + rows, None], *(u[None, :] for u in nodes))
            F[i : i + rows] = Fi @ weights
            f[i : i + rows] = fi @ weights
        return np.clip(F, 0.0, 1.0), f

    def cdf(y):
        return both(y)[0]

    lo, q1, med, q3, hi = _quantiles(cdf, [tail, 0.25, 0.5, 0.75, 1.0 - tail])
    s = max(0.5 * (q3 - q1), 1e-9 * max(abs(med), 1.0))
    t = np.linspace(math.asinh((lo - med) / s), math.asinh((hi - med) / s), grid)
    y = med + s * np.sinh(t)
    F, f = both(y)
    F = np.maximum.accumulate(F)
    h = np.diff(y)
    pieces = 0.5 * h * (F[:-1] + F[1:]) + h * h / 12.0 * (f[:-1] - f[1:])
    A = np.concatenate([[0.0], np.cumsum(pieces)])
    return LawTable(y, F, f, A)


def _quantiles(cdf, levels):
    """Quantiles of a cdf we can only evaluate: bracket on a wide log-spaced set, then bisect."""
    levels = np.asarray(levels, dtype=np.float64)
    probe = np.concatenate([-np.logspace(9, -6, 91), [0.0], np.logspace(-6, 9, 91)])
    Fp = cdf(probe)
    k = np.clip(np.searchsorted(Fp, levels, side="left"), 1, probe.size - 1)
    a, b = probe[k - 1], probe[k]
    for _ in range(200):
        m = 0.5 * (a + b)
        if np.all((m == a) | (m == b)):
            break
        below = cdf(m) < levels
        a, b = np.where(below, m, a), np.where(below, b, m)
    return b


def cdf(table: LawTable, t):
    """F at t by the cubic Hermite interpolant with slopes f (0 / 1 beyond the table)."""
    return _hermite(table.y, table.F, table.f, np.asarray(t, dtype=np.float64), 0.0, 1.0)


def integrated_cdf(table: LawTable, t):
    """A(t) = ∫_{−∞}^{t} F, as the C side evaluates it."""
    t = np.asarray(t, dtype=np.float64)
    inside = _hermite(table.y, table.A, table.F, t, 0.0, 0.0)
    left = np.maximum(table.A[0] + table.F[0] * (t - table.y[0]), 0.0)
    right = table.A[-1] + (t - table.y[-1])
    return np.where(t <= table.y[0], left, np.where(t >= table.y[-1], right, inside))


def _hermite(x, v, dv, t, below, above):
    j = np.clip(np.searchsorted(x, t, side="right") - 1, 0, x.size - 2)
    h = x[j + 1] - x[j]
    s = (t - x[j]) / h
    s2, s3 = s * s, s * s * s
    out = (
        (2 * s3 - 3 * s2 + 1) * v[j]
        + (s3 - 2 * s2 + s) * h * dv[j]
        + (-2 * s3 + 3 * s2) * v[j + 1]
        + (s3 - s2) * h * dv[j + 1]
    )
    return np.where(t < x[0], below, np.where(t > x[-1], above, out))


# -- TTR-binned reconstructions --------------------------------------------------------------------------
def binned_table(edges, heights) -> LawTable:
    """The piecewise-uniform density (edges, heights) as a table, exactly: F is linear between edges and
    A = ∫F quadratic, which the C side's Hermite interpolant of A (slopes F) and its linear inverse of F
    reproduce exactly. Made for W1 of samples against a reconstruction (`MCNative.w1_steps`); f holds the
    bin heights to the right of each edge, which `cdf` here cannot use (F has kinks at the edges)."""
    edges = np.asarray(edges, dtype=np.float64)
    masses = np.asarray(heights, dtype=np.float64) * np.diff(edges)
    keep = np.concatenate([[True], np.diff(edges) > 0])  # a zero-width bin adds no node
    F = np.concatenate([[0.0], np.cumsum(masses)])
    F /= F[-1]
    y, F = edges[keep], F[keep]
    A = np.concatenate([[0.0], np.cumsum(0.5 * np.diff(y) * (F[:-1] + F[1:]))])
    f = np.concatenate([np.diff(F) / np.diff(y), [0.0]])
    return LawTable(y, F, f, A)


def w1_reconstructed(edges, heights, table: LawTable, subdivide: int = SUBDIVIDE) -> float:
    """W1 between the piecewise-uniform density (edges, heights) and the tabulated law.

    Each bin is cut into `subdivide` pieces; on a piece both cdfs are taken as linear between its ends
    (the reconstruction's is; the law's is smooth, so the error is O(piece²)), and ∫|F_rec − F| has a
    closed form. Beyond the outer edges F_rec is 0 or 1 and the tails are A(e₀) and mean − e_K + A(e_K).
    """
    edges = np.asarray(edges, dtype=np.float64)
    masses = np.asarray(heights, dtype=np.float64) * np.diff(edges)
    cum = np.concatenate([[0.0], np.cumsum(masses)])
    cum /= cum[-1]
    frac = np.arange(subdivide) / subdivide
    t = np.concatenate([(edges[:-1, None] + np.diff(edges)[:, None] * frac[None, :]).ravel(), edges[-1:]])
    a = np.interp(t, edges, cum) - cdf(table, t)
    length = np.diff(t)
    a0, a1 = a[:-1], a[1:]
    same = a0 * a1 >= 0
    with np.errstate(invalid="ignore", divide="ignore"):
        crossing = length * (a0 * a0 + a1 * a1) / (2.0 * (np.abs(a0) + np.abs(a1)))
    inner = float(np.where(same, 0.5 * (np.abs(a0) + np.abs(a1)) * length, crossing).sum())
    left = float(integrated_cdf(table, edges[0]))
    right = float(table.mean - edges[-1] + integrated_cdf(table, edges[-1]))
    return inner + left + right
