"""A linear-Gaussian 2-D system for the joint baselines' exact checks, written once and given to both sides:
the C filters get it as a `ux_joint_model` built with ctypes (Python callbacks for its functions), the
Python grid filter as a `uxemu.joint_systems.JointModel`. Constant velocity with the white-noise-acceleration
noise of the registered systems (x' = F x + L w, Q = L Lᵀ), a position sensor z = p + N(0, r²); its exact
posterior is the Kalman filter's (`kalman`)."""

from __future__ import annotations

import ctypes as C
import math

import numpy as np

from uxemu.joint_systems import JointModel
from uxemu.laws import Normal
from uxbench import joint_native as jn

DT, Q_INTENSITY, R = 0.2, 0.05, 0.5
PRIOR = ((-1.0, 2.0), (1.0, 0.5))
F = np.array([[1.0, DT], [0.0, 1.0]])
_L00 = math.sqrt(Q_INTENSITY * DT**3 / 3.0)
_L10 = Q_INTENSITY * DT * DT / 2.0 / _L00
L = np.array([[_L00, 0.0], [_L10, math.sqrt(Q_INTENSITY * DT - _L10 * _L10)]])
Q = L @ L.T
H = np.array([[1.0, 0.0]])


def twin() -> JointModel:
    def transition(x, w, k, u):
        return x @ F.T + w @ L.T

    def loc_scale(x):
        return x[:, :1].copy(), np.full((x.shape[0], 1), R)

    return JointModel(
        name="linear",
        system_id=250,
        params=(),
        dim=2,
        transition=transition,
        process_noise=(Normal(0.0, 1.0), Normal(0.0, 1.0)),
        prior=tuple(Normal(m, s) for m, s in PRIOR),
        family="gaussian",
        loc_scale=loc_scale,
        additive_noise=True,
    )


class CModel:
    """The same system as a ux_joint_model; keeps its ctypes objects alive while the pointer is used."""

    def __init__(self):
        def transition(out, x, w, ctx):
            out[0] = x[0] + x[1] * DT + L[0, 0] * w[0]
            out[1] = x[1] + (L[1, 0] * w[0] + L[1, 1] * w[1])

        def noises(params, process):
            for j in range(2):
                process[j] = jn._Law(0, 0.0, 1.0, 0.0)

        def kernel(x, ctx, loc, scale):
            loc[0] = x[0]
            scale[0] = R

        self._fns = (jn.TRANSITION_FN(transition), jn.NOISES_FN(noises), jn.KERNEL_FN(kernel))
        address = [C.cast(fn, C.c_void_p) for fn in self._fns]  # the mirrors hold function pointers as addresses
        self.code = jn.CodeStruct(2, 1, address[0], address[1], 0, address[2], None, 1)
        prior = (jn._Law * jn.MAX_DIM)(*[jn._Law(0, m, s, 0.0) for m, s in PRIOR])
        self.model = jn.ModelStruct(
            250, b"linear", b"linear-Gaussian check", 0, None, None, None, 2, prior, C.pointer(self.code)
        )
        self.ptr = C.cast(C.pointer(self.model), C.c_void_p).value


def kalman(z, log_evidence=None, nis=None):
    """The exact posterior means (T, 2) and covariances (T, 2, 2); step 0 updates the prior only. A list given
    as `log_evidence` receives each step's log N(z_t; ẑ_t, S_t), one given as `nis` each (z_t − ẑ_t)²/S_t."""
    x = np.array([m for m, _ in PRIOR])
    P = np.diag([s * s for _, s in PRIOR])
    means, covs = [], []
    for t, zt in enumerate(np.reshape(z, (-1, 1))):
        if t > 0:
            x, P = F @ x, F @ P @ F.T + Q
        S = H @ P @ H.T + R * R
        K = P @ H.T / S
        v, s2 = float(zt[0] - (H @ x)[0]), float(S[0, 0])
        if log_evidence is not None:
            log_evidence.append(-0.5 * (math.log(2 * math.pi * s2) + v * v / s2))
        if nis is not None:
            nis.append(v * v / s2)
        x = x + (K * (zt - H @ x)).ravel()
        P = P - K @ S @ K.T
        means.append(x)
        covs.append(P)
    return np.array(means), np.array(covs)
