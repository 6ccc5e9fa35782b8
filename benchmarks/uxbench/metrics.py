"""The benchmarks' scores beyond uxemu.metrics (whose definitions they share; docs: benchmarks/README.md).

- RMSE spread: the standard deviation (ddof = 1) of the per-run RMSE over repeated seeded runs on one
  trace; deterministic filters have spread 0 by definition and are run once.
- NLL of weighted particle sets: a Gaussian kernel density estimate with Scott's bandwidth
  h = σ_w · n_eff^(−1/5), n_eff = 1 / Σw² and σ_w² = Σw(x − μ)² / (1 − Σw²) the unbiased weighted variance
  (exactly scipy.stats.gaussian_kde with weights), in the log domain; of grid posteriors: GridRun.pdf.
  Both are clamped like ux values (uxemu.metrics.LOG_PDF_FLOOR).
- NLL and CRPS of a Gaussian belief N(μ, σ²) (the Kalman-type baselines): its density at the truth,
  clamped like the others, and the closed-form CRPS σ[t(2Φ(t) − 1) + 2φ(t) − 1/√π], t = (y − μ)/σ
  (Gneiting & Raftery 2007); a zero variance is a point mass (log density −∞ off it, CRPS |y − μ|).
- W1 against a Monte Carlo sample of the true law: of the atoms themselves (uxemu.metrics.w1_atoms), and
  of the reconstructed (TTR-binned, piecewise-uniform) density: the exact integral ∫ |F_rec(t) − F_sample(t)| dt,
  with F_rec piecewise linear and F_sample a step function, summed interval by interval between the merged
  breakpoints — no sampling of the reconstruction.

The shared scores are re-exported, so the benchmarks score with this one module.
"""

from __future__ import annotations

import math

import numpy as np

from uxemu.metrics import (  # noqa: F401 - re-exported: the benchmarks score with this one module
    LOG_PDF_FLOOR,
    NLL,
    _atoms,
    crps_atoms,
    crps_value,
    log_pdf_value,
    nll,
    rmse,
    w1_atoms,
)
from uxemu.value import Value


def rmse_spread(run_means, truth) -> float:
    """Std (ddof = 1) over runs of the RMSE of each run; `run_means` is (runs, T), runs ≥ 2."""
    run_means = np.asarray(run_means, dtype=np.float64)
    if run_means.ndim != 2 or run_means.shape[0] < 2:
        raise ValueError("the RMSE spread needs at least two runs as rows of a (runs, T) array")
    per_run = np.array([rmse(m, truth) for m in run_means])
    return float(np.std(per_run, ddof=1))


def kde_bandwidth(x, w) -> float:
    """Scott's rule for a weighted set, as scipy.stats.gaussian_kde: σ_w · n_eff^(−1/5); 0 if degenerate."""
    x, w = _atoms(x, w)
    mu = w @ x
    sq = float(w @ w)
    if sq >= 1.0:  # a single atom carries all the mass: no spread to estimate
        return 0.0
    sigma = math.sqrt(max(float(w @ ((x - mu) ** 2)) / (1.0 - sq), 0.0))
    return sigma * sq**0.2


def kde_logpdf(x, w, t, bandwidth: float | None = None):
    """log of the weighted Gaussian KDE Σ wᵢ φ((t − xᵢ)/h)/h at t (−∞ for a zero bandwidth)."""
    x, w = _atoms(x, w)
    h = kde_bandwidth(x, w) if bandwidth is None else float(bandwidth)
    tt = np.atleast_1d(np.asarray(t, dtype=np.float64))
    if not h > 0:
        out = np.full(tt.shape, -np.inf)
    else:
        with np.errstate(divide="ignore"):
            a = np.log(w)[None, :] - 0.5 * ((tt[:, None] - x[None, :]) / h) ** 2
        top = a.max(axis=1)
        out = top + np.log(np.exp(a - top[:, None]).sum(axis=1)) - math.log(h) - 0.5 * math.log(2 * math.pi)
    return out if np.ndim(t) else float(out[0])


def log_pdf_particles(x, w, y: float) -> float:
    return kde_logpdf(x, w, float(y))


def log_pdf_gaussian(mean: float, var: float, y: float) -> float:
    """log N(y; mean, var); a zero variance is a point mass at the mean (−∞ elsewhere)."""
    mean, var, y = float(mean), float(var), float(y)
    if not var > 0:
        return math.inf if y == mean and var == 0 else -math.inf
    d = y - mean
    return -0.5 * d * d / var - 0.5 * math.log(2 * math.pi * var)


def crps_gaussian(mean: float, var: float, y: float) -> float:
    """Closed-form CRPS of N(mean, var) at y; |y − mean| for a zero variance."""
    mean, var, y = float(mean), float(var), float(y)
    if not var > 0:
        return abs(y - mean) if var == 0 else math.nan
    sd = math.sqrt(var)
    t = (y - mean) / sd
    cdf = 0.5 * math.erfc(-t / math.sqrt(2.0))
    pdf = math.exp(-0.5 * t * t) / math.sqrt(2 * math.pi)
    return sd * (t * (2.0 * cdf - 1.0) + 2.0 * pdf - 1.0 / math.sqrt(math.pi))


def log_pdf_grid(run, i: int, y: float) -> float:
    p = float(run.pdf(i, float(y)))
    return math.log(p) if p > 0 else -math.inf


def w1_value(v: Value, sample, sample_weights=None) -> float:
    return w1_atoms(v.x, v.w, sample, sample_weights)


def reconstructed_cdf(v: Value, t):
    """cdf of the TTR-binned density of v (piecewise linear through the bin edges)."""
    edges, heights = v.bins()
    masses = heights * np.diff(edges)
    cum = np.concatenate([[0.0], np.cumsum(masses)])
    cum /= cum[-1]
    return np.interp(t, edges, cum, left=0.0, right=1.0)


def w1_reconstructed(v: Value, sample, sample_weights=None) -> float:
    """W1 between the TTR-binned density of v and a (weighted) sample, integrated exactly.

    On each interval between consecutive breakpoints (bin edges and sample points) the sample's cdf is a
    constant c and the reconstruction's cdf runs linearly from a to b; ∫|linear − c| has a closed form.
    A one-atom value has no density: its reconstruction is the atom itself.
    """
    s = np.asarray(sample, dtype=np.float64).ravel()
    sw = np.full(s.size, 1.0 / s.size) if sample_weights is None else np.asarray(sample_weights, float).ravel()
    if len(v) < 2:
        return w1_atoms(v.x, v.w, s, sw)
    order = np.argsort(s, kind="stable")
    s, sw = s[order], sw[order] / sw.sum()
    edges, _ = v.bins()
    t = np.union1d(edges, s)
    scdf = np.concatenate([[0.0], np.cumsum(sw)])
    scdf[-1] = 1.0
    c = scdf[np.searchsorted(s, t[:-1], side="right")]  # sample cdf on [t_k, t_{k+1})
    F = reconstructed_cdf(v, t)
    a, b = F[:-1] - c, F[1:] - c
    length = np.diff(t)
    same = a * b >= 0
    with np.errstate(invalid="ignore", divide="ignore"):
        crossing = length * (a * a + b * b) / (2.0 * (np.abs(a) + np.abs(b)))
    area = np.where(same, 0.5 * (np.abs(a) + np.abs(b)) * length, crossing)
    return float(area.sum())
