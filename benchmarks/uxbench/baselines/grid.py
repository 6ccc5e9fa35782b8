"""Point-mass grid filter for 1-D models: the near-exact Bayes reference of the benchmarks.

The posterior of each step is a set of point masses on a uniform grid of `n_points` nodes. Transition
by convolution with the process-noise density (evaluated exactly through `process_noise.logpdf`),
update by the model's near-exact likelihood `model.log_likelihood`, all weights in the log domain.
It needs additive process noise, x' = f(x, 0, k, u) + w, which it checks on every step.

Range rule (adaptive, no tuning per system). With ε = `tail` (default 1e-12):
- step 0: the grid spans the prior's central interval [F⁻¹(ε), S⁻¹(ε)] (quantiles by bisection on the
  law's cdf and survival function, clipped to its support);
- step k ≥ 1: drop the previous posterior's outer nodes whose cumulative mass from either end is below ε;
  the grid spans [min_j f(x_j) + q_ε, max_j f(x_j) + q_{1−ε}] over the kept nodes x_j, with q the
  process noise's quantiles. The predictive law then loses at most ~4ε of mass outside the grid.
The transition sums, for each kept node, its noise density over the nodes within the noise's own
ε-tails (a band, not the whole grid), which is what makes 1501 points affordable.
The grid is placed before the observation is seen, so an update that concentrates the posterior far
inside a wide predictive range is resolved only as finely as (range / n_points); the benchmark systems
keep that spacing well below their posterior spread.

Evidence of each step (the marginal likelihood's factor): the predictive density times the likelihood
summed over the nodes times the spacing.

Density of a grid posterior (for NLL): the node masses divided by the spacing, linearly interpolated
between nodes and zero outside the grid — the grid samples a smooth density, and this reads it back.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from uxemu.model import StateSpaceModel

from .particle import normalise_log_weights

DEFAULT_POINTS = 1501
DEFAULT_TAIL = 1e-12


@dataclass
class GridRun:
    mean: np.ndarray  # (T,)
    var: np.ndarray  # (T,)
    nodes: np.ndarray = field(repr=False)  # (T, n_points): uniform grid of each step
    weights: np.ndarray = field(repr=False)  # (T, n_points): normalised node masses
    fallback: np.ndarray = field(repr=False)  # (T,) every node had zero likelihood: predictive kept
    log_evidence: np.ndarray = field(default=None, repr=False)  # (T,) log p(z_k | z_0..k−1), a Riemann sum

    @property
    def log_likelihood(self) -> float:
        return float(np.sum(self.log_evidence))

    @property
    def fallbacks(self) -> int:
        return int(self.fallback.sum())

    def spacing(self, i: int) -> float:
        return float(self.nodes[i, 1] - self.nodes[i, 0])

    def pdf(self, i: int, t):
        """Density of step i's posterior at t (node mass / spacing, linear between nodes)."""
        return np.interp(t, self.nodes[i], self.weights[i] / self.spacing(i), left=0.0, right=0.0)


def tail_quantiles(law, eps: float) -> tuple[float, float]:
    """(a, b) with P(X < a) = ε and P(X > b) = ε, by bisection on the law's cdf1 and sf1."""
    centre = float(law.median())
    v = float(law.var())
    step = float(np.sqrt(v)) if np.isfinite(v) and v > 0 else 1.0

    def bound(mass, direction, limit):
        if np.isfinite(limit) and mass(limit) >= eps:  # the support ends before the tail gets thin
            return float(limit)
        near, far = centre, centre + direction * step
        while mass(far) > eps:
            near, far = far, far + 2.0 * (far - centre)
            if not np.isfinite(far):
                raise ValueError(f"cannot bracket the {eps:g} tail of {law!r}")
        for _ in range(200):
            mid = 0.5 * (near + far)
            if mid in (near, far):
                break
            near, far = (mid, far) if mass(mid) > eps else (near, mid)
        return float(far)

    lo = bound(law.cdf1, -1.0, law.lower)
    hi = bound(law.sf1, 1.0, law.upper)
    return lo, hi


def _kept(w: np.ndarray, eps: float) -> slice:
    """Nodes left after dropping each end's run of nodes whose cumulative mass is below ε."""
    lo = int(np.searchsorted(np.cumsum(w), eps, side="left"))
    hi = w.size - 1 - int(np.searchsorted(np.cumsum(w[::-1]), eps, side="left"))
    return slice(min(lo, hi), max(lo, hi) + 1)


