"""Continuous laws: analytic quantization to a Value, sampling, log-density.

A law is a recipe, a Value is one quantization of it: models hold laws so the same model runs at any η
and so baselines (particle filters, Monte Carlo) can sample the very same noise.

Quantization runs the TTR recursion on the continuous law (docs/semantics.md): cells are intervals,
each split at its conditional mean G(a, b) / P(a, b), with closed forms for the mass P and the partial
first moment G. Cells left of the law's median use F(b) − F(a), the others S(a) − S(b), so that tail
cells keep full relative precision. A law that is loc + scale·(a standard law) — Gaussian, Laplace,
Uniform, Exponential — is quantized as the standard law's atoms, computed once, scaled: the C core
holds the same atoms as a generated table (scripts/codegen/std_atoms.py).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from . import _ttr, libm
from .value import Value, normalise

_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_LOG_SQRT_2PI = 0.5 * libm.log(2.0 * math.pi)


def _phi(t: float) -> float:
    return 0.0 if math.isinf(t) else _INV_SQRT_2PI * libm.exp(-0.5 * t * t)


def _Phi(t: float) -> float:
    return 0.5 * math.erfc(-t / _SQRT2)


def _Q(t: float) -> float:
    """Standard normal survival function."""
    return 0.5 * math.erfc(t / _SQRT2)


class Law:
    """Base: subclasses give cdf/sf/partial moment on scalars, and the support."""

    lower = -math.inf
    upper = math.inf

    def median(self) -> float:
        raise NotImplementedError

    def cdf1(self, t: float) -> float:
        raise NotImplementedError

    def sf1(self, t: float) -> float:
        raise NotImplementedError

    def partial(self, a: float, b: float) -> float:
        """∫_a^b t dF(t)."""
        raise NotImplementedError

    def mass(self, a: float, b: float) -> float:
        if a < self.median():
            return self.cdf1(b) - self.cdf1(a)
        return self.sf1(a) - self.sf1(b)

    def location_scale(self):
        """(loc, scale) when this law is loc + scale·S for its class's standard law S (STANDARD_FORMS),
        else None."""
        return None

    def quantize(self, eta: int = 16) -> Value:
        """Analytic TTR quantization at eta atoms (a fresh independent source)."""
        n = _ttr.log2_eta(eta)
        form = self.location_scale()
        if form is None:
            try:
                x, w = self.quantize_atoms(n)
            except OverflowError:
                x = np.array([math.inf])
            if not np.isfinite(x).all():
                raise ValueError(f"{self} has atoms beyond the floating-point range")
            return Value(x, normalise(w), eta)
        loc, scale = form
        sx, sw = standard_atoms(type(self), n)
        x = loc + scale * sx
        if not np.isfinite(x).all():
            raise ValueError(f"{self} has atoms beyond the floating-point range")
        x, w = _ttr.merge_equal(x, sw)  # a scale tiny beside loc can round neighbours together
        return Value(x, w, eta)

    def quantize_atoms(self, n: int):
        """Unnormalised cell means and masses after n levels; n may exceed 6 for internal use."""
        cells = [(self.lower, self.upper)]
        for _ in range(n):
            nxt = []
            for a, b in cells:
                p = self.mass(a, b)
                m = self.partial(a, b) / p if p != 0.0 else math.nan  # a cell without mass: 0/0, as in C
                nxt.append((a, m))
                nxt.append((m, b))
            cells = nxt
        xs, ws = [], []
        for a, b in cells:
            p = self.mass(a, b)
            if p > 0.0:
                x = self.partial(a, b) / p
                if xs and not x > xs[-1]:  # a scale so small that cell means round together (or even out
                    ws[-1] = ws[-1] + p  # of order): merge into the previous atom, as in C
                else:
                    xs.append(x)
                    ws.append(p)
        return np.array(xs), np.array(ws)

    # Subclasses give sample(rng, size) and logpdf(x) vectorised, plus mean() and var().
    def cdf(self, t):
        return np.vectorize(self.cdf1, otypes=[float])(t)

    def pdf(self, t):
        return libm.exp(self.logpdf(t))


@dataclass(frozen=True)
class Normal(Law):
    """Normal with mean μ and standard deviation σ: numpy's normal(loc=μ, scale=σ), scipy's norm(μ, σ)."""

    mu: float = 0.0
    sigma: float = 1.0

    def __post_init__(self):
        _check_finite(self.mu, "mu")
        _check_positive(self.sigma, "sigma")

    def median(self):
        return self.mu

    def location_scale(self):
        return self.mu, self.sigma

    def cdf1(self, t):
        return _Phi((t - self.mu) / self.sigma)

    def sf1(self, t):
        return _Q((t - self.mu) / self.sigma)

    def partial(self, a, b):
        al, be = (a - self.mu) / self.sigma, (b - self.mu) / self.sigma
        return self.mu * self.mass(a, b) + self.sigma * (_phi(al) - _phi(be))

    def mean(self):
        return self.mu

    def var(self):
        return self.sigma**2

    def sample(self, rng, size=None):
        return rng.normal(self.mu, self.sigma, size)

    def logpdf(self, x):
        t = (np.asarray(x, dtype=float) - self.mu) / self.sigma
        return -0.5 * t * t - _LOG_SQRT_2PI - libm.log(self.sigma)

    def quadrature(self, n: int = 32):
        """Gauss–Hermite nodes and weights: exact expectations of polynomials up to degree 2n−1."""
        t, w = _hermite_nodes(n)
        return self.mu + self.sigma * t, w


@dataclass(frozen=True)
class Laplace(Law):
    """Laplace(loc, scale): density exp(−|x − loc| / scale) / 2·scale, as numpy's and scipy's laplace."""

    loc: float = 0.0
    scale: float = 1.0

    def __post_init__(self):
        _check_finite(self.loc, "loc")
        _check_positive(self.scale, "scale")

    def median(self):
        return self.loc

    def location_scale(self):
        return self.loc, self.scale

    def cdf1(self, t):
        z = (t - self.loc) / self.scale
        return 0.5 * libm.exp(z) if z < 0 else 1.0 - 0.5 * libm.exp(-z)

    def sf1(self, t):
        z = (t - self.loc) / self.scale
        return 1.0 - 0.5 * libm.exp(z) if z < 0 else 0.5 * libm.exp(-z)

    @staticmethod
    def _H(z: float) -> float:
        """Antiderivative of z·f(z) for the standard law, zero at ±∞."""
        if math.isinf(z):
            return 0.0
        return 0.5 * libm.exp(z) * (z - 1.0) if z < 0 else -0.5 * libm.exp(-z) * (z + 1.0)

    def partial(self, a, b):
        za, zb = (a - self.loc) / self.scale, (b - self.loc) / self.scale
        return self.loc * self.mass(a, b) + self.scale * (self._H(zb) - self._H(za))

    def mean(self):
        return self.loc

    def var(self):
        return 2.0 * self.scale**2

    def sample(self, rng, size=None):
        return rng.laplace(self.loc, self.scale, size)

    def logpdf(self, x):
        return -np.abs(np.asarray(x, dtype=float) - self.loc) / self.scale - libm.log(2.0 * self.scale)

    def quadrature(self, n: int = 256):
        """A 256-atom TTR quantization as quadrature rule (cached: laws are immutable)."""
        return _quantized_rule(self, int(math.log2(n)))


@dataclass(frozen=True)
class Uniform(Law):
    """Uniform on [low, high], as numpy's uniform(low, high) (scipy: uniform(loc=low, scale=high − low))."""

    low: float = 0.0
    high: float = 1.0

    def __post_init__(self):
        _check_finite(self.low, "low")
        _check_finite(self.high, "high")
        if not self.low < self.high:
            raise ValueError(f"Uniform needs low < high, got low={self.low}, high={self.high}")
        object.__setattr__(self, "lower", float(self.low))
        object.__setattr__(self, "upper", float(self.high))

    def median(self):
        return 0.5 * (self.low + self.high)

    def location_scale(self):
        return self.low, self.high - self.low

    def cdf1(self, t):
        return min(max((t - self.low) / (self.high - self.low), 0.0), 1.0)

    def sf1(self, t):
        return min(max((self.high - t) / (self.high - self.low), 0.0), 1.0)

    def partial(self, a, b):
        lo, hi = max(a, self.low), min(b, self.high)
        # Factored: hi² − lo² cancels badly on a narrow law far from 0 (and in the float build).
        return (hi - lo) * (hi + lo) / (2.0 * (self.high - self.low)) if hi > lo else 0.0

    def mean(self):
        return 0.5 * (self.low + self.high)

    def var(self):
        return (self.high - self.low) ** 2 / 12.0

    def sample(self, rng, size=None):
        return rng.uniform(self.low, self.high, size)

    def logpdf(self, x):
        x = np.asarray(x, dtype=float)
        inside = (x >= self.low) & (x <= self.high)
        return np.where(inside, -libm.log(self.high - self.low), -np.inf)


