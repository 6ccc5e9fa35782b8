"""Lift plain Python functions over independent uncertain values."""

from __future__ import annotations

import numpy as np

from . import _ttr, libm
from .value import Value, normalise


class DependencyError(ValueError):
    """Two different inputs of one lift share an independent source: their joint law is unknown here."""


def unique_inputs(values):
    """Collapse repeated objects to one input and refuse distinct inputs that share a source.

    Returns (distinct values, index of each argument into the distinct list).
    """
    distinct, where = [], []
    for v in values:
        for i, d in enumerate(distinct):
            if d is v:
                where.append(i)
                break
        else:
            for d in distinct:
                shared = d.sources & v.sources
                if shared:
                    raise DependencyError(
                        "these inputs are not independent: they share the uncertain source(s) "
                        f"{sorted(shared)}. Write one function of the independent sources and lift it "
                        "instead, e.g. lift(lambda x: x * (x + 1), x) rather than x * (x + 1)."
                    )
            where.append(len(distinct))
            distinct.append(v)
    return distinct, where


def outer_product(values):
    """Points of the outer product (first input varying slowest) and their product weights."""
    grids = np.meshgrid(*[v.x for v in values], indexing="ij")
    points = [g.ravel() for g in grids]
    weights = values[0].w
    for v in values[1:]:
        weights = np.multiply.outer(weights, v.w).ravel()  # left to right, one rounding per factor
    return points, np.asarray(weights).ravel()


def evaluate(f, values, vectorized=True):
    """f over the outer product of `values`, with repeated objects seen as one input.

    Returns (outputs, weights, distinct inputs) in outer-product order.
    """
    distinct, where = unique_inputs(values)
    points, weights = outer_product(distinct)
    args = [points[i] for i in where]
    with np.errstate(all="ignore"):
        if vectorized:
            y = np.asarray(f(*args), dtype=np.float64)
            y = np.broadcast_to(y, weights.shape).copy() if y.shape != weights.shape else y
        else:
            y = np.array([f(*p) for p in zip(*args)], dtype=np.float64)
    return y, weights, distinct


def lift(f, *values: Value, eta: int | None = None, vectorized: bool = True) -> Value:
    """The law of f(values…) for independent inputs: outer product, TTR in that order, normalise.

    `f` takes numpy arrays (one per input) and works elementwise; pass `vectorized=False` for a
    function of plain floats. The result is built for `eta` atoms (default: the largest input size).
    """
    if not values:
        raise TypeError("lift needs at least one uncertain input")
    for v in values:
        if not isinstance(v, Value):
            raise TypeError(f"lift inputs must be Values, got {type(v).__name__}; close over constants")
    eta = max(v.eta for v in values) if eta is None else eta
    n = _ttr.log2_eta(eta)
    y, weights, distinct = evaluate(f, values, vectorized)
    if not np.isfinite(y).all():
        bad = np.flatnonzero(~np.isfinite(y))[0]
        raise ValueError(
            f"the lifted function returned {y[bad]} at one of the input points: "
            "it is not defined on the whole support of its inputs"
        )
    xs, ws = _ttr.compact(y, weights)
    px, pw = _ttr.ttr(xs, ws, n)
    sources = frozenset().union(*(v.sources for v in distinct))
    return Value(px, normalise(pw), eta, sources)


def _unary(fn):
    def op(v: Value) -> Value:
        return lift(fn, v)

    op.__name__ = fn.__name__
    op.__doc__ = f"Elementwise {fn.__name__} of an uncertain value (a one-input lift)."
    return op


exp = _unary(libm.exp)
log = _unary(libm.log)
sin = _unary(libm.sin)
cos = _unary(libm.cos)
sqrt = _unary(np.sqrt)


def pow(base, exponent):  # noqa: A001 - mirrors math.pow / the C core's ux_pow
    """base ** exponent for values and/or scalars."""
    if isinstance(base, Value):
        return base**exponent
    return exponent.__rpow__(base)


def independent_copy(v: Value) -> Value:
    """The same law as a fresh independent source."""
    return v.independent_copy()
