"""The exact filter of a linear-Gaussian joint model observed in its first component, z = x₀ + N(0, r²): the
Kalman filter, as the exact likelihood a fit on such a model climbs (uxbench.joint_twin_fits). The model's
transition must be linear with additive Gaussian noise (A from its images of the unit vectors at w = 0, Q its
process covariance); the prior is its laws' means and variances."""

from __future__ import annotations

import math

import numpy as np

from uxemu.joint_systems import JointModel


def kalman_log_likelihood(model: JointModel, z, r: float) -> float:
    """log p(z_0..T−1) under the model; the first observation is of x_0 (step 0 only updates)."""
    d = model.dim
    A = np.asarray(model.transition(np.eye(d), np.zeros((d, model.dim_noise)), 0, 0.0), dtype=np.float64).T
    Q = model.process_cov()
    m = np.array([law.mean() for law in model.prior], dtype=np.float64)
    P = np.diag([law.var() for law in model.prior]).astype(np.float64)
    total = 0.0
    for k, zk in enumerate(np.asarray(z, dtype=np.float64).reshape(len(z), -1)[:, 0]):
        if k > 0:
            m, P = A @ m, A @ P @ A.T + Q
        S = P[0, 0] + r * r
        nu = zk - m[0]
        total += -0.5 * (math.log(2.0 * math.pi * S) + nu * nu / S)
        gain = P[:, 0] / S
        m, P = m + gain * nu, P - np.outer(gain, P[0, :])
    return total
