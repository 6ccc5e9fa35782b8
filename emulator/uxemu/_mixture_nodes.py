"""The predictive mixture's density at the density's quadrature nodes, as ux/filter_density.c mixture_on_nodes
computes it (docs/semantics.md, "Filter density"): each component's terms a_i·exp(−v·v/2) by a product
recurrence in runs of NODE_RUN nodes, outward from the node nearest its centre, bit for bit."""

from __future__ import annotations

import numpy as np

from . import libm

from .bayes import log_family

# ux/filter_density.c NODE_RUN: a run's first term and its first ratio are exponentials, the rest products.
NODE_RUN = 16
_NORMAL_MIN = float(np.finfo(np.float64).tiny)  # a component's terms end at the first below it


def mixture_on_nodes(components, lo: float, h: float, intervals: int) -> np.ndarray:
    """s_k = Σ_i a_i·exp(−v·v/2) at the nodes lo + k·h (k = 0 … intervals), a_i = exp((log w_i − log σ_i) +
    g(0)), v = (t_k − c_i)/σ_i, summed in component order."""
    c, w, sc = components
    with np.errstate(divide="ignore"):
        amp = libm.exp((libm.log(w) - libm.log(sc)) + float(log_family("gaussian", 0.0)))
    s = np.zeros(intervals + 1)
    for i in range(c.size):
        r = (float(c[i]) - lo) / h
        nearest = 0 if not r > 0 else intervals if r >= intervals else int(r + 0.5)
        for ks, away in ((np.arange(nearest, intervals + 1), 1.0), (np.arange(nearest - 1, -1, -1), -1.0)):
            if ks.size:
                terms = _run_terms(ks, away, lo, h, float(c[i]), float(sc[i]), float(amp[i]))
                kept = _first_small(terms)
                s[ks[:kept]] += terms[:kept]  # distinct nodes: one addition each, in component order
    return s


def _run_terms(ks: np.ndarray, away: float, lo: float, h: float, c: float, sigma: float, amp: float) -> np.ndarray:
    """One component's terms at the nodes ks (outward from its centre), runs of NODE_RUN restarted with
    exponentials (ux/filter_density.c add_component_run)."""
    d = h / sigma
    q = libm.exp(-(d * d))
    runs = -(-ks.size // NODE_RUN)
    starts = ks[::NODE_RUN].astype(np.float64)
    with np.errstate(over="ignore", under="ignore", invalid="ignore"):
        v = ((lo + starts * h) - c) / sigma
        ratios = np.empty((runs, NODE_RUN))
        ratios[:, 0] = libm.exp(-((away * v) * d + (0.5 * d) * d))
        ratios[:, 1:] = q
        ratios = np.cumprod(ratios, axis=1)
        terms = np.empty((runs, NODE_RUN))
        terms[:, 0] = amp * libm.exp((-0.5 * v) * v)
        terms[:, 1:] = ratios[:, :-1]
        terms = np.cumprod(terms, axis=1)
    return terms.ravel()[: ks.size]


def _first_small(terms: np.ndarray) -> int:
    """How many terms come before the first below the smallest normal (or NaN): the run stops there."""
    small = np.flatnonzero(~(terms >= _NORMAL_MIN))
    return int(small[0]) if small.size else terms.size
