"""Sampling baselines for single operations: importance-sampling BayesLaplace and plain Monte Carlo.

Inputs may be continuous laws (uxemu.laws) or quantized Values; both are sampled with the caller's
Generator, so iso-quality comparisons can feed the very same law to the sampler and to the ux side.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from uxemu.bayes import evidence_arrays
from uxemu.value import Value

from .particle import normalise_log_weights


def draw(law, n: int, rng: np.random.Generator) -> np.ndarray:
    """n independent draws from a Law or a Value (their sample methods order arguments differently)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError("rng must be a numpy.random.Generator, e.g. numpy.random.default_rng(seed)")
    if isinstance(law, Value):
        return law.sample(n, rng)
    return np.asarray(law.sample(rng, n), dtype=np.float64)


@dataclass
class WeightedSample:
    x: np.ndarray
    w: np.ndarray  # normalised
    fallback: bool = False  # every likelihood was zero or non-finite: w is the prior's (uniform)

    def mean(self) -> float:
        return float(self.w @ self.x)

    def var(self) -> float:
        d = self.x - self.mean()
        return float(self.w @ (d * d))

    def ess(self) -> float:
        return float(1.0 / (self.w @ self.w))


def importance_posterior(
    prior, log_likelihood, evidence, n: int, rng: np.random.Generator, m: int = 1
) -> WeightedSample:
    """The posterior of one BayesLaplace instance by self-normalised importance sampling.

    Draws n points from `prior` (the proposal is the prior itself) and weighs each by
    ℓ(x) = m · Σ_k ω_k log p(z_k | x), the same evidence rule as bayes_laplace; `log_likelihood(z, x)`
    is vectorised over x (e.g. StateSpaceModel.log_likelihood). Weights are normalised in the log domain.
    """
    if int(m) != m or m < 1:
        raise ValueError(f"the observation count m must be a positive integer, got {m}")
    z, om = evidence_arrays(evidence)
    x = draw(prior, n, rng)
    ell = np.zeros(x.size)
    with np.errstate(invalid="ignore"):
        for zk, ok in zip(z, om):
            ell = ell + ok * np.asarray(log_likelihood(float(zk), x), dtype=np.float64)
        ell = float(m) * ell
    w, fell_back = normalise_log_weights(ell)
    return WeightedSample(x, w, fell_back)


def propagate(f, laws, n: int, rng: np.random.Generator) -> np.ndarray:
    """n samples of f(X1, …, Xk) for independent Xi ~ laws[i]: plain Monte Carlo of a lift.

    `f` works elementwise on arrays, exactly as the function given to uxemu.lift; each input is drawn
    in turn from `rng`, so one seed fixes the whole sample.
    """
    if not laws:
        raise TypeError("propagate needs at least one input law")
    draws = [draw(law, n, rng) for law in laws]
    with np.errstate(all="ignore"):
        y = np.asarray(f(*draws), dtype=np.float64)
    return np.broadcast_to(y, (n,)).copy() if y.shape != (n,) else y
