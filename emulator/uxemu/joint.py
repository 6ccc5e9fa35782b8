"""Joint values: a law on R^d (d ≤ 4) carried as at most η weighted atoms (docs/semantics.md, "Joint values").

The reduction generalises TTR: at each level every cell is split at its weighted mean along one axis, and
after n levels each cell becomes its conditional mean, so the mean is kept exactly (up to rounding). The
axis is the one whose weighted variance in the cell is the largest *relative to the whole set's variance
along that axis* ("scaled"), chosen over the alternatives in benchmarks/results/joint_reduction.md. As for the
scalar TTR nothing is sorted and every cell sum runs over the cell's atoms in their input order, so the C
core (firmware/src/ux/joint.c) reproduces the reduction bit for bit; with d = 1 it is the scalar TTR.

    >>> from uxemu import gaussian, joint
    >>> v = joint.product(gaussian(0, 1, 8), gaussian(5, 2, 8), eta=16)
    >>> len(v), v.dim, round(float(v.mean()[1]), 12), round(v.sf(1, 5.0), 3)
    (16, 2, 5.0, 0.5)
"""

from __future__ import annotations

import numpy as np

from . import _ttr
from .facts import MAX_ARGS, MAX_DIM
from .lift import DependencyError, outer_product, unique_inputs
from .value import Value, fresh_source

# The split rule of the core, and the alternatives the benchmark measured it against. Only "scaled" is in
# the C core; the others exist here so that the choice can be re-measured.
RULE = "scaled"
RULES = ("scaled", "variance", "cycle", "principal")


class JointValue:
    """Atoms `x` (M × d) with weights `w` (> 0, summing to 1), built for size `eta`, in the reduction's
    output order (its cells left to right). Make them with `from_atoms` or `product`."""

    __slots__ = ("x", "w", "eta", "sources")

    def __init__(self, x, w, eta: int, sources: frozenset | None = None):
        self.x = np.asarray(x, dtype=np.float64)
        self.w = np.asarray(w, dtype=np.float64)
        self.eta = int(eta)
        self.sources = fresh_source() if sources is None else sources
        self.x.flags.writeable = False
        self.w.flags.writeable = False

    @classmethod
    def from_atoms(cls, x, w=None, eta: int = 16, sources: frozenset | None = None, rule: str = RULE):
        """Rows of `x` (M × d) with weights `w` (None: equal): zero weights dropped, reduced to ≤ eta atoms,
        normalised. The one path every weighted joint atom set takes."""
        n = _ttr.log2_eta(eta)
        x = np.asarray(x, dtype=np.float64)
        if x.ndim == 1:
            x = x[:, None]
        if x.ndim != 2 or not 1 <= x.shape[1] <= MAX_DIM:
            raise ValueError(f"joint atoms must be an (M, d) array with 1 ≤ d ≤ {MAX_DIM}, got shape {x.shape}")
        w = np.ones(x.shape[0]) if w is None else np.asarray(w, dtype=np.float64).ravel()
        if w.size != x.shape[0]:
            raise ValueError(f"{x.shape[0]} atoms but {w.size} weights")
        if x.shape[0] == 0:
            raise ValueError("a joint value needs at least one atom")
        if not (np.isfinite(x).all() and np.isfinite(w).all()):
            raise ValueError("positions and weights must be finite")
        if (w < 0).any():
            raise ValueError("weights must be non-negative")
        keep = w != 0
        if not keep.any():
            raise ValueError("every weight is zero")
        px, pw = reduce(x[keep], w[keep], n, rule)
        return cls(px, pw / _ttr.sequential_sum(pw), eta, sources)

    # -- shape -------------------------------------------------------------------------------------
    @property
    def dim(self) -> int:
        return self.x.shape[1]

    def __len__(self) -> int:
        return self.x.shape[0]

    def __repr__(self) -> str:
        return f"JointValue(dim={self.dim}, eta={self.eta}, atoms={len(self)}, mean={self.mean()})"

    def independent_copy(self) -> "JointValue":
        return JointValue(self.x, self.w, self.eta)

    # -- statistics: sequential sums over the atoms in order, as in the C core ---------------------
    def mean(self) -> np.ndarray:
        """E[X], one component at a time: Σ w·x_k."""
        return _column_sums(self.w[:, None] * self.x)

    def cov(self) -> np.ndarray:
        """Σ w·(d_j·d_k) with d = x − mean: the d × d covariance (symmetric by construction)."""
        d = self.x - self.mean()
        return _column_sums(self.w[:, None, None] * (d[:, :, None] * d[:, None, :])).reshape(self.dim, self.dim)

    def marginal(self, k: int) -> Value:
        """The law of component k as a scalar value: the atoms sorted by x_k (stable, so equal positions
        keep their order), equal positions merged with masses added in that order; not renormalised."""
        k = self._component(k)
        order = np.argsort(self.x[:, k], kind="stable")
        pos, mass = _ttr.merge_equal(self.x[order, k], self.w[order])
        return Value(pos.copy(), mass.copy(), self.eta, self.sources)

    def quantile(self, k: int, q):
        """The q-quantile of component k (that of its marginal)."""
        return self.marginal(k).quantile(q)

    def cdf(self, k: int, t):
        return self.marginal(k).cdf(t)

    def sf(self, k: int, t):
        """P(X_k > t), summed from the top atom of the marginal down."""
        return self.marginal(k).sf(t)

    prob_greater = sf

    def _component(self, k) -> int:
        k = int(k)
        if not 0 <= k < self.dim:
            raise ValueError(f"component {k} of a {self.dim}-dimensional value")
        return k


