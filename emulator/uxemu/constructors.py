"""Constructors of uncertain values, each a fresh independent source.

Parameters follow numpy.random and scipy.stats (docs/semantics.md has the table): `exponential(2)` has
mean 2 as `numpy.random.exponential(2)` has, and a uniform is given by its ends as in numpy.
"""

from __future__ import annotations

import numpy as np

from . import laws
from .value import Value


def gaussian(mu: float = 0.0, sigma: float = 1.0, eta: int = 16) -> Value:
    """Normal with mean mu and standard deviation sigma (numpy's normal(loc, scale))."""
    return laws.Normal(mu, sigma).quantize(eta)


def laplace(loc: float = 0.0, scale: float = 1.0, eta: int = 16) -> Value:
    """Laplace with density exp(−|x − loc|/scale) / 2·scale (numpy's laplace(loc, scale))."""
    return laws.Laplace(loc, scale).quantize(eta)


def uniform(low: float = 0.0, high: float = 1.0, eta: int = 16) -> Value:
    """Uniform on [low, high] (numpy's uniform(low, high))."""
    return laws.Uniform(low, high).quantize(eta)


def exponential(scale: float = 1.0, eta: int = 16) -> Value:
    """Exponential with mean scale, i.e. rate 1/scale (numpy's exponential(scale))."""
    return laws.Exponential(scale).quantize(eta)


def student_t(df: float, loc: float = 0.0, scale: float = 1.0, eta: int = 16) -> Value:
    """loc + scale·T with T ~ Student-t(df), df > 1 (scipy's t(df, loc, scale))."""
    return laws.StudentT(df, loc, scale).quantize(eta)


def lognormal(mu: float = 0.0, sigma: float = 1.0, eta: int = 16) -> Value:
    """exp(N(mu, sigma²)) (numpy's lognormal(mean=mu, sigma=sigma))."""
    return laws.LogNormal(mu, sigma).quantize(eta)


def point(c: float, eta: int = 16) -> Value:
    """A certain value: one atom of weight 1."""
    c = float(c)
    if not np.isfinite(c):
        raise ValueError(f"a point value must be finite, got {c}")
    return Value(np.array([c]), np.array([1.0]), eta)


def from_samples(samples, eta: int = 16) -> Value:
    """Equal-weight samples reduced with TTR."""
    s = np.asarray(samples, dtype=np.float64).ravel()
    return Value.from_atoms(s, np.ones_like(s), eta)


def from_weighted_samples(samples, weights, eta: int = 16) -> Value:
    """Weighted samples (weights ≥ 0, any total) reduced with TTR."""
    return Value.from_atoms(samples, weights, eta)


def mixture(a: Value, b: Value, p: float, eta: int | None = None) -> Value:
    """With probability p a draw of `a`, otherwise of `b`."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"mixture probability must be in (0, 1), got {p}")
    eta = max(a.eta, b.eta) if eta is None else eta
    x = np.concatenate([a.x, b.x])
    w = np.concatenate([p * a.w, (1.0 - p) * b.w])
    return Value.from_atoms(x, w, eta)
