"""Scores of a filter's posterior against the truth, used by `uxhost validate` and the benchmarks (one
definition each; the benchmarks' own additions are in benchmarks/uxbench/metrics.py; docs:
benchmarks/README.md).

- RMSE of the posterior mean over the steps of one trace.
- NLL of the true state, −log p(x_true): of a filter run with its posterior density (FilterRun.logpdf, the
  filter density of docs/semantics.md: the predictive mixture for models with additive Gaussian process
  noise; `nll_run`), of a bare ux value with its TTR-binned density (Value.pdf). Where the
  density is 0 (outside a binned density's outer edges), log p is clamped to LOG_PDF_FLOOR = −20, so one
  step contributes at most 20 nats; `nll` reports how many steps hit the floor, as that count matters as
  much as the mean.
- CRPS of weighted atoms, exact: Σ wᵢ|xᵢ − y| − ½ ΣΣ wᵢwⱼ|xᵢ − xⱼ| = ∫ (F(t) − 1{t ≥ y})² dt, computed
  as the integral of the step cdf (sort once, O(n log n), every term non-negative).
- W1 between weighted atoms and a (weighted) sample (scipy.stats.wasserstein_distance).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .value import Value

LOG_PDF_FLOOR = -20.0


# -- point estimates ---------------------------------------------------------------------------------
def rmse(estimate, truth) -> float:
    """√mean(e²), e = estimate − truth; where e² overflows but e is finite (a dump of 1e200s), from e scaled by its
    largest |e|: a finite RMSE stays finite, and no overflow warning reaches a command's output."""
    e = np.asarray(estimate, dtype=np.float64) - np.asarray(truth, dtype=np.float64)
    with np.errstate(over="ignore"):
        square = np.mean(e * e)
    if np.isfinite(square) or not np.all(np.isfinite(e)):
        return float(np.sqrt(square))
    big = float(np.max(np.abs(e)))
    return big * float(np.sqrt(np.mean((e / big) ** 2)))


# -- densities and NLL ---------------------------------------------------------------------------------
@dataclass
class NLL:
    mean: float  # mean over steps of −max(log p(x_true), LOG_PDF_FLOOR)
    floor_hits: int  # steps whose density at the truth was below e^LOG_PDF_FLOOR (or zero)
    steps: int


def clamp_log(logp) -> np.ndarray:
    with np.errstate(invalid="ignore"):
        lp = np.asarray(logp, dtype=np.float64)
        return np.where(np.isnan(lp) | (lp < LOG_PDF_FLOOR), LOG_PDF_FLOOR, lp)


def nll(log_densities) -> NLL:
    """Summary of per-step log p(x_true): clamped at the floor, negated, averaged."""
    lp = np.atleast_1d(np.asarray(log_densities, dtype=np.float64))
    with np.errstate(invalid="ignore"):
        hits = int((np.isnan(lp) | (lp < LOG_PDF_FLOOR)).sum())
    return NLL(float(-clamp_log(lp).mean()), hits, lp.size)


def nll_run(run, truth) -> NLL:
    """NLL of a filter run (uxemu.filter.FilterRun) against the true states, with its filter density."""
    return nll([run.logpdf(i, float(y)) for i, y in enumerate(np.asarray(truth, dtype=np.float64))])


def log_pdf_value(v: Value, y: float) -> float:
    """log of the TTR-binned density of a ux value at y (−∞ where it is 0)."""
    p = v.pdf(float(y))
    return math.log(p) if p > 0 else -math.inf


# -- CRPS --------------------------------------------------------------------------------------------
def crps_atoms(x, w, y: float) -> float:
    """Exact CRPS of the weighted atoms (x, w) at the outcome y: ∫ (F(t) − 1{t ≥ y})² dt."""
    x, w = _atoms(x, w)
    order = np.argsort(x, kind="stable")
    xs, ws = x[order], w[order]
    F = np.cumsum(ws)
    F[-1] = 1.0
    y = float(y)
    # Between consecutive atoms the cdf is constant; split the interval that holds y.
    left, right = xs[:-1], xs[1:]
    Fi = F[:-1]
    below = np.clip(np.minimum(right, y) - left, 0.0, None)  # part of [left, right) below y
    above = np.clip(right - np.maximum(left, y), 0.0, None)  # part at or above y
    inner = float(Fi * Fi @ below + (1.0 - Fi) ** 2 @ above)
    # Outside the atoms: F = 0 left of xs[0] (indicator is 1 from y), F = 1 right of xs[-1].
    outer = max(xs[0] - y, 0.0) + max(y - xs[-1], 0.0)
    return inner + outer


def crps_value(v: Value, y: float) -> float:
    return crps_atoms(v.x, v.w, y)


# -- W1 ----------------------------------------------------------------------------------------------
def w1_atoms(x, w, sample, sample_weights=None) -> float:
    """W1 between the weighted atoms and a (weighted) sample, by scipy.stats.wasserstein_distance."""
    x, w = _atoms(x, w)
    return float(stats.wasserstein_distance(x, np.asarray(sample, dtype=np.float64), w, sample_weights))


def _atoms(x, w):
    x = np.asarray(x, dtype=np.float64).ravel()
    w = np.asarray(w, dtype=np.float64).ravel()
    if x.size == 0 or x.shape != w.shape:
        raise ValueError("atoms need as many weights as positions, and at least one")
    total = w.sum()
    if not total > 0 or (w < 0).any():
        raise ValueError("weights must be non-negative with a positive sum")
    return x, w / total
