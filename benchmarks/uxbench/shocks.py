"""Shocks: stochastic-volatility traces whose volatility triples after a calm stretch, filtered by the
BayesLaplace filter and by a seeded bootstrap particle filter with 10⁵ particles (the reference); the
measure is |mean − PF mean| / PF sd at every step.

The generator is deterministic (a seeded numpy Generator per trace), so every table is reproducible.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from uxemu import systems
from uxemu.filter import run_filter
from uxemu.traces import Trace

CALM = 30  # steps at the stationary level before the shock
STEPS = 45
JUMP = 2.0 * math.log(3.0)  # the log-variance state rises by 2·ln 3: the volatility exp(x/2) triples
PARTICLES = 100_000
GRID_POINTS = 2001  # converged: 8001 points move no mean by more than 5e-10 reference sd on these traces
SIGMA_ETAS = (0.2, 0.05)  # the system's default σ_η, and a calm one


def model(sigma_eta: float):
    """The sv system with its defaults (φ = 0.98, c = 0, σ_ε = 1, prior N(0, 2.25²)) but σ_η."""
    return systems.get("sv", sigma_eta=sigma_eta)


def trace(seed: int, sigma_eta: float, T: int = STEPS, calm: int = CALM, jump: float = JUMP) -> Trace:
    """x_0 = 0, then the sv transition; at step `calm` the state also jumps by `jump`; z = ε·exp(x/2)."""
    phi, c, s_eta, s_eps = model(sigma_eta).params
    rng = np.random.default_rng(seed)
    x = np.empty(T)
    x[0] = 0.0
    for k in range(1, T):
        x[k] = phi * x[k - 1] + c * (1.0 - phi) + s_eta * rng.standard_normal()
        if k == calm:
            x[k] += jump
    z = s_eps * rng.standard_normal(T) * np.exp(x / 2.0)
    return Trace(np.arange(T), np.zeros(T), z, x, {"system": "sv"})


def reference(tr: Trace, sigma_eta: float, seed: int, n_particles: int = PARTICLES):
    """The bootstrap PF (benchmarks/uxbench/baselines/particle.py), seeded: mean and var per step."""
    from .baselines.particle import bootstrap_filter

    return bootstrap_filter(model(sigma_eta), tr, n_particles, np.random.default_rng(seed))


def grid_reference(tr: Trace, sigma_eta: float, n_points: int = GRID_POINTS):
    """The point-mass grid filter (benchmarks/uxbench/baselines/grid.py), tails cut at 1e-15: the
    near-exact posterior of this 1-D model, free of the particle filter's sampling error."""
    from .baselines.grid import grid_filter

    return grid_filter(model(sigma_eta), tr, n_points=n_points, tail=1e-15)


@dataclass
class Gap:
    """Per step |mean − reference mean| / reference sd of one run."""

    sd: np.ndarray
    run: object

    def worst(self, lo: int = 0, hi: int | None = None) -> float:
        return float(self.sd[lo:hi].max())

    @property
    def at_shock(self) -> float:
        """The worst over the shock step and the four after it."""
        return self.worst(CALM, CALM + 5)


def gap(run, ref) -> Gap:
    return Gap(np.abs(run.mean - ref.mean) / np.sqrt(ref.var), run)


def ux_gap(tr: Trace, ref, sigma_eta: float, eta: int, mode: str = "refined", **kw) -> Gap:
    return gap(run_filter(model(sigma_eta), tr, eta, mode, **kw), ref)


# ------------------------------------------------------------------------------------------------
# Measurement only (not the filter): the update's posterior recomputed from a predictive *density* on a
# fine grid at every update, reduced with TTR to η atoms, to see which predictive law the shock needs.
# "mixture" is the filter's own predictive law, Σ w_i N(f(x_i, 0), σ²) over the belief's atoms x_i (what
# re-quantizing the predictive mixture over the likelihood's region can reach at best); "gaussian" is
# N(m, v) with the mixture's mean and variance; "smoothed" replaces each belief atom by a Gaussian of
# width h, h² = v_b (4 / 3η)^(2/5) (Silverman's rule with η points), the atoms shrunk towards the mean
# by √(1 − h²/v_b) so the belief's mean and variance are kept.
VARIANTS = ("mixture", "gaussian", "smoothed")
VARIANT_CELLS = 4096  # grid cells of the recomputed update
VARIANT_REACH = 8.0  # the grid spans the components' centres ± 8 component sd


