"""Constructors of uncertain values, each a fresh independent source."""
from __future__ import annotations

import numpy as np

from . import laws
from .value import Value


def gaussian(mu: float = 0.0, sigma: float = 1.0, eta: int = 16) -> Value:
    return laws.Normal(mu, sigma).quantize(eta)


def laplace(mu: float = 0.0, b: float = 1.0, eta: int = 16) -> Value:
    """Laplace with scale b (density exp(−|x − μ|/b) / 2b)."""
    return laws.Laplace(mu, b).quantize(eta)


def uniform(a: float = 0.0, b: float = 1.0, eta: int = 16) -> Value:
    return laws.Uniform(a, b).quantize(eta)


def exponential(lam: float = 1.0, eta: int = 16) -> Value:
    return laws.Exponential(lam).quantize(eta)


def student_t(nu: float, mu: float = 0.0, s: float = 1.0, eta: int = 16) -> Value:
    return laws.StudentT(nu, mu, s).quantize(eta)


def lognormal(mu: float = 0.0, sigma: float = 1.0, eta: int = 16) -> Value:
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
