"""TTR-binned density (docs/semantics.md, "Density"), vectorised over rows of equal atom count."""

from __future__ import annotations

import numpy as np

from . import _ttr


def split_points_rows(X: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Split points (B, M−1) of B sorted rows of M atoms each: the mean of the cell that separated them."""
    B, M = X.shape
    if M < 2:
        return np.zeros((B, 0))
    # A gap that rounding never lets the recursion separate keeps the midpoint of its two atoms.
    S = (X[:, :-1] + X[:, 1:]) / 2.0
    starts = np.arange(B) * M
    _, _, gaps, means = _ttr.split_cells(X.ravel(), W.ravel(), starts, starts + M, None, record_splits=True)
    S[gaps // M, gaps % M - 1] = means
    return S


def bin_reach(X: np.ndarray, S: np.ndarray):
    """Where each atom's two bins reach, (left, right) edges (B, M) from the rows' split points S (ux_bin_reach):
    its neighbouring split points; the outer edges mirror the nearest one, x0 − (s0 − x0) and x_last + (x_last −
    s_last)."""
    left = np.concatenate([X[:, :1] - (S[:, :1] - X[:, :1]), S], axis=1)
    right = np.concatenate([S, X[:, -1:] + (X[:, -1:] - S[:, -1:])], axis=1)
    return left, right


def bins_rows(X: np.ndarray, W: np.ndarray):
    """Edges (B, 2M+1) and heights (B, 2M) of the binned density of each row (M ≥ 2)."""
    left, right = bin_reach(X, split_points_rows(X, W))
    dL = X - left
    dR = right - X
    # When rounding puts a split point on an atom one of its bins has zero width; the whole mass then
    # goes to the other bin (a Dirac is the only alternative), as in the C core.
    with np.errstate(divide="ignore", invalid="ignore"):
        pL = np.where(dR > 0, W * dR / (dL + dR), W)
        pR = np.where(dL > 0, W * dL / (dL + dR), W)
    B, M = X.shape
    edges = np.empty((B, 2 * M + 1))
    edges[:, 0:-1:2] = left
    edges[:, -1] = right[:, -1]
    edges[:, 1::2] = X
    heights = np.empty((B, 2 * M))
    with np.errstate(divide="ignore", invalid="ignore"):
        heights[:, 0::2] = np.where(dL > 0, pL / dL, 0.0)  # a zero-width bin is never looked up
        heights[:, 1::2] = np.where(dR > 0, pR / dR, 0.0)
    return edges, heights


def pdf_rows(X: np.ndarray, W: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Density of each row at each point of z: (B, K). Rows with one atom have no density (0)."""
    B, M = X.shape
    z = np.atleast_1d(np.asarray(z, dtype=np.float64))
    if M < 2:
        return np.zeros((B, z.size))
    edges, heights = bins_rows(X, W)
    out = np.empty((B, z.size))
    for k, zk in enumerate(z):
        idx = (edges <= zk).sum(axis=1) - 1  # bins are [edge, next edge)
        inside = (idx >= 0) & (idx < 2 * M)
        out[:, k] = np.where(inside, heights[np.arange(B), np.clip(idx, 0, 2 * M - 1)], 0.0)
    return out


def bin_spreads(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Each atom's variance about itself in the binned density of one increasing atom set (ux/filter.c
    bin_spreads): its bins reach a left and b right, and the masses that keep its mean give a·b/3; the outer
    bins mirror the nearest split point. Zeros for a single atom."""
    X, W = np.asarray(x, dtype=np.float64)[None, :], np.asarray(w, dtype=np.float64)[None, :]
    if X.shape[1] < 2:
        return np.zeros(X.shape[1])
    left, right = bin_reach(X, split_points_rows(X, W))
    return ((X - left) * (right - X) / 3.0)[0]