def _components(variant: str, bx, bw, phi: float, drift: float, sigma: float):
    """(centres, weights, common sd) of the predictive density for a belief (bx, bw) of the sv transition."""
    if variant == "mixture":
        return phi * bx + drift, bw, sigma
    m = float(bw @ bx)
    vb = float(bw @ ((bx - m) ** 2))
    if variant == "gaussian":
        return np.array([phi * m + drift]), np.ones(1), math.sqrt(phi * phi * vb + sigma * sigma)
    h2 = vb * (4.0 / (3.0 * bx.size)) ** 0.4
    shrink = math.sqrt(max(1.0 - h2 / vb, 0.0)) if vb > 0 else 1.0
    return phi * (m + shrink * (bx - m)) + drift, bw, math.sqrt(phi * phi * h2 + sigma * sigma)


def variant_run(tr: Trace, sigma_eta: float, eta: int, variant: str):
    """The refined filter on `tr` whose every update after the first is recomputed from `variant`'s
    predictive density: mean and var per step."""
    from uxemu import _ttr
    from uxemu.filter import BayesLaplaceFilter, observation
    from uxemu.value import Value, normalise

    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; use one of {VARIANTS}")
    sv = model(sigma_eta)
    phi, c, s_eta, _ = sv.params
    f = BayesLaplaceFilter(sv, eta, "refined")
    cells = (np.arange(VARIANT_CELLS, dtype=np.float64) + 0.5) / VARIANT_CELLS
    mean, var = np.empty(len(tr.z)), np.empty(len(tr.z))
    for i in range(len(tr.z)):
        if i == 0:
            f.step(0, observation(tr.z[0]), predict=False)
        else:
            centres, weights, s = _components(variant, f.posterior.x, f.posterior.w, phi, c * (1.0 - phi), s_eta)
            lo, hi = centres.min() - VARIANT_REACH * s, centres.max() + VARIANT_REACH * s
            t = lo + cells * (hi - lo)
            d = (t[:, None] - centres[None, :]) / s
            with np.errstate(divide="ignore"):
                lp = np.log(np.exp(-0.5 * d * d) @ weights) + sv.log_likelihood(float(tr.z[i]), t)
            xs, us = _ttr.compact(t, np.exp(lp - lp.max()))
            px, pw = _ttr.ttr(xs, us, _ttr.log2_eta(eta))
            f.posterior = Value(px, normalise(pw), eta)
        mean[i], var[i] = f.posterior.mean(), f.variance()
    return _Moments(mean, var)


@dataclass
class _Moments:
    mean: np.ndarray
    var: np.ndarray


def edge_mass(tr: Trace, sigma_eta: float, eta: int, mode: str = "refined") -> np.ndarray:
    """Per step, the likelihood-weighted share of the update's prior points (the prediction's, or the first
    update's prior) on the outermost two: how close the posterior comes to being pinned at an edge."""
    from uxemu.filter import BayesLaplaceFilter, observation

    f = BayesLaplaceFilter(model(sigma_eta), eta, mode)
    out = np.empty(len(tr.z))
    for i in range(len(tr.z)):
        if i:
            x, w = f.predict(int(tr.k[i]), float(tr.u[i]))
        else:
            x, w = f.first_prior_atoms() if mode == "refined" else (f.posterior.x, f.posterior.w)
        ell = f.likelihood.log_likelihood(np.asarray(x), np.array([float(tr.z[i])]))[:, 0]
        wp = w * np.exp(ell - ell.max())
        out[i] = wp[(x == x.max()) | (x == x.min())].sum() / wp.sum()
        f.update((x, w), observation(tr.z[i]))
    return out
