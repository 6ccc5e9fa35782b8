"""Bootstrap particle filter over a StateSpaceModel (the standard sampling baseline).

Step convention as in uxemu.filter: the first observation is of the initial state, so step 0 draws
from the prior and weighs; every later step resamples, propagates through the transition with sampled
process noise, and weighs by the model's likelihood. Resampling happens at every step (the textbook
bootstrap filter of Gordon, Salmond and Smith), after the posterior of the previous step was recorded.

The reported posterior of each step is the weighted particle set *before* resampling: its mean and
variance are lower-variance estimates than those of the resampled set, and metrics (NLL, CRPS, W1)
read the same weighted set. All randomness comes from the caller's Generator.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from uxemu.model import StateSpaceModel

from . import resampling


@dataclass
class ParticleRun:
    mean: np.ndarray  # (T,) posterior mean per step
    var: np.ndarray  # (T,) posterior variance per step
    particles: np.ndarray = field(repr=False)  # (T, N) positions of the weighted set per step
    weights: np.ndarray = field(repr=False)  # (T, N) normalised weights per step
    ess: np.ndarray = field(repr=False)  # (T,) effective sample size 1 / Σw²
    fallback: np.ndarray = field(repr=False)  # (T,) True where every likelihood was zero or non-finite

    @property
    def fallbacks(self) -> int:
        return int(self.fallback.sum())


def normalise_log_weights(logw: np.ndarray):
    """exp(logw − max) / Σ; (uniform weights, True) when no weight is finite and positive."""
    logw = np.where(np.isnan(logw), -np.inf, logw)
    top = logw.max()
    if not np.isfinite(top):
        return np.full(logw.size, 1.0 / logw.size), True
    w = np.exp(logw - top)
    return w / w.sum(), False


def bootstrap_filter(
    model: StateSpaceModel, trace, n_particles: int, rng: np.random.Generator, resample: str = "systematic", prior=None
) -> ParticleRun:
    """Run the bootstrap filter with `n_particles` over a trace (arrays k, u, z).

    When every particle has zero likelihood the step keeps the predicted particles with equal weights
    (the observation is ignored, as the BayesLaplace fallback does) and flags the step.
    """
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator, e.g. numpy.random.default_rng(seed)")
    if n_particles < 1:
        raise ValueError(f"n_particles must be positive, got {n_particles}")
    scheme = resampling.get(resample)
    prior_law = model.prior if prior is None else prior
    T, N = len(trace.z), int(n_particles)
    xs, ws = np.empty((T, N)), np.empty((T, N))
    mean, var, ess = np.empty(T), np.empty(T), np.empty(T)
    fallback = np.zeros(T, dtype=bool)
    x = np.asarray(prior_law.sample(rng, N), dtype=np.float64)
    w = np.full(N, 1.0 / N)  # step 0 weighs the prior's draws; every later step resamples by its weights
    for i in range(T):
        if i > 0:
            x = model.sample_transition(x[scheme(w, rng)], int(trace.k[i]), float(trace.u[i]), rng)
        w, fallback[i] = normalise_log_weights(model.log_likelihood(float(trace.z[i]), x))
        xs[i], ws[i] = x, w
        mean[i] = w @ x
        d = x - mean[i]
        var[i] = w @ (d * d)
        ess[i] = 1.0 / (w @ w)
    return ParticleRun(mean, var, xs, ws, ess, fallback)
