"""Scores of 2-D filter beliefs against the true state, for the joint filtering benchmark: one definition
each, shared by every method.

- NLL: −log of a 2-D density at the true state (clamped at `uxemu.metrics.LOG_PDF_FLOOR` by the caller's
  `uxemu.metrics.nll`). Densities: Gaussian beliefs (EKF, UKF) their own; particle sets a weighted Gaussian
  kernel density (`kde_logpdf`); the ux filter the predictive mixture times the likelihood (`ux_logpdf`).
- CRPS per component: of the marginal of each component — exact for weighted atoms (`crps_atoms`: ux atoms,
  particles, grid nodes) and the closed form for a Gaussian (`uxbench.metrics.crps_gaussian`).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

from uxemu.joint_systems import JointModel
from uxemu.metrics import crps_atoms

from .metrics import crps_gaussian

QUAD_HALF = 10.0  # quadrature boxes reach ± this many standard deviations
QUAD_SPACING = 1.0  # trapezoid spacing in whitened process-noise sds (error ~ 2·exp(−2π²/h²) ≈ 5e-9)
PRIOR_SPACING = 0.25  # trapezoid spacing in prior sds on the first step


def gaussian_logpdf(mean, cov, t) -> float:
    """log N(t; mean, cov); −∞ when cov is not positive definite."""
    d = np.asarray(t, dtype=np.float64) - np.asarray(mean, dtype=np.float64)
    try:
        L = np.linalg.cholesky(np.asarray(cov, dtype=np.float64))
    except np.linalg.LinAlgError:
        return -math.inf
    y = np.linalg.solve(L, d)
    return float(-0.5 * y @ y - np.log(np.diag(L)).sum() - 0.5 * d.size * math.log(2 * math.pi))


def kde_bandwidth_cov(x, w) -> np.ndarray:
    """Scott's rule for a weighted d-dimensional set, as scipy.stats.gaussian_kde with weights: the
    unbiased weighted covariance Σw(x − μ)(x − μ)ᵀ/(1 − Σw²) times n_eff^(−2/(d + 4)), n_eff = 1/Σw²."""
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    w = w / w.sum()
    sq = float(w @ w)
    d = x.shape[1]
    if sq >= 1.0:
        return np.zeros((d, d))
    mu = w @ x
    c = ((x - mu) * w[:, None]).T @ (x - mu) / (1.0 - sq)
    return c * sq ** (2.0 / (d + 4))


def kde_logpdf(x, w, t) -> float:
    """log Σ wᵢ N(t; xᵢ, H) with H = `kde_bandwidth_cov` (−∞ for a singular H)."""
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    w = w / w.sum()
    H = kde_bandwidth_cov(x, w)
    try:
        L = np.linalg.cholesky(H)
    except np.linalg.LinAlgError:
        return -math.inf
    y = np.linalg.solve(L, (np.asarray(t, dtype=np.float64) - x).T)
    with np.errstate(divide="ignore"):
        a = np.log(w) - 0.5 * (y * y).sum(axis=0)
    return float(logsumexp(a) - np.log(np.diag(L)).sum() - 0.5 * x.shape[1] * math.log(2 * math.pi))


def crps_marginals(x, w, truth) -> np.ndarray:
    """Per component, the exact CRPS of the weighted atoms' marginal at the truth."""
    x = np.asarray(x, dtype=np.float64)
    keep = np.asarray(w) > 0
    return np.array([crps_atoms(x[keep, c], np.asarray(w)[keep], truth[c]) for c in range(x.shape[1])])


def crps_gaussian_marginals(mean, cov, truth) -> np.ndarray:
    return np.array([crps_gaussian(mean[c], cov[c, c], truth[c]) for c in range(len(mean))])


def _whitened_nodes(spacing: float) -> tuple[np.ndarray, np.ndarray]:
    """A square trapezoid grid on [−QUAD_HALF, QUAD_HALF]² and its weights φ(u₀)φ(u₁)h² (log)."""
    n = int(round(QUAD_HALF / spacing))
    a = np.arange(-n, n + 1) * spacing
    u0, u1 = np.meshgrid(a, a, indexing="ij")
    u = np.stack([u0.ravel(), u1.ravel()], axis=1)
    return u, -0.5 * (u * u).sum(axis=1) - math.log(2 * math.pi) + 2 * math.log(spacing)


def ux_logpdf(model: JointModel, z, truth, prev=None, k: int = 0, u: float = 0.0):
    """log of the ux filter's posterior density at the truth (a point (2,), or rows (P, 2) for an array):
    with the previous posterior's atoms prev = (x (n, 2), w (n,)), the predictive mixture
    Σᵢ wᵢ N(t; f(xᵢ, 0), Q) times p(z | t), over Z; on the first step (prev None) the prior's density times
    p(z | t), over Z. Z by 2-D trapezoid quadrature: for each mixture component on its own whitened grid
    (t = mᵢ + L·u, u ∈ [−10, 10]², spacing QUAD_SPACING), so the grids cover the mixture ± 10 sd; on the
    first step on the prior's ± 10 sd box (spacing PRIOR_SPACING sd; its components are independent)."""
    pts = np.atleast_2d(np.asarray(truth, dtype=np.float64))
    loglik_t = model.log_likelihood(z, pts)
    if prev is None:
        mu = np.array([law.mean() for law in model.prior])
        sd = np.sqrt([law.var() for law in model.prior])
        u_nodes, _ = _whitened_nodes(PRIOR_SPACING)
        t_nodes = mu + u_nodes * sd
        with np.errstate(divide="ignore"):
            log_prior = sum(law.logpdf(t_nodes[:, c]) for c, law in enumerate(model.prior))
            log_prior_t = sum(law.logpdf(pts[:, c]) for c, law in enumerate(model.prior))
        log_cell = 2 * math.log(PRIOR_SPACING) + float(np.log(sd).sum())
        log_z = float(logsumexp(log_prior + model.log_likelihood(z, t_nodes) + log_cell))
        out = log_prior_t + loglik_t - log_z
    else:
        xs, ws = (np.asarray(a, dtype=np.float64) for a in prev)
        Q = model.process_cov(k, u)
        L = np.linalg.cholesky(Q)
        means = model.transition(xs, np.zeros((xs.shape[0], model.dim_noise)), k, u)
        u_nodes, log_q = _whitened_nodes(QUAD_SPACING)
        t_nodes = (means[:, None, :] + (u_nodes @ L.T)[None, :, :]).reshape(-1, 2)
        with np.errstate(divide="ignore"):
            log_w = np.log(ws)
        terms = log_w[:, None] + log_q[None, :] + model.log_likelihood(z, t_nodes).reshape(len(ws), -1)
        log_z = float(logsumexp(terms))
        y = np.linalg.solve(L, (pts[None, :, :] - means[:, None, :]).reshape(-1, 2).T).T.reshape(len(ws), -1, 2)
        log_n = -0.5 * (y * y).sum(axis=2) - np.log(np.diag(L)).sum() - math.log(2 * math.pi)
        out = logsumexp(log_w[:, None] + log_n, axis=0) + loglik_t - log_z
    return out if np.ndim(truth) > 1 else float(out[0])
