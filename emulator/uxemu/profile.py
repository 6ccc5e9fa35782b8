"""Profile-likelihood intervals: for each fitted parameter, the values at which log L, maximised over the other
free parameters, falls by level²/2 nats below its optimum.

Where log L is a quadratic these are the estimate ± level standard errors; where it is skewed (a noise scale
over a short trace, as often as not) they follow its two sides, which the standard errors, a quadratic's,
cannot; and where the trace cannot tell a positive parameter from 0 (no standard error) the interval still
has an upper end, its lower one 0. Each end costs a root search of some ten points, each a search of the
other free parameters (some twenty filter runs each; one where a single parameter is free).

Positive parameters are searched on a log scale, as the fit searches them. Each side starts a quadratic's
level standard errors out (a tenth of the estimate, or of 1, where there is none) and doubles its step until
the profile has fallen; one that has not fallen at the search's bound, or 2¹⁰ times that first step out
(e^102 times the estimate up, a positive parameter without a standard error; down, 2⁻²⁰ times it at most),
ends there: at the bound, at 0, or at ±∞.
"""

from __future__ import annotations

import math

import numpy as np

# The interval's width in standard errors' equivalent: the values where log L falls by LEVEL²/2 = 2 nats (a
# likelihood-ratio interval of 95.4 % for one parameter, the coverage of a quadratic's ± 2 se).
LEVEL = 2.0
# The crossing is located to within this much fall (nats): a hundredth of the standard errors' scale, and
# above the reductions' small-scale jitter (±0.005 nats, fit.py).
TOLERANCE = 0.02
WIDEST = 10  # a side is searched out to 2^WIDEST times its first step
# A positive parameter's lower side is searched down to this fraction of its estimate, a side not fallen there
# ending at 0: a millionth of it is 0 for any interval's purpose, and each doubling further costs a search of
# the other parameters.
LOWEST = 2.0**-20


def intervals(loglik, result, bounds: dict | None = None, level: float = LEVEL, progress=None, stage=None) -> dict:
    """{name: (low, high)} for every free parameter of the FitResult `result` of `loglik` (fit.maximise's
    arguments: the log-likelihood of a full parameter vector with its `spec`, and the search's `bounds`).
    `progress(value)` is called after every filter run, `stage("profile of NAME")` as each parameter's begins."""
    out = {}
    for name in result.free:
        if stage is not None:
            stage(f"profile of {name}")
        along = Profile(loglik, result, name, bounds, level, progress)
        out[name] = (along.end(-1), along.end(+1))
    return out


class Profile:
    """The profile of one parameter along its coordinate u (log θ for a positive parameter, θ otherwise)."""

    def __init__(self, loglik, result, name, bounds, level, progress):
        spec = loglik.spec
        self.loglik, self.progress = loglik, progress
        self.index = [spec.param_names.index(n) for n in result.free]
        self.logscale = [spec.params[i].domain == "positive" for i in self.index]
        self.at = result.free.index(name)
        self.best = np.array(result.params, dtype=np.float64)
        self.u_best = np.array([self.to_u(j, self.best[i]) for j, i in enumerate(self.index)])
        self.ubounds = [self.u_bounds(j, (bounds or {}).get(n, (None, None))) for j, n in enumerate(result.free)]
        self.fall = 0.5 * level**2
        self.target = result.log_likelihood - self.fall
        se = result.stderr.get(name, math.nan)
        est = self.best[self.index[self.at]]
        self.has_stderr = se > 0
        if self.has_stderr:
            self.first = level * se / est if self.logscale[self.at] else level * se
        else:
            self.first = 0.1 if self.logscale[self.at] else 0.1 * max(abs(est), 1.0)
        self.warm = {0.0: np.delete(self.u_best, self.at)}  # the others' optimum at each distance searched

    def to_u(self, j, theta):
        return math.log(theta) if self.logscale[j] else float(theta)

    def to_theta(self, j, u):
        return math.exp(u) if self.logscale[j] else float(u)

    def u_bounds(self, j, bound):
        lo, hi = bound
        if self.logscale[j]:
            return (None if lo is None or lo <= 0 else math.log(lo), None if hi is None else math.log(hi))
        return lo, hi

    def end(self, sign: int) -> float:
        """The parameter's value where its profile crosses the target on the `sign` side of the estimate."""
        widest = self.first * 2.0**WIDEST
        if self.logscale[self.at] and sign < 0:
            widest = min(widest, -math.log(LOWEST))
        bound = self.ubounds[self.at][0 if sign < 0 else 1]
        limit = widest if bound is None else min(widest, abs(bound - self.u_best[self.at]))
        if self.logscale[self.at] and sign < 0 and not self.has_stderr and self.profile(limit, sign) > self.target:
            return self.beyond(sign, bound)  # a scale the trace cannot tell from 0: one run where ten would say so
        inside, g_in = 0.0, self.fall  # at the estimate the profile is the optimum
        d = min(self.first, limit)
        while True:  # out from the estimate until the profile is below the target, or the limit
            g = self.profile(d, sign) - self.target
            if not g > 0:
                break
            inside, g_in = d, g
            if d >= limit:
                return self.beyond(sign, bound)
            d = min(2.0 * d, limit)
        outside, g_out = d, g
        for _ in range(60):  # false position (Illinois) where the outer value is near the target, else bisection
            if abs(g_out) <= TOLERANCE or outside - inside <= 1e-9 * outside:
                break
            bisect = not g_out > -4.0 * self.fall  # far past it (or −∞): a secant would creep from the inside
            d = 0.5 * (inside + outside) if bisect else inside + (outside - inside) * g_in / (g_in - g_out)
            g = self.profile(d, sign) - self.target
            if g > 0:
                inside, g_in = d, g
                g_out *= 1.0 if bisect else 0.5
            else:
                outside, g_out = d, g
                g_in *= 1.0 if bisect else 0.5
        return self.to_theta(self.at, self.u_best[self.at] + sign * outside)

    def beyond(self, sign, bound):
        """The end of a side whose profile stays above the target out to its limit."""
        if bound is not None:
            return self.to_theta(self.at, bound)
        if self.logscale[self.at] and sign < 0:
            return 0.0
        return sign * math.inf

    def profile(self, d: float, sign: int) -> float:
        """max over the other free parameters of log L, this one at distance d (its coordinate) from the estimate."""
        from scipy.optimize import minimize

        u_here = self.u_best[self.at] + sign * d
        nearest = min(self.warm, key=lambda k: abs(k - sign * d))
        start = self.warm[nearest]

        def value(others):
            u = np.insert(np.asarray(others, dtype=np.float64), self.at, u_here)
            v = self.best.copy()
            for j, i in enumerate(self.index):
                v[i] = self.to_theta(j, u[j])
            f = self.loglik(v)
            if self.progress is not None:
                self.progress(f)
            return f

        if not len(start):
            return value(start)
        others_bounds = [b for j, b in enumerate(self.ubounds) if j != self.at]
        simplex = np.array([start] + [start + 0.05 * np.eye(len(start))[k] for k in range(len(start))])

        def negative(others):
            f = value(others)
            return -f if math.isfinite(f) else 1e300

        res = minimize(
            negative,
            start,
            method="Nelder-Mead",
            bounds=others_bounds if any(b != (None, None) for b in others_bounds) else None,
            options=dict(xatol=1e-2, fatol=5e-3, maxfev=200, initial_simplex=simplex),
        )
        self.warm[sign * d] = np.asarray(res.x)
        return -float(res.fun) if res.fun < 1e300 else -math.inf
