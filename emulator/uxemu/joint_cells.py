"""The cell filter over a vector state (docs/semantics.md, "Cell filter"): the reference of
firmware/src/ux/joint_cells.c, sum for sum, so that the two agree bit for bit in the double build.

A belief is at most η Gaussian cells (weight, mean, covariance). Each cell goes through the transition and the
observation by its 2d+1 sigma points; before an update, while fewer than η cells exist, the cell of largest
weight × spread against the whole belief is split in two along that direction (each half its half-space's
conditional moments); after it a cell lighter than MERGE_WEIGHT is merged into its nearest. The arrays hold
every cell at once and each operation runs element by element in the C core's order.

    >>> from uxemu import joint_systems
    >>> from uxemu.joint_cells import run_joint_cells
    >>> m = joint_systems.get("pendulum")
    >>> x, z = joint_systems.simulate(m, 20, seed=1)
    >>> run = run_joint_cells(m, z, eta=8)
    >>> run.mean.shape, run.cov.shape, int(run.status.max())
    ((20, 2), (20, 2, 2), 0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from . import _ttr, libm
from .bayes import FAMILY_VARIANCE, Status
from .filter import DEPARTURE_SD, NIS_LIMIT, OUTLIER_GATE, consistency_limit, gate_limit, nis_track
from .joint_filter import JointRun, check_evidence, run_trace
from ._linalg import GateSums, _sum, cholesky, forward, metric, solve
from .joint_systems import JointModel


@dataclass(frozen=True)
class CellAtoms:
    """The cells' means (rows) and weights: what the link's POSTERIOR carries as a cell filter's atoms."""

    x: np.ndarray
    w: np.ndarray


MERGE_WEIGHT = 1e-3  # ux/joint_cells.h UX_CELLS_MERGE_WEIGHT
BEND = 1e-2  # ux/joint_cells.h UX_CELLS_BEND
SPLIT_ITERATIONS = 8  # ux/joint_cells.h UX_CELLS_SPLIT_ITERATIONS
SPLIT_OFFSET = 0.79788456080286535588  # √(2/π): a half-space's conditional mean, in sds from the centre
HALF_LOG_2PI = 0.5 * libm.log(2.0 * math.pi)


def law_moments(law) -> tuple[float, float]:
    """(mean, variance) of a law with a location–scale form (ux_law_moments: the same formulas as its mean() and
    var()); a variance that overflows is none."""
    if law.location_scale() is None:
        raise ValueError(
            f"{law}: a cell filter's prior and noise laws need a mean and a variance (Gaussian, Laplace, uniform, "
            "exponential)"
        )
    try:  # Python's ** raises where C's product overflows to ∞
        mean, var = float(law.mean()), float(law.var())
    except OverflowError:
        mean, var = 0.0, math.inf
    if not (math.isfinite(mean) and math.isfinite(var)):
        raise ValueError(f"{law}: its variance overflows a double")
    return mean, var


