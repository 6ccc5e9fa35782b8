"""The exact filter of a scalar linear-Gaussian system (the `lg` system): the Kalman filter, as the
oracle the BayesLaplace filter is measured against.

x_k = a·x_{k−1} + w, w ~ N(0, q²);  z_k = x_k + v, v ~ N(0, r²);  x_0 ~ N(m0, s0²). As in uxemu.filter,
the first observation is of the initial state, so step 0 only updates.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass
class KalmanRun:
    mean: np.ndarray  # posterior mean per step
    var: np.ndarray  # posterior variance per step
    log_evidence: np.ndarray  # log p(z_k | z_0..k−1): the innovation's Gaussian density (0 when z_k is missing)

    @property
    def log_likelihood(self) -> float:
        return float(np.sum(self.log_evidence))


def kalman_filter(z, a: float, q: float, r: float, m0: float, s0: float) -> KalmanRun:
    """Posterior means and variances of x_k given z_0..z_k, and the exact likelihood; a NaN z_k is a
    missing observation (predict only), as in uxemu.filter."""
    z = np.asarray(z, dtype=np.float64)
    means, vars_, evidence = np.empty(z.size), np.empty(z.size), np.zeros(z.size)
    m, p = float(m0), float(s0) ** 2
    for k in range(z.size):
        if k > 0:
            m, p = a * m, a * a * p + q * q
        if not np.isnan(z[k]):
            s = p + r * r
            evidence[k] = -0.5 * np.log(2.0 * np.pi * s) - 0.5 * (z[k] - m) ** 2 / s
            gain = p / s
            m, p = m + gain * (z[k] - m), (1.0 - gain) * p
        means[k], vars_[k] = m, p
    return KalmanRun(means, vars_, evidence)


def for_model(model, z, prior=None) -> KalmanRun:
    """The Kalman filter of an `lg` model (uxemu.systems.get('lg', …)) with its prior (a Normal law)."""
    if model.name != "lg":
        raise ValueError(f"the Kalman filter is exact only for the linear-Gaussian system, not {model.name!r}")
    a, q, r = model.params
    law = model.prior if prior is None else prior
    return kalman_filter(z, a, q, r, law.mu, law.sigma)


def fit_noises(z, a: float, m0: float, s0: float, start=(0.5, 1.0)):
    """The exact maximum-likelihood (q, r) for a trace of the linear-Gaussian system (a and the prior
    fixed), and their standard errors from the exact likelihood's curvature: the oracle of uxemu.fit."""
    from scipy.optimize import minimize

    def nll(v):
        if min(v) <= 0:
            return np.inf
        return -kalman_filter(z, a, v[0], v[1], m0, s0).log_likelihood

    best = minimize(nll, list(start), method="Nelder-Mead", options=dict(xatol=1e-8, fatol=1e-10)).x
    h, eye = 1e-4, np.eye(2)
    H = np.array(
        [
            [
                (
                    nll(best + h * (eye[i] + eye[j]))
                    - nll(best + h * (eye[i] - eye[j]))
                    - nll(best - h * (eye[i] - eye[j]))
                    + nll(best - h * (eye[i] + eye[j]))
                )
                / (4 * h * h)
                for j in range(2)
            ]
            for i in range(2)
        ]
    )
    return best, np.sqrt(np.diag(np.linalg.inv(H)))