@dataclass(frozen=True)
class Exponential(Law):
    """Exponential with mean `scale` (rate 1/scale) on [0, ∞), as numpy's exponential(scale) and scipy's
    expon(scale=scale)."""

    scale: float = 1.0
    lower = 0.0

    def __post_init__(self):
        _check_positive(self.scale, "scale")

    def median(self):
        return libm.log(2.0) * self.scale

    def location_scale(self):
        return 0.0, self.scale

    def cdf1(self, t):
        return -libm.expm1(-t / self.scale) if t > 0 else 0.0

    def sf1(self, t):
        return libm.exp(-t / self.scale) if t > 0 else 1.0

    def _H(self, t):
        """Antiderivative of t·f(t): −e^{−t/scale}(t + scale), zero at +∞."""
        return 0.0 if math.isinf(t) else -libm.exp(-t / self.scale) * (t + self.scale)

    def partial(self, a, b):
        return self._H(b) - self._H(max(a, 0.0))

    def mean(self):
        return self.scale

    def var(self):
        return self.scale**2

    def sample(self, rng, size=None):
        return rng.exponential(self.scale, size)

    def logpdf(self, x):
        x = np.asarray(x, dtype=float)
        return np.where(x >= 0, -x / self.scale - libm.log(self.scale), -np.inf)


