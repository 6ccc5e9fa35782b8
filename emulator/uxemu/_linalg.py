"""Small dense matrices and the innovation gate's sums of the vector-state filters: the reference of
firmware/src/ux/matrix.c and gate_sums.c, sum for sum (index order), so that the C core gives the same bits."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


def cholesky(P: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lower factors of the stacked symmetric P (n, d, d), lower triangles read, and which are full; a pivot
    that is not positive leaves its column 0 (ux/matrix.c ux_cholesky)."""
    n, d, _ = P.shape
    L = np.zeros_like(P)
    full = np.ones(n, dtype=bool)
    with np.errstate(all="ignore"):
        for j in range(d):
            s = P[:, j, j].copy()
            for k in range(j):
                s = s - L[:, j, k] * L[:, j, k]
            ok = s > 0
            full &= ok
            L[:, j, j] = np.where(ok, np.sqrt(np.where(ok, s, 1.0)), 0.0)
            for i in range(j + 1, d):
                t = P[:, i, j].copy()
                for k in range(j):
                    t = t - L[:, i, k] * L[:, j, k]
                L[:, i, j] = np.where(ok, t / np.where(ok, L[:, j, j], 1.0), 0.0)
    return L, full


def forward(L: np.ndarray, b: np.ndarray) -> np.ndarray:
    """y = L⁻¹ b for stacked lower L (n, d, d) and b (n, d)."""
    d = L.shape[1]
    y = np.empty_like(b)
    with np.errstate(all="ignore"):
        for a in range(d):
            t = b[:, a].copy()
            for k in range(a):
                t = t - L[:, a, k] * y[:, k]
            y[:, a] = t / L[:, a, a]
    return y


def solve(L: np.ndarray, b: np.ndarray) -> np.ndarray:
    """x = (L·Lᵀ)⁻¹ b for one lower L (d, d): forward, then back substitution (ux/matrix.c ux_solve)."""
    d = L.shape[0]
    y = forward(L[None], b[None])[0]
    x = np.empty(d)
    with np.errstate(all="ignore"):
        for a in reversed(range(d)):
            t = y[a]
            for k in range(a + 1, d):
                t = t - L[k, a] * x[k]
            x[a] = t / L[a, a]
    return x


def metric(L: np.ndarray, v: np.ndarray) -> float:
    """vᵀ·(L·Lᵀ)⁻¹·v for one lower L (ux/matrix.c ux_metric)."""
    y = forward(L[None], v[None])[0]
    with np.errstate(all="ignore"):
        return float(_sum(y[a] * y[a] for a in range(v.size)))


def _sum(terms) -> np.ndarray:
    """Σ in order from 0, as the C loops accumulate."""
    acc = 0.0
    for t in terms:
        acc = acc + t
    return acc


@dataclass(frozen=True)
class GateSums:
    """The innovation gate's sums over weighted predictive points (ux/gate_sums.c ux_gate_sums): the first point's
    zh, the total weight W, Σ w_i·d_i and Σ w_i·(S_i + d_i·d_iᵀ), d_i = zh_i − zh_0, each summed in point order."""

    z0: np.ndarray
    W: float
    s: np.ndarray
    M: np.ndarray

    @classmethod
    def of(cls, w: np.ndarray, zh: np.ndarray, S: np.ndarray) -> "GateSums":
        """From weights w (n), predicted observations zh (n, mo) and their covariances S (n, mo, mo)."""
        n, mo = zh.shape
        with np.errstate(all="ignore"):
            dv = zh - zh[0]
            W = _sum(w[i] for i in range(n))
            s = np.array([_sum(w[i] * dv[i, a] for i in range(n)) for a in range(mo)], dtype=np.float64)
            M = np.array(
                [
                    [_sum(w[i] * (S[i, a, b] + dv[i, a] * dv[i, b]) for i in range(n)) for b in range(mo)]
                    for a in range(mo)
                ],
                dtype=np.float64,
            )
        return cls(zh[0].copy(), W, s, M)

    def innovation(self, z: np.ndarray):
        """(ν, S) of z against the sums' predictive, ν = z − (zh_0 + s/W), S = M/W − (s/W)(s/W)ᵀ
        (ux_gate_innovation); None when a value is not finite."""
        with np.errstate(all="ignore"):
            mean = self.s / self.W
            nu = z - (self.z0 + mean)
            Sm = self.M / self.W - mean[:, None] * mean[None, :]
        return (nu, Sm) if np.isfinite(Sm).all() and np.isfinite(nu).all() else None

    def ratio(self, z: np.ndarray) -> float:
        """νᵀ·S⁻¹·ν (ux_gate_ratio); NaN where S is not positive definite or a value is not finite."""
        found = self.innovation(z)
        if found is None:
            return math.nan
        nu, Sm = found
        L, full = cholesky(Sm[None])
        if not full[0]:
            return math.nan
        with np.errstate(all="ignore"):
            y = forward(L, nu[None])[0]
            ratio = float(_sum(y[a] * y[a] for a in range(nu.size)))
        return ratio if math.isfinite(ratio) else math.nan
