"""The uncertain value: a Dirac mixture of at most η = 2**n atoms, with its statistics and density."""

from __future__ import annotations

import itertools

import numpy as np

from . import _density, _ttr

_source_ids = itertools.count(1)


def fresh_source() -> frozenset:
    """A new independent source: what every constructor (and independent_copy) gives its value."""
    return frozenset((next(_source_ids),))


class Value:
    """Atoms `x` (strictly increasing) with weights `w` (> 0, summing to 1), built for size `eta`.

    Make values with the constructors (`gaussian`, `from_samples`, …) or with arithmetic on values;
    the initialiser takes atoms that already satisfy the invariants.
    """

    __slots__ = ("x", "w", "eta", "sources", "__weakref__")
    __array_priority__ = 1000  # so `ndarray * value` defers to Value's operators

    def __init__(self, x, w, eta: int, sources: frozenset | None = None):
        self.x = np.asarray(x, dtype=np.float64)
        self.w = np.asarray(w, dtype=np.float64)
        self.eta = int(eta)
        self.sources = fresh_source() if sources is None else sources
        self.x.flags.writeable = False
        self.w.flags.writeable = False

    # -- construction from weighted atoms -------------------------------------------------------
    @classmethod
    def from_atoms(cls, x, w, eta: int = 16, sources: frozenset | None = None) -> "Value":
        """Zero weights dropped, TTR(log2 eta), normalise: the one path every weighted atom set takes."""
        n = _ttr.log2_eta(eta)
        x = np.asarray(x, dtype=np.float64).ravel()
        w = np.asarray(w, dtype=np.float64).ravel()
        if x.shape != w.shape:
            raise ValueError(f"{x.size} positions but {w.size} weights")
        if x.size == 0:
            raise ValueError("a value needs at least one atom")
        if not (np.isfinite(x).all() and np.isfinite(w).all()):
            raise ValueError("positions and weights must be finite")
        if (w < 0).any():
            raise ValueError("weights must be non-negative")
        xs, ws = _ttr.compact(x, w)
        if xs.size == 0:
            raise ValueError("every weight is zero")
        px, pw = _ttr.ttr(xs, ws, n)
        return cls(px, normalise(pw), eta, sources)

    # -- basic shape -----------------------------------------------------------------------------
    def __len__(self) -> int:
        return self.x.size

    def __repr__(self) -> str:
        return f"Value(eta={self.eta}, atoms={self.x.size}, mean={self.mean():.6g}, std={self.std():.6g})"

    def independent_copy(self) -> "Value":
        """The same law as a new independent source (the paper's IndependentCopy)."""
        return Value(self.x, self.w, self.eta)

    # -- statistics (sequential sums, as in the C core) -----------------------------------------
    def mean(self) -> float:
        return _ttr.sequential_sum(self.w * self.x)

    def var(self) -> float:
        d = self.x - self.mean()
        return _ttr.sequential_sum(self.w * (d * d))

    def std(self) -> float:
        return float(np.sqrt(self.var()))

    def moment(self, k: int, central: bool = False) -> float:
        """E[X^k], or E[(X − mean)^k] when `central`."""
        base = self.x - self.mean() if central else self.x
        return _ttr.sequential_sum(self.w * base ** int(k))

    def skewness(self) -> float:
        return self.moment(3, central=True) / self.var() ** 1.5

    def kurtosis(self) -> float:
        """Excess kurtosis."""
        return self.moment(4, central=True) / self.var() ** 2 - 3.0

    def cdf(self, t):
        """P(X ≤ t); vectorised over t."""
        cw = np.cumsum(self.w)
        k = np.searchsorted(self.x, np.asarray(t, dtype=np.float64), side="right")
        out = np.where(k > 0, cw[np.maximum(k - 1, 0)], 0.0)
        return out if np.ndim(t) else float(out)

    def sf(self, t):
        """P(X > t): the sum of the weights above t (not 1 − cdf, which loses the tail)."""
        rw = np.cumsum(self.w[::-1])[::-1]
        k = np.searchsorted(self.x, np.asarray(t, dtype=np.float64), side="right")
        out = np.where(k < self.x.size, rw[np.minimum(k, self.x.size - 1)], 0.0)
        return out if np.ndim(t) else float(out)

    def prob_greater(self, t):
        """P(X > t), the name the paper's programs use."""
        return self.sf(t)

    def quantile(self, q):
        """Smallest atom whose cumulative weight reaches q (left-continuous inverse cdf)."""
        qa = np.asarray(q, dtype=np.float64)
        if ((qa < 0) | (qa > 1) | ~np.isfinite(qa)).any():
            raise ValueError("quantile level must be in [0, 1]")
        cw = np.cumsum(self.w)
        k = np.minimum(np.searchsorted(cw, qa, side="left"), self.x.size - 1)
        out = self.x[k]
        return out if np.ndim(q) else float(out)

    def support(self) -> tuple[float, float]:
        return float(self.x[0]), float(self.x[-1])

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        """Draws from the atoms with the caller's generator (nothing here owns randomness)."""
        if not isinstance(rng, np.random.Generator):
            raise TypeError("rng must be a numpy.random.Generator, e.g. numpy.random.default_rng(seed)")
        return rng.choice(self.x, size=size, p=self.w / self.w.sum())

    # -- density ---------------------------------------------------------------------------------
    def split_points(self) -> np.ndarray:
        """The M−1 split points between neighbouring atoms (docs/semantics.md, "Density")."""
        return split_points(self.x, self.w)

    def bins(self):
        """The TTR-binned density as (edges[2M+1], heights[2M]); edges interleave atoms and splits."""
        return binned_density(self.x, self.w)

    def pdf(self, t):
        """The TTR-binned density at t (0 outside the outer edges, and for a one-atom value)."""
        out = pdf_at(self.x, self.w, np.asarray(t, dtype=np.float64))
        return out if np.ndim(t) else float(out)

    # -- arithmetic: all through lift ------------------------------------------------------------
    def _binary(self, other, f, name, reflected=False):
        from .lift import lift

        if isinstance(other, Value):
            return lift(f, other, self) if reflected else lift(f, self, other)
        if np.ndim(other) != 0:
            return NotImplemented
        c = float(other)
        if reflected:
            return lift(lambda a: f(c, a), self)
        return lift(lambda a: f(a, c), self)

    def __add__(self, o):
        return self._binary(o, np.add, "add")

    def __radd__(self, o):
        return self._binary(o, np.add, "add", True)

    def __sub__(self, o):
        return self._binary(o, np.subtract, "sub")

    def __rsub__(self, o):
        return self._binary(o, np.subtract, "sub", True)

    def __mul__(self, o):
        return self._binary(o, np.multiply, "mul")

    def __rmul__(self, o):
        return self._binary(o, np.multiply, "mul", True)

    def __truediv__(self, o):
        return self._binary(o, np.divide, "div")

    def __rtruediv__(self, o):
        return self._binary(o, np.divide, "div", True)

    def __pow__(self, o):
        return self._binary(o, np.power, "pow")

    def __rpow__(self, o):
        return self._binary(o, np.power, "pow", True)

    def __neg__(self):
        from .lift import lift

        return lift(np.negative, self)

    def __abs__(self):
        from .lift import lift

        return lift(np.abs, self)


def normalise(w: np.ndarray) -> np.ndarray:
    """w / Σw with the sum taken sequentially."""
    return w / _ttr.sequential_sum(w)


def split_points(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    return _density.split_points_rows(x[None, :], w[None, :])[0]


def binned_density(x: np.ndarray, w: np.ndarray):
    if x.size < 2:
        return np.array([x[0], x[0], x[0]]), np.zeros(2)
    edges, heights = _density.bins_rows(x[None, :], w[None, :])
    return edges[0], heights[0]


def pdf_at(x: np.ndarray, w: np.ndarray, t: np.ndarray) -> np.ndarray:
    flat = np.atleast_1d(t).ravel()
    return _density.pdf_rows(x[None, :], w[None, :], flat)[0].reshape(np.shape(t))