@dataclass(frozen=True)
class StudentT(Law):
    """Location–scale Student-t, as scipy's t(df, loc, scale): loc + scale·T with T ~ t(df), df > 1 (so
    that the mean exists)."""

    df: float = 3.0
    loc: float = 0.0
    scale: float = 1.0

    def __post_init__(self):
        if not (math.isfinite(self.df) and self.df > 1.0):
            raise ValueError(f"StudentT needs df > 1 (a finite mean), got {self.df}")
        _check_finite(self.loc, "loc")
        _check_positive(self.scale, "scale")

    def median(self):
        return self.loc

    def _lower_tail(self, z: float) -> float:
        """P(T ≤ z) for z ≤ 0 through the regularised incomplete beta."""
        if math.isinf(z):
            return 0.0
        return 0.5 * float(special.betainc(0.5 * self.df, 0.5, self.df / (self.df + z * z)))

    def cdf1(self, t):
        z = (t - self.loc) / self.scale
        return self._lower_tail(z) if z <= 0 else 1.0 - self._lower_tail(-z)

    def sf1(self, t):
        z = (t - self.loc) / self.scale
        return self._lower_tail(-z) if z >= 0 else 1.0 - self._lower_tail(z)

    def _f(self, z):
        nu = self.df
        logc = math.lgamma(0.5 * (nu + 1)) - math.lgamma(0.5 * nu) - 0.5 * libm.log(nu * math.pi)
        return libm.exp(logc - 0.5 * (nu + 1) * libm.log1p(z * z / nu))

    def _H(self, z):
        """Antiderivative of z·f(z): −(ν + z²)/(ν − 1)·f(z), zero at ±∞."""
        if math.isinf(z):
            return 0.0
        return -(self.df + z * z) / (self.df - 1.0) * self._f(z)

    def partial(self, a, b):
        za, zb = (a - self.loc) / self.scale, (b - self.loc) / self.scale
        return self.loc * self.mass(a, b) + self.scale * (self._H(zb) - self._H(za))

    def mean(self):
        return self.loc

    def var(self):
        return self.scale**2 * self.df / (self.df - 2.0) if self.df > 2 else math.inf

    def sample(self, rng, size=None):
        return self.loc + self.scale * rng.standard_t(self.df, size)

    def logpdf(self, x):
        z = (np.asarray(x, dtype=float) - self.loc) / self.scale
        nu = self.df
        logc = math.lgamma(0.5 * (nu + 1)) - math.lgamma(0.5 * nu) - 0.5 * libm.log(nu * math.pi)
        return logc - 0.5 * (nu + 1) * libm.log1p(z * z / nu) - libm.log(self.scale)


