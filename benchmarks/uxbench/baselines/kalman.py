"""EKF, UKF and the EKF on log y²: the numpy reference of the C baselines in benchmarks/c/src/kf.c.

Same formulas, constants and step rule as the C (documented in benchmarks/c/include/uxbench/kf.h), over a
reference model (uxemu.systems twin): it exists to check the C, not to be timed. Scalar code, one step
at a time; the tests hold the C to it within 1e-9.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from uxemu.bayes import FAMILY_VARIANCE  # the kernel family's standard variance, one table

DIFF_REL = 1e-2
DIFF_FLOOR = 2.0**-26  # √ε
ALPHA, BETA, KAPPA_PLUS_N = 1.0, 2.0, 3.0  # κ = 3 − n
LOGCHI2_MEAN = -np.euler_gamma - math.log(2.0)  # E log e², e ~ N(0, 1): ψ(½) + log 2
LOGCHI2_VAR = math.pi**2 / 2.0  # Var log e²
METHODS = ("ekf", "ukf", "ekf_logsq")


@dataclass
class KalmanRun:
    mean: np.ndarray
    var: np.ndarray
    skipped: np.ndarray  # bool: the update was skipped


def diff_step(v: float, sd: float) -> float:
    return max(DIFF_REL * sd, DIFF_FLOOR * max(abs(v), 1.0))


def ut_weights(n: int):
    """(W₀ᵐ, W₀ᶜ, Wᵢ, √(n + λ)) of the scaled unscented transform with α, β and κ = 3 − n."""
    lam = ALPHA * ALPHA * KAPPA_PLUS_N - n
    wm0 = lam / (n + lam)
    return wm0, wm0 + 1.0 - ALPHA * ALPHA + BETA, 1.0 / (2.0 * (n + lam)), math.sqrt(n + lam)


def _ut_mean(w, y):
    s = w[0] * y[0]
    for v in y[1:]:
        s += w[2] * v
    return s


def _ut_cov(w, a, am, b, bm):
    s = w[1] * (a[0] - am) * (b[0] - bm)
    for x, y in zip(a[1:], b[1:]):
        s += w[2] * (x - am) * (y - bm)
    return s


def kalman_filter(model, trace, method: str = "ekf", prior=None) -> KalmanRun:
    """Run `method` ('ekf', 'ukf', 'ekf_logsq') of kf.h over a trace (k, u, z) of a reference model."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; use one of {METHODS}")
    if model.kernel is None:
        raise ValueError("the Kalman baselines need the model's kernel form")
    prior = model.prior if prior is None else prior
    x, P = float(prior.mean()), float(prior.var())
    wbar, Q = float(model.process_noise.mean()), float(model.process_noise.var())
    inner = model.kernel.inner
    if len(inner) > 1:
        raise ValueError("the kernel form has at most one inner noise")
    mbar, Vm = (float(inner[0].mean()), float(inner[0].var())) if inner else (0.0, 0.0)
    evar = FAMILY_VARIANCE[model.kernel.family]
    if method == "ekf_logsq" and (model.kernel.family != "gaussian" or inner):
        raise ValueError("log y² needs a Gaussian kernel family without inner noise")

    def obs(xv, m):
        loc, scale = model.kernel.loc_scale(xv, m) if inner else model.kernel.loc_scale(xv)
        return float(loc), float(scale)

    T = len(trace.z)
    out = KalmanRun(np.empty(T), np.empty(T), np.zeros(T, dtype=bool))
    for t in range(T):
        k, u, z = int(trace.k[t]), float(trace.u[t]), float(trace.z[t])

        def f(xv, w):
            return float(model.transition(xv, w, k, u))

        if t > 0:
            if method == "ukf":
                w = ut_weights(2)
                sx, sw = w[3] * math.sqrt(P), w[3] * math.sqrt(Q)
                y = [f(x, wbar), f(x + sx, wbar), f(x - sx, wbar), f(x, wbar + sw), f(x, wbar - sw)]
                mean = _ut_mean(w, y)
                P = _ut_cov(w, y, mean, y, mean)
                x = mean
            else:
                hx, hw = diff_step(x, math.sqrt(P)), diff_step(wbar, math.sqrt(Q))
                xp, xm, wp, wm = x + hx, x - hx, wbar + hw, wbar - hw
                F = (f(xp, wbar) - f(xm, wbar)) / (xp - xm)
                G = (f(x, wp) - f(x, wm)) / (wp - wm)
                mean = f(x, wbar)
                P = F * F * P + G * G * Q
                x = mean

        if method == "ukf":
            w = ut_weights(3 if inner else 2)
            sx = w[3] * math.sqrt(P)
            pts = [(x, mbar, 0.0), (x + sx, mbar, 0.0), (x - sx, mbar, 0.0)]
            if inner:
                sm = w[3] * math.sqrt(Vm)
                pts += [(x, mbar + sm, 0.0), (x, mbar - sm, 0.0)]
            se = w[3] * math.sqrt(evar)
            pts += [(x, mbar, se), (x, mbar, -se)]
            X = [p[0] for p in pts]
            Z = []
            for xv, m, e in pts:
                loc, scale = obs(xv, m)
                Z.append(loc + scale * e)
            zbar = _ut_mean(w, Z)
            S = _ut_cov(w, Z, zbar, Z, zbar)
            C = _ut_cov(w, X, x, Z, zbar)
            if math.isfinite(z) and S > 0 and math.isfinite(S):
                K = C / S
                x = x + K * (z - zbar)
                P = max(P - K * C, 0.0)
            else:
                out.skipped[t] = True
        elif method == "ekf":
            hx = diff_step(x, math.sqrt(P))
            xp, xm = x + hx, x - hx
            loc, scale = obs(x, mbar)
            H = (obs(xp, mbar)[0] - obs(xm, mbar)[0]) / (xp - xm)
            M = 0.0
            if inner:
                hm = diff_step(mbar, math.sqrt(Vm))
                mp, mm = mbar + hm, mbar - hm
                M = (obs(x, mp)[0] - obs(x, mm)[0]) / (mp - mm)
            R = scale * scale * evar + M * M * Vm
            S = H * H * P + R
            if math.isfinite(z) and S > 0 and math.isfinite(S):
                K = P * H / S
                x = x + K * (z - loc)
                P = P * R / S
            else:
                out.skipped[t] = True
        else:  # ekf_logsq
            hx = diff_step(x, math.sqrt(P))
            xp, xm = x + hx, x - hx
            (loc, scale), (lp, sp), (lm, sm) = obs(x, 0.0), obs(xp, 0.0), obs(xm, 0.0)
            if loc != 0.0 or lp != 0.0 or lm != 0.0:
                raise ValueError("log y² needs an observation location of 0")
            H = (2.0 * math.log(sp) - 2.0 * math.log(sm)) / (xp - xm)
            S = H * H * P + LOGCHI2_VAR
            zeta = 2.0 * math.log(abs(z)) if z != 0.0 and math.isfinite(z) else math.nan
            if math.isfinite(zeta) and S > 0 and math.isfinite(S):
                K = P * H / S
                x = x + K * (zeta - (2.0 * math.log(scale) + LOGCHI2_MEAN))
                P = P * LOGCHI2_VAR / S
            else:
                out.skipped[t] = True
        out.mean[t], out.var[t] = x, P
    return out