class JointCellsFilter:
    """The cell filter step by step (ux_joint_cells): predict(k, u), update(z), mean(), cov(), logpdf(x)."""

    def __init__(
        self,
        model: JointModel,
        eta: int = 16,
        prior=None,
        exchange: bool = True,
        gate: float = OUTLIER_GATE,
        gate_outliers: bool = False,
        nis_limit: float = NIS_LIMIT,
    ):
        _ttr.log2_eta(eta)
        if not model.additive_noise:
            raise ValueError(f"system {model.name}: a cell filter needs a model whose noise enters additively")
        laws = model.prior if prior is None else tuple(prior)
        if len(laws) != model.dim:
            raise ValueError(f"system {model.name} has {model.dim} components; the prior gives {len(laws)}")
        self.model, self.eta, self.dim = model, int(eta), model.dim
        self.exchange = bool(exchange)  # ux_joint_cells_set_exchange: off, the fits' smoother log L
        self.gate, self.gate_outliers = gate_limit(gate), bool(gate_outliers)  # ux_joint_cells_set_gate
        self.test_ratio = math.nan  # the last update's νᵀ·S⁻¹·ν
        self.nis = 1.0  # the running mean of the test ratio per observation component ("Consistency")
        self.nis_limit = consistency_limit(nis_limit)  # ux_joint_cells_set_consistency
        self.departure = np.zeros(model.dim)  # how far the model's own posterior mean may be from the belief's
        noise = [law_moments(law) for law in model.process_noise]
        self.noise_mean = np.array([m for m, _ in noise])
        self.noise_var = np.array([v for _, v in noise])
        moments = [law_moments(law) for law in laws]
        d = self.dim
        self.w = np.ones(1)
        self.m = np.array([[mean for mean, _ in moments]])
        self.P = np.zeros((1, d, d))
        self.bend = np.zeros(1)  # each cell's transition bend at the last predict
        for a, (_, var) in enumerate(moments):
            self.P[0, a, a] = var
        kappa = float(3 - d) if d < 3 else 0.0
        self.w0 = kappa / (float(d) + kappa)
        self.wi = 0.5 / (float(d) + kappa)
        self.scale = math.sqrt(float(d) + kappa)
        self.first = 1 if self.w0 == 0 else 0
        self.last = Status.OK
        self.log_evidence = 0.0
        self.log_likelihood = 0.0

    # -- sigma points ------------------------------------------------------------------------------------
    def _weight(self, p: int) -> float:
        return self.w0 if p == 0 else self.wi

    def _points(self) -> range:
        return range(self.first, 2 * self.dim + 1)

    def sigma_points(self, m: np.ndarray, P: np.ndarray) -> np.ndarray:
        """(n, 2d+1, d): m, then m ± √(d+κ)·(column j of L)."""
        d = self.dim
        L, _ = cholesky(P)
        X = np.empty((m.shape[0], 2 * d + 1, d))
        X[:, 0] = m
        for j in range(d):
            for a in range(d):
                s = self.scale * L[:, a, j]
                X[:, 1 + j, a] = m[:, a] + s
                X[:, 1 + d + j, a] = m[:, a] - s
        return X

    def points_mean(self, Y: np.ndarray) -> np.ndarray:
        return np.stack([_sum(self._weight(p) * Y[:, p, a] for p in self._points()) for a in range(Y.shape[2])], axis=1)

    def points_cross(self, X, mx, Y, my) -> np.ndarray:
        out = np.empty((X.shape[0], X.shape[2], Y.shape[2]))
        for a in range(X.shape[2]):
            for b in range(Y.shape[2]):
                out[:, a, b] = _sum(
                    self._weight(p) * ((X[:, p, a] - mx[:, a]) * (Y[:, p, b] - my[:, b])) for p in self._points()
                )
        return out

    # -- predict -----------------------------------------------------------------------------------------
    def process_cov(self, k: int, u: float) -> np.ndarray:
        """A·diag(var)·Aᵀ, A's column j = f(0, w̄ + e_j) − f(0, w̄)."""
        d, n = self.dim, self.noise_mean.size
        zero = np.zeros((1, d))
        y0 = self.model.transition(zero, self.noise_mean[None, :], k, u)[0]
        A = np.empty((d, n))
        for j in range(n):
            w = self.noise_mean.copy()
            w[j] = w[j] + 1.0
            A[:, j] = self.model.transition(zero, w[None, :], k, u)[0] - y0
        Q = np.empty((d, d))
        for a in range(d):
            for b in range(d):
                Q[a, b] = _sum((A[a, j] * self.noise_var[j]) * A[b, j] for j in range(n))
        return Q

    def predict(self, k: int, u: float = 0.0):
        """Each cell's sigma points through the transition at the noise's mean: their moments plus Q."""
        n, d = self.w.size, self.dim
        Q = self.process_cov(k, u)
        moved = self._departure_through(k, u) if self._departure_kept() else None
        X = self.sigma_points(self.m, self.P)
        noise = np.tile(self.noise_mean, (n * X.shape[1], 1))
        with np.errstate(all="ignore"):
            Y = np.asarray(self.model.transition(X.reshape(-1, d), noise, k, u), dtype=np.float64).reshape(X.shape)
        if not np.isfinite(Y[:, self.first :]).all():
            raise ValueError(f"the transition of {self.model.name} gave a non-finite value at step {k}")
        m = self.points_mean(Y)
        P = self.points_cross(Y, m, Y, m) + Q[None]
        if not np.isfinite(P).all():
            raise ValueError(f"the transition of {self.model.name} gave a cell of non-finite spread at step {k}")
        centre = Y[:, 0] if self.first == 0 else self._transition(self.m, k, u)
        self.bend = self._bend(Y, centre, np.stack([P[:, a, a] for a in range(d)], axis=1))
        self.P, self.m = P, m
        if moved is not None:
            self.departure = moved

    def _transition(self, x: np.ndarray, k: int, u: float) -> np.ndarray:
        noise = np.tile(self.noise_mean, (x.shape[0], 1))
        with np.errstate(all="ignore"):
            return np.asarray(self.model.transition(x, noise, k, u), dtype=np.float64)

    def _bend(self, Y: np.ndarray, centre: np.ndarray, var: np.ndarray) -> np.ndarray:
        """Σ_j Σ_a (½(Y_{+j} + Y_{−j}) − Y_centre)_a² / var_a: how far the images of the ± sigma points bend
        away from a line through the centre's, in units of var (ux/joint_cells.c bend)."""
        d = self.dim
        terms = []
        for j in range(d):
            for a in range(Y.shape[2]):
                c = 0.5 * (Y[:, 1 + j, a] + Y[:, 1 + d + j, a]) - centre[:, a]
                terms.append((c * c) / var[:, a])
        return _sum(terms)

    # -- the belief --------------------------------------------------------------------------------------
    def _moments(self) -> tuple[np.ndarray, np.ndarray]:
        d, n = self.dim, self.w.size
        mean = np.array([_sum(self.w[i] * self.m[i, a] for i in range(n)) for a in range(d)])
        cov = np.empty((d, d))
        for a in range(d):
            for b in range(d):
                cov[a, b] = _sum(
                    self.w[i] * (self.P[i, a, b] + (self.m[i, a] - mean[a]) * (self.m[i, b] - mean[b]))
                    for i in range(n)
                )
        return mean, cov

    def mean(self) -> np.ndarray:
        return self._moments()[0]

    def cov(self) -> np.ndarray:
        return self._moments()[1]

    def logpdf(self, x) -> float:
        """log of the cells' Gaussian mixture at x (ux_joint_cells_logpdf)."""
        d = self.dim
        L, full = cholesky(self.P)
        diff = np.asarray(x, dtype=np.float64)[None, :] - self.m
        y = forward(L, diff)
        with np.errstate(all="ignore"):
            maha = _sum(y[:, a] * y[:, a] for a in range(d))
            half = _sum(libm.log(L[:, a, a]) for a in range(d))
            lp = libm.log(self.w) + ((-(0.5 * maha) - half) - float(d) * HALF_LOG_2PI)
        lp = np.where(full & (self.w > 0), lp, -np.inf)
        top = -np.inf
        for v in lp:
            top = v if v > top else top
        if not math.isfinite(top):
            return float(top)
        return float(top + libm.log(_sum(libm.exp(v - top) for v in lp)))

    # -- split and merge ---------------------------------------------------------------------------------
    def _spread(self, i: int, L: np.ndarray) -> tuple[float, np.ndarray]:
        """Cell i's top eigenvalue of L⁻¹·P_i·L⁻ᵀ by power iteration, and its direction (ux cell_spread)."""
        d = self.dim
        Ls = L[None]
        P = self.P[i]
        B = np.empty((d, d))
        for c in range(d):
            B[:, c] = forward(Ls, P[:, c][None])[0]
        M = np.empty((d, d))
        for c in range(d):
            M[:, c] = forward(Ls, B[c][None])[0]
        top = 0
        for a in range(1, d):
            top = a if M[a, a] > M[top, top] else top
        v = np.zeros(d)
        v[top] = 1.0
        lam = 0.0
        for it in range(SPLIT_ITERATIONS + 1):
            u = np.array([_sum(M[a, b] * v[b] for b in range(d)) for a in range(d)])
            lam = _sum(v[a] * u[a] for a in range(d))
            if it == SPLIT_ITERATIONS:
                break
            norm = math.sqrt(_sum(u[a] * u[a] for a in range(d)))
            if not norm > 0:
                break
            v = u / norm
        return float(lam), v

    def _split_cell(self, i: int, lam: float, v: np.ndarray, L: np.ndarray) -> bool:
        """Split cell i into its two half-spaces' moments (ux/joint_cells.c split_cell); False (nothing changed)
        when a half would not be finite."""
        d = self.dim
        s = SPLIT_OFFSET * math.sqrt(lam)
        with np.errstate(all="ignore"):
            delta = np.array([s * _sum(L[a, b] * v[b] for b in range(a + 1)) for a in range(d)])
            lo, hi = self.m[i] - delta, self.m[i] + delta
            P = self.P[i] - delta[:, None] * delta[None, :]
        if not (np.isfinite(P).all() and np.isfinite(lo).all() and np.isfinite(hi).all()):
            return False
        self.w[i] = self.w[i] * 0.5
        self.P[i] = P
        self.w = np.append(self.w, self.w[i])
        self.bend = np.append(self.bend, self.bend[i])
        self.m = np.vstack([self.m, hi])
        self.P = np.concatenate([self.P, P[None]])
        self.m[i] = lo
        return True

    def _observation_bend(self, i: int) -> float:
        """Cell i's bend: its transition bend plus the kernel's, Σ_c over the observation components of
        (Σ_j (½(h(m + sL_j) + h(m − sL_j)) − h(m))² + Σ_{j<k} (h(m + sL_j + sL_k) − h(m + sL_j) − h(m + sL_k) +
        h(m))²) / var_c, var_c the kernel's variance at the mean (ux/joint_cells.c cell_bend)."""
        d = self.dim
        X = self.sigma_points(self.m[i : i + 1], self.P[i : i + 1])[0]
        pairs = [(j, k) for j in range(d) for k in range(j + 1, d)]
        corners = np.array([X[1 + j] + (X[1 + k] - X[0]) for j, k in pairs]).reshape(-1, d)
        with np.errstate(all="ignore"):
            loc, scale = self.model.loc_scale(np.vstack([X, corners]))
            loc, scale = np.asarray(loc, dtype=np.float64), np.asarray(scale, dtype=np.float64)
            terms = []
            for c in range(loc.shape[1]):
                var = (scale[0, c] * scale[0, c]) * FAMILY_VARIANCE[self.model.family]
                for j in range(d):
                    t = 0.5 * (loc[1 + j, c] + loc[1 + d + j, c]) - loc[0, c]
                    terms.append((t * t) / var)
                for n, (j, k) in enumerate(pairs):
                    t = ((loc[2 * d + 1 + n, c] - loc[1 + j, c]) - loc[1 + k, c]) + loc[0, c]
                    terms.append((t * t) / var)
            return float(_sum(terms)) + float(self.bend[i])

    def _spread_bent(self, i: int, L: np.ndarray) -> tuple[float, np.ndarray]:
        """_spread, its eigenvalue 0 for a cell the model does not bend over (no split gains there)."""
        lam, v = self._spread(i, L)
        return (lam if self._observation_bend(i) > BEND else 0.0), v

    @staticmethod
    def _widest(w, spread) -> tuple[int, float]:
        """The cell of largest weight × spread (the first on a tie) and that product (0: none is positive)."""
        best, top = 0, 0.0
        for i, (lam, _) in enumerate(spread):
            score = w[i] * lam
            if score > top:
                top, best = score, i
        return best, top

    def _exchange(self, spread: list, L: np.ndarray):
        """Merge the closest pair (Ward's cost of the whitened means) when that costs less than splitting the
        widest gains (ux/joint_cells.c exchange_cells); at most one merge."""
        n, d = self.w.size, self.dim
        if n < 2:
            return
        _, gain = self._widest(self.w, spread)
        gain = (SPLIT_OFFSET * SPLIT_OFFSET) * gain
        y = forward(np.broadcast_to(L, (n, d, d)), self.m)
        best, bi, bj = math.inf, 0, 0
        for i in range(n):
            for j in range(i + 1, n):
                dist = _sum((y[i, a] - y[j, a]) * (y[i, a] - y[j, a]) for a in range(d))
                cost = (self.w[i] * self.w[j] / (self.w[i] + self.w[j])) * dist
                if cost < best:
                    best, bi, bj = cost, i, j
        if not best < gain or not self._merge_pair(bi, bj):
            return
        self._remove(bi)
        del spread[bi]
        spread[bj - 1] = self._spread_bent(bj - 1, L)

    def split(self):
        """One exchange (unless off), then while fewer than η cells, split the widest (ux/joint_cells.c
        split_cells)."""
        with np.errstate(all="ignore"):
            _, T = self._moments()
        if not np.isfinite(T).all():
            return  # an overflowing belief has no scale to split on
        L, full = cholesky(T[None])
        if not full[0]:
            return
        L = L[0]
        spread = [self._spread_bent(i, L) for i in range(self.w.size)]
        if self.exchange:
            self._exchange(spread, L)
        while self.w.size < self.eta:
            best, top = self._widest(self.w, spread)
            if not top > 0 or not self._split_cell(best, *spread[best], L):
                return
            spread[best] = self._spread_bent(best, L)
            spread.append(self._spread_bent(self.w.size - 1, L))

    def _remove(self, i: int):
        keep = np.arange(self.w.size) != i
        self.w, self.m, self.P, self.bend = self.w[keep], self.m[keep], self.P[keep], self.bend[keep]

    def _merge_pair(self, i: int, j: int) -> bool:
        """Cell j becomes the moment-preserving merge of cells i and j; False (nothing changed) when the merge's
        spread would not be finite."""
        wi, wj = self.w[i], self.w[j]
        w = wi + wj
        with np.errstate(all="ignore"):
            m = (wi * self.m[i] + wj * self.m[j]) / w
            di, dj = self.m[i] - m, self.m[j] - m
            P = (wi * (self.P[i] + di[:, None] * di[None, :]) + wj * (self.P[j] + dj[:, None] * dj[None, :])) / w
        if not (np.isfinite(P).all() and np.isfinite(m).all()):
            return False
        self.P[j], self.m[j], self.w[j] = P, m, w
        self.bend[j] = max(self.bend[i], self.bend[j])
        return True

    def _nearest(self, i: int, L: np.ndarray) -> int:
        d = self.dim
        others = [j for j in range(self.w.size) if j != i]
        y = forward(np.broadcast_to(L, (len(others), d, d)), self.m[i][None, :] - self.m[others])
        dist = _sum(y[:, a] * y[:, a] for a in range(d))
        best, out = math.inf, others[0]
        for j, v in zip(others, dist):
            if v < best:
                best, out = v, j
        return out

    def merge(self):
        """While the lightest cell is lighter than MERGE_WEIGHT, merge it into its nearest (weight 0: drop)."""
        L = None
        while self.w.size > 1:
            i = 0
            for j in range(1, self.w.size):
                i = j if self.w[j] < self.w[i] else i
            if not self.w[i] < MERGE_WEIGHT:
                return
            if not self.w[i] > 0:
                self._remove(i)
                continue
            if L is None:
                with np.errstate(all="ignore"):
                    _, T = self._moments()
                factor, full = cholesky(T[None])
                if not (np.isfinite(T).all() and full[0]):
                    return
                L = factor[0]
            if not self._merge_pair(i, self._nearest(i, L)):
                return  # the light cell stays: merging it would not give a finite cell
            self._remove(i)

    # -- update ------------------------------------------------------------------------------------------
    def _observation_moments(self, X):
        model, d = self.model, self.dim
        n = X.shape[0]
        loc, scale = model.loc_scale(X.reshape(-1, d))
        loc = np.asarray(loc, dtype=np.float64).reshape(n, X.shape[1], -1)
        scale = np.asarray(scale, dtype=np.float64).reshape(n, X.shape[1], -1)
        zh = self.points_mean(loc)
        S = self.points_cross(loc, zh, loc, zh)
        C = self.points_cross(X, self.m, loc, zh)
        fv = FAMILY_VARIANCE[model.family]
        for c in range(loc.shape[2]):
            noise = _sum(self._weight(p) * ((scale[:, p, c] * scale[:, p, c]) * fv) for p in self._points())
            S[:, c, c] = S[:, c, c] + noise
        return zh, S, C

    def _update_cells(self, z: np.ndarray):
        """Each cell's unscented update: (log-weights, means, covariances; −∞ for a cell that keeps its own), then
        the split cells' predicted observations, their covariances and cross-covariances, and the gate's sums."""
        d = self.dim
        X = self.sigma_points(self.m, self.P)
        zh, S, C = self._observation_moments(X)
        sums = GateSums.of(self.w, zh, S)
        self.test_ratio = sums.ratio(z)
        mo = zh.shape[1]
        Ls, full = cholesky(S)
        with np.errstate(all="ignore"):
            y = forward(Ls, z[None, :] - zh)
            maha = _sum(y[:, c] * y[:, c] for c in range(mo))
            half = _sum(libm.log(Ls[:, c, c]) for c in range(mo))
            G = np.empty((self.w.size, d, mo))
            for a in range(d):
                for c in range(mo):
                    t = C[:, a, c]
                    for e in range(c):
                        t = t - G[:, a, e] * Ls[:, c, e]
                    G[:, a, c] = t / Ls[:, c, c]
            m = np.stack([self.m[:, a] + _sum(G[:, a, c] * y[:, c] for c in range(mo)) for a in range(d)], axis=1)
            P = np.empty_like(self.P)
            for a in range(d):
                for b in range(d):
                    P[:, a, b] = self.P[:, a, b] - _sum(G[:, a, c] * G[:, b, c] for c in range(mo))
            lw = libm.log(self.w) + ((-(0.5 * maha) - half) - float(mo) * HALF_LOG_2PI)
        ok = full & np.isfinite(m).all(axis=1) & np.isfinite(P).all(axis=(1, 2)) & (lw > -np.inf)
        lw = np.where(ok, lw, -np.inf)
        m = np.where(ok[:, None], m, self.m)
        P = np.where(ok[:, None, None], P, self.P)
        return lw, m, P, zh, S, C, sums

    def update(self, z, omega=None, m: int = 1) -> Status:
        """One observation z (dim_obs components); None: a step without observation."""
        if z is None:
            self.last, self.log_evidence, self.test_ratio = Status.NO_EVIDENCE, 0.0, math.nan
            return self.last
        z = np.atleast_1d(np.asarray(z, dtype=np.float64))
        if z.ndim != 1 or int(m) != 1:
            raise ValueError("a cell filter takes one observation per update (J = 1, m = 1)")
        check_evidence(self.model, z, omega, m)
        self.split()
        lw, means, covs, zh, S, C, sums = self._update_cells(z)
        outlier = self.test_ratio > self.gate * self.gate
        self.nis = nis_track(self.nis, self.test_ratio, z.size)
        if outlier and self.gate_outliers:  # not weighed: the cells as split, nothing observed
            self.last, self.log_evidence = Status.OUTLIER, 0.0
            return self.last
        top = -np.inf
        for v in lw:
            top = v if v > top else top
        if not math.isfinite(top):
            self.last, self.log_evidence = Status.FALLBACK, -math.inf
            self.log_likelihood += self.log_evidence
            return self.last
        e = libm.exp(lw - top)
        total = _sum(e[i] for i in range(e.size))
        w = e / total
        track = outlier or self._departure_kept()
        if track:  # the belief before the update, while the cells are the split ones
            move = (self._bent_share(w, means, S, C), self._linear_move(sums, zh, C, z)) if outlier else None
            with np.errstate(all="ignore"):
                before = self._moments()
        self.w, self.m, self.P = w, means, covs
        self.log_evidence = float(top + libm.log(total))
        self.merge()
        self.last = Status.OUTLIER if outlier else Status.OK
        if track:
            self.last = self._track_departure(move, *before, self.last)
        if self.last == Status.OK and self.nis > self.nis_limit:
            self.last = Status.INCONSISTENT
        self.log_likelihood += self.log_evidence
        return self.last

    # -- departure (docs/semantics.md, "Cell filter") ------------------------------------------------------
    def _departure_kept(self) -> bool:
        return bool(np.any(self.departure != 0))

    def _departure_through(self, k: int, u: float) -> np.ndarray:
        """f(m + δ) − f(m) at the noise's mean, m the belief's mean; 0 when not finite (departure_through)."""
        with np.errstate(all="ignore"):
            mean, _ = self._moments()
            y = self._transition(np.stack([mean, mean + self.departure]), k, u)
            moved = y[1] - y[0]
        return moved if np.isfinite(moved).all() else np.zeros(self.dim)

    def _cell_bent(self, i: int, means, S, C, h0, h1) -> tuple[float, float] | None:
        """Cell i's |lin| and |e| in its S (ux/joint_cells.c cell_bent); None where C's is 0."""
        d, mo = self.dim, S.shape[1]
        Ls, full_s = cholesky(S[i : i + 1])
        Lp, full_p = cholesky(self.P[i : i + 1])
        if not (full_s[0] and full_p[0]):
            return None
        with np.errstate(all="ignore"):
            u = forward(Lp, (means[i] - self.m[i])[None])[0]
            lin, bent = np.empty(mo), np.empty(mo)
            for c in range(mo):
                v = forward(Lp, C[i : i + 1, :, c])[0]
                acc = _sum(v[a] * u[a] for a in range(d))
                lin[c], bent[c] = acc, (h1[i, c] - h0[i, c]) - acc
            lengths = math.sqrt(metric(Ls[0], lin)), math.sqrt(metric(Ls[0], bent))
        return lengths if all(math.isfinite(v) for v in lengths) else None

    def _bent_share(self, w, means, S, C) -> float:
        """Σ w_i·|e_i| / Σ w_i·|lin_i| over the updated cells of positive weight (bent_share)."""
        n = w.size
        with np.errstate(all="ignore"):
            h0 = np.asarray(self.model.loc_scale(self.m)[0], dtype=np.float64).reshape(n, -1)
            h1 = np.asarray(self.model.loc_scale(means)[0], dtype=np.float64).reshape(n, -1)
        num = den = 0.0
        for i in range(n):
            lengths = self._cell_bent(i, means, S, C, h0, h1) if w[i] > 0 else None
            if lengths is None:
                continue
            num, den = num + w[i] * lengths[1], den + w[i] * lengths[0]
        with np.errstate(all="ignore"):
            share = float(num / den) if den > 0 else 0.0
        return share if math.isfinite(share) else 0.0

    def _linear_move(self, g: GateSums, zh, C, z) -> np.ndarray | None:
        """C·S⁻¹·ν of the split cells' whole predictive (linear_move): ν and S from the update's gate sums g, the
        cross-covariance summed in cell order about the first cell's m and ẑ; None where S is not positive definite
        or a value is not finite."""
        n, d, mo = self.w.size, self.dim, zh.shape[1]
        found = g.innovation(z)
        if found is None:
            return None
        nu, Sz = found
        Ls, full = cholesky(Sz[None])
        if not full[0]:
            return None
        with np.errstate(all="ignore"):
            dm, dz = self.m - self.m[0], zh - g.z0
            sm = [_sum(self.w[i] * dm[i, a] for i in range(n)) for a in range(d)]
            X = [
                [_sum(self.w[i] * (C[i, a, c] + dm[i, a] * dz[i, c]) for i in range(n)) for c in range(mo)]
                for a in range(d)
            ]
            x = solve(Ls[0], nu)
            move = np.array(
                [_sum((X[a][c] / g.W - (sm[a] / g.W) * (g.s[c] / g.W)) * x[c] for c in range(mo)) for a in range(d)],
                dtype=np.float64,
            )
        return move if np.isfinite(move).all() else None

    @staticmethod
    def _fresh_departure(move, m, mp, L) -> np.ndarray:
        """share·(m − mp), or (1 − |m − mp|/|linear|)·linear where the linear move is the longer and that is longer,
        lengths in L's metric, the first on a tie (fresh_departure)."""
        share, linear = move
        with np.errstate(all="ignore"):
            step = m - mp
            fresh = share * step
            if linear is None:
                return fresh
            lin_len, step_len = math.sqrt(metric(L, linear)), math.sqrt(metric(L, step))
            if not lin_len > step_len:
                return fresh
            under = (1.0 - step_len / lin_len) * linear
        return under if metric(L, under) > metric(L, fresh) else fresh

    def _track_departure(self, move, mp, Pp, status: Status) -> Status:
        """δ ← P·Pp⁻¹·δ; at an outlier (move: its bent share and linear move, else None) the fresh gap when longer in
        P; DEPARTED while δᵀ·P⁻¹·δ > DEPARTURE_SD² (track_departure)."""
        d = self.dim
        with np.errstate(all="ignore"):
            m, P = self._moments()
        Lp, full_p = cholesky(Pp[None])
        L, full = cholesky(P[None])
        if not (full_p[0] and full[0]):
            return status
        with np.errstate(all="ignore"):
            y = solve(Lp[0], self.departure)
            kept = np.array([_sum(P[a, b] * y[b] for b in range(d)) for a in range(d)], dtype=np.float64)
        fresh = self._fresh_departure(move, m, mp, L[0]) if move is not None else None
        longer = fresh is not None and metric(L[0], fresh) > metric(L[0], kept)
        self.departure = fresh if longer else kept
        if not np.isfinite(self.departure).all():
            self.departure = np.zeros(d)
        if status == Status.OK and metric(L[0], self.departure) > DEPARTURE_SD * DEPARTURE_SD:
            return Status.DEPARTED
        return status

    def cells(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(weights, means, covariances) of the cells."""
        return self.w.copy(), self.m.copy(), self.P.copy()

    @property
    def posterior(self) -> CellAtoms:
        return CellAtoms(self.m.copy(), self.w.copy())


def run_joint_cells(
    model: JointModel,
    z,
    eta: int = 16,
    k=None,
    u=None,
    prior=None,
    exchange=True,
    gate: float = OUTLIER_GATE,
    gate_outliers: bool = False,
    nis_limit: float = NIS_LIMIT,
) -> JointRun:
    """Filter a whole trace (uxemu.joint_filter.run_trace) with the reference cell filter; each step's
    'posterior' is its cells (weights, means, covariances), and the run has each step's test ratio."""
    f = JointCellsFilter(model, eta, prior, exchange, gate, gate_outliers, nis_limit)
    return run_trace(
        f.predict,
        f.update,
        lambda: (*f._moments(), f.log_evidence, f.cells()),
        model.dim,
        z,
        k,
        u,
        ratio=lambda: f.test_ratio,
        nis=lambda: f.nis,
    )