@dataclass(frozen=True)
class LogNormal(Law):
    """exp(N(μ, σ²)): μ and σ are those of the logarithm, as numpy's lognormal(mean=μ, sigma=σ) (scipy:
    lognorm(σ, scale=e^μ))."""

    mu: float = 0.0
    sigma: float = 1.0
    lower = 0.0

    def __post_init__(self):
        _check_finite(self.mu, "mu")
        _check_positive(self.sigma, "sigma")

    def _z(self, t):
        if t <= 0:
            return -math.inf
        return (libm.log(t) - self.mu) / self.sigma

    def median(self):
        return libm.exp(self.mu)

    def cdf1(self, t):
        return _Phi(self._z(t))

    def sf1(self, t):
        return _Q(self._z(t))

    def partial(self, a, b):
        za, zb = self._z(a), self._z(b)
        scale = libm.exp(self.mu + 0.5 * self.sigma**2)
        if za < 0:
            return scale * (_Phi(zb - self.sigma) - _Phi(za - self.sigma))
        return scale * (_Q(za - self.sigma) - _Q(zb - self.sigma))

    def mean(self):
        return libm.exp(self.mu + 0.5 * self.sigma**2)

    def var(self):
        return (libm.exp(self.sigma**2) - 1.0) * libm.exp(2 * self.mu + self.sigma**2)

    def sample(self, rng, size=None):
        return rng.lognormal(self.mu, self.sigma, size)

    def logpdf(self, x):
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            lx = libm.log(x)
            out = -0.5 * ((lx - self.mu) / self.sigma) ** 2 - lx - _LOG_SQRT_2PI - libm.log(self.sigma)
        return np.where(x > 0, out, -np.inf)


@functools.lru_cache(maxsize=32)
def _hermite_nodes(n: int):
    """Probabilists' Gauss–Hermite rule, normalised; an eigen-solve worth computing once per n."""
    t, w = np.polynomial.hermite_e.hermegauss(n)
    return t, w / w.sum()


@functools.lru_cache(maxsize=64)
def _quantized_rule(law: Law, n: int):
    x, w = law.quantize_atoms(n)
    return x, w / w.sum()


def _check_finite(v, name):
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v}")


def _check_positive(v, name):
    if not (math.isfinite(v) and v > 0):
        raise ValueError(f"{name} must be a finite positive number, got {v}")


# The standard member of every law class that has a location–scale form (Law.location_scale).
STANDARD_FORMS = {
    Normal: Normal(0.0, 1.0),
    Laplace: Laplace(0.0, 1.0),
    Uniform: Uniform(0.0, 1.0),
    Exponential: Exponential(1.0),
}


@functools.lru_cache(maxsize=None)
def standard_atoms(kind: type, n: int):
    """The standard law's 2**n atoms, weights normalised: the table every quantization of `kind` scales."""
    x, w = STANDARD_FORMS[kind].quantize_atoms(n)
    w = normalise(w)
    x.flags.writeable = False
    w.flags.writeable = False
    return x, w