def from_atoms(x, w=None, eta: int = 16, rule: str = RULE) -> JointValue:
    """A joint value with a fresh source from rows of positions and weights (see JointValue.from_atoms)."""
    return JointValue.from_atoms(x, w, eta, rule=rule)


def product(*values: Value, eta: int | None = None, rule: str = RULE) -> JointValue:
    """The joint law of independent scalar values, one per component, reduced to eta (default: the largest
    input eta). The outer product is enumerated with the first component varying slowest and weights
    multiplied left to right, as a lift's. The same value twice is one input (its component repeats);
    different values that share a source are refused, as by lift."""
    if not 1 <= len(values) <= MAX_DIM:
        raise ValueError(f"a joint value has 1 to {MAX_DIM} components, got {len(values)}")
    distinct, where = unique_inputs(values)
    points, wprod = outer_product(distinct)
    x = np.stack([points[j] for j in where], axis=1)
    sources = frozenset().union(*[v.sources for v in distinct])
    eta = max(v.eta for v in distinct) if eta is None else eta
    return JointValue.from_atoms(x, wprod, eta, sources, rule)


def lift(f, state: JointValue, *noises: Value, eta: int | None = None) -> JointValue:
    """The law of x' = f(x, w): f evaluated on the product of the state's atoms and the independent scalar
    noises' outer product, then reduced (docs/semantics.md, "Joint lift").

    `f(x, w)` takes the points as arrays — x of shape (P, d), w of shape (P, k), one row per point — and
    returns a (P, d') array (1 ≤ d' ≤ 4), each row computed from its own row only (so the C core, which
    calls it one point at a time, gets the same numbers). Points are enumerated with the state's atom
    varying slowest, then the noises in order; weights are multiplied left to right. eta defaults to the
    largest of the inputs'. The same noise twice is one input; inputs sharing a source are refused.
    """
    if not isinstance(state, JointValue):
        raise TypeError(f"the state must be a JointValue, got {type(state).__name__}")
    if len(noises) > MAX_ARGS:
        raise ValueError(f"at most {MAX_ARGS} noise inputs, got {len(noises)}")
    distinct, where = unique_inputs(noises) if noises else ([], [])
    for v in distinct:
        shared = state.sources & v.sources
        if shared:
            raise DependencyError(
                f"the noise shares the uncertain source(s) {sorted(shared)} with the state: "
                "the transition's inputs must be independent"
            )
    weights = state.w
    for v in distinct:  # left to right: (w_state · w_1) · w_2 …, as the C loop multiplies
        weights = np.multiply.outer(weights, v.w).ravel()
    if distinct:
        points, _ = outer_product(distinct)
        noise = np.stack([points[j] for j in where], axis=1)
    else:
        noise = np.zeros((1, 0))
    rows = noise.shape[0]
    x = np.repeat(state.x, rows, axis=0)
    w = np.tile(noise, (len(state), 1))
    with np.errstate(all="ignore"):
        y = np.asarray(f(x, w), dtype=np.float64)
    if y.ndim != 2 or y.shape[0] != x.shape[0]:
        raise ValueError(f"f must return one row per point, shape ({x.shape[0]}, d'); got {y.shape}")
    if not np.isfinite(y).all():
        raise ValueError(
            "the transition returned a non-finite value at one of the points: it is not defined "
            "on the whole support of its inputs"
        )
    eta = max([state.eta] + [v.eta for v in distinct]) if eta is None else eta
    sources = frozenset(state.sources).union(*(v.sources for v in distinct))
    return JointValue.from_atoms(y, weights, eta, sources)


# -- the reduction ----------------------------------------------------------------------------------
def _column_sums(values: np.ndarray) -> np.ndarray:
    """Σ over the first axis in index order (cumsum is sequential; numpy's sum is pairwise)."""
    return np.cumsum(values, axis=0)[-1]