def _drift(model: StateSpaceModel, x: np.ndarray, k: int, u: float, scale: float) -> np.ndarray:
    """f(x, 0, k, u), after checking on a few nodes that the noise enters additively."""
    f0 = np.broadcast_to(np.asarray(model.transition(x, np.zeros_like(x), k, u), dtype=np.float64), x.shape)
    at = np.arange(0, x.size, max(1, x.size // 3))
    for d in (-1.5 * scale, 0.7 * scale):
        fd = np.asarray(model.transition(x[at], np.full(at.size, d), k, u), dtype=np.float64)
        if not np.allclose(fd - f0[at], d, rtol=1e-9, atol=1e-9 * (1.0 + np.abs(f0[at]).max() + abs(d))):
            raise ValueError(
                f"the grid filter needs additive process noise; model {model.name!r} "
                f"transition is not f(x, 0) + w at step {k}"
            )
    return f0


def _convolve(x, f, src_w, noise, noise_lo, noise_hi) -> np.ndarray:
    """Predictive density at the uniform nodes x: Σ_j w_j q(x_i − f_j).

    Source j only reaches the nodes within its noise band [f_j + q_ε, f_j + q_{1−ε}] (beyond it the
    noise density is below its ε-tail, e.g. 2e-11 of the peak for a Gaussian at ε = 1e-12), so each
    source is evaluated on that band of nodes alone and the bands are summed with bincount: a fraction
    (band width / range) of the dense matrix–vector product, same result to ~ε.
    """
    n, h = x.size, x[1] - x[0]
    width = min(n, int(np.floor((noise_hi - noise_lo) / h)) + 2)
    start = np.clip(np.ceil((f + noise_lo - x[0]) / h).astype(np.int64) - 1, 0, n - width)
    idx = start[:, None] + np.arange(width)[None, :]
    with np.errstate(under="ignore"):
        vals = np.exp(noise.logpdf(x[idx] - f[:, None])) * src_w[:, None]
    return np.bincount(idx.ravel(), weights=vals.ravel(), minlength=n)


def grid_filter(
    model: StateSpaceModel, trace, n_points: int = DEFAULT_POINTS, tail: float = DEFAULT_TAIL, prior=None
) -> GridRun:
    """Filter a trace (arrays k, u, z) on an adaptive uniform grid (range rule in the module doc)."""
    if n_points < 3:
        raise ValueError(f"the grid needs at least 3 points, got {n_points}")
    if not 0.0 < tail < 0.5:
        raise ValueError(f"tail must be in (0, 0.5), got {tail}")
    prior_law = model.prior if prior is None else prior
    noise = model.process_noise
    noise_lo, noise_hi = tail_quantiles(noise, tail)
    noise_scale = float(np.sqrt(noise.var())) if np.isfinite(noise.var()) else noise_hi - noise_lo
    T = len(trace.z)
    nodes, weights = np.empty((T, n_points)), np.empty((T, n_points))
    mean, var = np.empty(T), np.empty(T)
    fallback = np.zeros(T, dtype=bool)
    evidence = np.empty(T)
    for i in range(T):
        k, u, z = int(trace.k[i]), float(trace.u[i]), float(trace.z[i])
        if i == 0:
            lo, hi = tail_quantiles(prior_law, tail)
            x = np.linspace(lo, hi, n_points)
            log_prior = np.asarray(prior_law.logpdf(x), dtype=np.float64)
        else:
            keep = _kept(weights[i - 1], tail)
            src, src_w = nodes[i - 1, keep], weights[i - 1, keep]
            f = _drift(model, src, k, u, noise_scale)
            x = np.linspace(f.min() + noise_lo, f.max() + noise_hi, n_points)
            dens = _convolve(x, f, src_w, noise, noise_lo, noise_hi)
            with np.errstate(divide="ignore"):
                log_prior = np.log(dens)
        with np.errstate(invalid="ignore"):
            loglik = np.asarray(model.log_likelihood(z, x), dtype=np.float64)
            logw = log_prior + np.where(np.isnan(loglik), -np.inf, loglik)
        w, fallback[i] = normalise_log_weights(logw)
        evidence[i] = _log_riemann_sum(logw, x[1] - x[0])
        if fallback[i]:  # keep the predictive law, as the ux filter keeps its prior
            w, _ = normalise_log_weights(log_prior)
        nodes[i], weights[i] = x, w
        mean[i] = w @ x
        d = x - mean[i]
        var[i] = w @ (d * d)
    return GridRun(mean, var, nodes, weights, fallback, evidence)


def _log_riemann_sum(log_values: np.ndarray, spacing: float) -> float:
    """log Σ_i exp(log_values_i)·spacing: the evidence ∫ p(x | z_0..k−1) p(z_k | x) dx on the grid."""
    top = np.max(np.where(np.isnan(log_values), -np.inf, log_values))
    if not np.isfinite(top):
        return float(top)
    with np.errstate(invalid="ignore"):
        return float(top + np.log(np.nansum(np.exp(log_values - top))) + np.log(spacing))
