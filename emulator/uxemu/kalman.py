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


def kalman_filter(z, a: float, q: float, r: float, m0: float, s0: float) -> KalmanRun:
    """Posterior means and variances of x_k given z_0..z_k."""
    z = np.asarray(z, dtype=np.float64)
    means, vars_ = np.empty(z.size), np.empty(z.size)
    m, p = float(m0), float(s0) ** 2
    for k in range(z.size):
        if k > 0:
            m, p = a * m, a * a * p + q * q
        gain = p / (p + r * r)
        m, p = m + gain * (z[k] - m), (1.0 - gain) * p
        means[k], vars_[k] = m, p
    return KalmanRun(means, vars_)


def for_model(model, z, prior=None) -> KalmanRun:
    """The Kalman filter of an `lg` model (uxemu.systems.get('lg', …)) with its prior (a Normal law)."""
    if model.name != "lg":
        raise ValueError(f"the Kalman filter is exact only for the linear-Gaussian system, not {model.name!r}")
    a, q, r = model.params
    law = model.prior if prior is None else prior
    return kalman_filter(z, a, q, r, law.mu, law.sigma)