def _grouped(x, w, key, keys: int):
    """Per key: W = Σw, S = Σw·x (d columns), lo, hi (d columns), sums sequential in input order.

    Rows of a key with no atom hold W = 0 and lo > hi. Also returns the stable grouping (order, starts,
    live keys) for further sums over the same cells."""
    order = np.argsort(key, kind="stable")
    counts = np.bincount(key, minlength=keys)
    live = counts > 0
    ends = np.cumsum(counts)[live]
    starts = ends - counts[live]
    width = int(counts.max())
    cols = np.arange(width)
    inside = cols[None, :] < (ends - starts)[:, None]
    idx = np.where(inside, starts[:, None] + cols[None, :], 0)
    xs, ws = x[order], w[order]
    wm = np.where(inside, ws[idx], 0.0)
    xm = np.where(inside[:, :, None], xs[idx], 0.0)
    d = x.shape[1]
    W = np.zeros(keys)
    S = np.zeros((keys, d))
    lo = np.full((keys, d), np.inf)
    hi = np.full((keys, d), -np.inf)
    W[live] = np.cumsum(wm, axis=1)[:, -1]
    S[live] = np.cumsum(wm[:, :, None] * xm, axis=1)[:, -1]
    lo[live] = np.minimum.reduceat(xs, starts, axis=0)
    hi[live] = np.maximum.reduceat(xs, starts, axis=0)
    return W, S, lo, hi, (inside, idx, order, live)


def _variance_sums(x, w, key, mean, grouping):
    """V[c, k] = Σ w·(d·d), d = x_k − mean[c, k], over cell c's atoms in input order."""
    inside, idx, order, live = grouping
    dev = x - mean[key]
    terms = w[:, None] * (dev * dev)
    tm = np.where(inside[:, :, None], terms[order][idx], 0.0)
    V = np.zeros_like(mean)
    V[live] = np.cumsum(tm, axis=1)[:, -1]
    return V


def _choose_axes(score, eligible):
    """Per cell, the eligible axis with the largest score, the lowest on a tie (or when every score is
    0 or NaN); axis 0 when none is eligible. Written as the C loop: best starts at −1, '>' replaces."""
    cells, d = score.shape
    axis = np.zeros(cells, dtype=np.int64)
    best = np.full(cells, -1.0)
    for k in range(d):
        better = eligible[:, k] & (score[:, k] > best)
        axis = np.where(better, k, axis)
        best = np.where(better, score[:, k], best)
    return axis


def _principal_split(x, w, key, mean, grouping, cells):
    """Benchmark alternative (not in C): project each cell on its covariance's leading eigenvector."""
    inside, idx, order, live = grouping
    d = x.shape[1]
    proj = np.zeros(x.shape[0])
    split = np.zeros(cells)
    for c in np.flatnonzero(live):
        sel = key == c
        dev = x[sel] - mean[c]
        cov = (w[sel, None, None] * dev[:, :, None] * dev[:, None, :]).sum(axis=0)
        v = np.linalg.eigh(cov)[1][:, -1] if d > 1 else np.ones(1)
        proj[sel] = x[sel] @ v
        split[c] = mean[c] @ v
    return proj, split


def reduce(x, w, n: int, rule: str = RULE):
    """The joint TTR(n) of atoms x (M × d), weights w > 0 in any order: ≤ 2^n atoms (rows, the cells left
    to right) and their masses, not renormalised."""
    if rule not in RULES:
        raise ValueError(f"unknown split rule {rule!r}; one of {RULES}")
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    M, d = x.shape
    key = np.zeros(M, dtype=np.int64)
    V0 = None
    rows = np.arange(M)
    for level in range(n):
        cells = 1 << level
        W, S, lo, hi, grouping = _grouped(x, w, key, cells)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = S / W[:, None]  # NaN for a cell with no atom: no atom asks for it
        if rule == "principal":
            proj, split = _principal_split(x, w, key, mean, grouping, cells)
            key = 2 * key + (~(proj < split[key])).astype(np.int64)
            continue
        eligible = lo < hi
        if d == 1:
            axis = np.zeros(cells, dtype=np.int64)
        elif rule == "cycle":
            score = (np.arange(d)[None, :] - level) % d  # distance after axis ℓ mod d in cycle order
            axis = _choose_axes(-score.astype(float) + d, eligible)
        else:
            V = _variance_sums(x, w, key, mean, grouping)
            if level == 0:
                V0 = V[0].copy()
            if rule == "variance":
                score = V
            else:
                with np.errstate(invalid="ignore", divide="ignore"):
                    score = np.where(V0 > 0, V / np.where(V0 > 0, V0, 1.0), 0.0)
            axis = _choose_axes(score, eligible)
        split = mean[np.arange(cells), axis]
        key = 2 * key + (~(x[rows, axis[key]] < split[key])).astype(np.int64)
    W, S, lo, hi, (_, _, _, live) = _grouped(x, w, key, 1 << n)
    pos = np.minimum(np.maximum(S[live] / W[live][:, None], lo[live]), hi[live])
    return pos, W[live]
