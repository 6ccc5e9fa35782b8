"""The exact posterior of a 1-D inference instance by dense numerical integration, and W1 to it.

The posterior density prior(x)·L(x) is evaluated on a uniform grid (20001 points by default) over the
range that holds all but 1e-12 of its mass, normalised by the trapezoid rule; its cdf is the running
trapezoid sum, linear between nodes. This is the ground truth of the inference benchmark: unlike a
Monte Carlo posterior it carries no sampling error, so W1 values down to ~1e-6 of the posterior's
scale are meaningful.

W1 between a candidate and the exact posterior is ∫ |F_candidate − F_exact| dt, integrated exactly
between the merged breakpoints of both cdfs (grid nodes, atoms, bin edges): there, one cdf is linear
and the other is constant (weighted atoms) or linear (a TTR-binned density), so each piece has a
closed form.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.interpolate import CubicSpline

POINTS = 20001
TAIL = 1e-12  # mass left outside the grid on each side
_COARSE = 8001  # first pass, over ±40 prior standard deviations, to find where the mass is
_WIDE = 40.0
_INNER_NODES = 2001  # trapezoid nodes of an inner-noise integral
_INNER_SPAN = 9.0  # … over ±9 standard deviations of the inner noise
_SPLINE_NODES = 2001  # x nodes where an inner-noise likelihood is integrated, then splined


@dataclass
class ExactPosterior:
    t: np.ndarray  # grid nodes, increasing
    density: np.ndarray  # normalised posterior density at t
    F: np.ndarray  # cdf at t: F[0] = 0, F[-1] = 1

    def cdf(self, s):
        return np.interp(s, self.t, self.F, left=0.0, right=1.0)

    def mean(self) -> float:
        return float(np.trapezoid(self.t * self.density, self.t))

    def var(self) -> float:
        mu = self.mean()
        return float(np.trapezoid((self.t - mu) ** 2 * self.density, self.t))

    def w1_atoms(self, x, w) -> float:
        """W1 of weighted atoms (a step cdf) to the exact posterior."""
        x = np.asarray(x, dtype=np.float64).ravel()
        w = np.asarray(w, dtype=np.float64).ravel()
        order = np.argsort(x, kind="stable")
        xs, ws = x[order], w[order] / w.sum()
        # Merge the atoms into the grid (O(grid) rather than a sort); equal positions only add
        # zero-length intervals.
        pos = np.searchsorted(self.t, xs, side="right")
        b = np.insert(self.t, pos, xs)
        fe = np.insert(self.F, pos, self.cdf(xs))
        # The atoms' cdf on [b_k, b_k+1): constant between the merged atoms' indices.
        at = pos + np.arange(xs.size)
        steps = np.concatenate([[0.0], np.cumsum(ws)])
        c = np.repeat(steps, np.diff(np.concatenate([[0], at, [b.size - 1]])))
        return _area(fe[:-1] - c, fe[1:] - c, np.diff(b))

    def w1_piecewise_linear(self, edges, cum) -> float:
        """W1 of a distribution whose cdf runs linearly through (edges, cum), cum from 0 to 1."""
        edges = np.asarray(edges, dtype=np.float64)
        cum = np.asarray(cum, dtype=np.float64)
        b = np.union1d(self.t, edges)
        d = np.interp(b, edges, cum, left=0.0, right=1.0) - self.cdf(b)
        return _area(d[:-1], d[1:], np.diff(b))

    def w1_reconstructed(self, value) -> float:
        """W1 of the TTR-binned density of a uxemu Value (a one-atom value is its atom)."""
        if len(value) < 2:
            return self.w1_atoms(value.x, value.w)
        edges, heights = value.bins()
        cum = np.concatenate([[0.0], np.cumsum(heights * np.diff(edges))])
        return self.w1_piecewise_linear(edges, cum / cum[-1])


def _area(a, b, length) -> float:
    """Σ ∫ |linear from a to b| over intervals of the given lengths (closed form, with sign changes)."""
    s = np.abs(a) + np.abs(b)
    area = 0.5 * s * length
    cross = np.flatnonzero(a * b < 0)  # few: only where the two cdfs swap order
    area[cross] = length[cross] * (a[cross] ** 2 + b[cross] ** 2) / (2.0 * s[cross])
    return float(area.sum())


def _normalised(t, logp):
    logp = np.where(np.isnan(logp), -np.inf, logp)
    top = logp.max()
    if not np.isfinite(top):
        raise ValueError("the posterior density is zero (or not finite) everywhere on the grid")
    p = np.exp(logp - top)
    masses = 0.5 * (p[:-1] + p[1:]) * np.diff(t)
    total = masses.sum()
    F = np.concatenate([[0.0], np.cumsum(masses)]) / total
    F[-1] = 1.0
    return p / total, F


def exact_posterior(prior, loglik, points: int = POINTS) -> ExactPosterior:
    """Posterior of a continuous prior law (uxemu.laws: logpdf, mean, var) under a vectorised
    log-likelihood x ↦ log p(evidence | x)."""
    mu, sd = prior.mean(), math.sqrt(prior.var())
    t = np.linspace(mu - _WIDE * sd, mu + _WIDE * sd, _COARSE)
    with np.errstate(all="ignore"):
        _, F = _normalised(t, prior.logpdf(t) + loglik(t))
    # The first node below TAIL and the first above 1 − TAIL, one coarse cell further out on each side.
    i = max(int(np.searchsorted(F, TAIL, side="right")) - 2, 0)
    j = min(int(np.searchsorted(F, 1.0 - TAIL, side="left")) + 1, t.size - 1)
    fine = np.linspace(t[i], t[j], points)
    with np.errstate(all="ignore"):
        density, F = _normalised(fine, prior.logpdf(fine) + loglik(fine))
    return ExactPosterior(fine, density, F)


def system_loglik(model, z: float):
    """x ↦ log p(z | x) of a uxemu StateSpaceModel's kernel form, exact to far below any W1 reported.

    Without inner noise the kernel is the closed-form likelihood. An inner noise (one law) is
    integrated by the trapezoid rule on 2001 nodes over ±9 of its standard deviations, which resolves
    the kink a Laplace outer family puts in the integrand (Gauss–Hermite rules converge slowly there).
    That costs 2001 evaluations per x, so on long grids it runs on 2001 x nodes and a cubic spline of
    log p carries it to the rest: the likelihood of such models varies on scales far above the spacing.
    """
    kernel = model.kernel
    if kernel is None:
        raise ValueError(f"model {model.name!r} has no kernel form: no closed-form likelihood")
    if not kernel.inner:
        return lambda x: model.log_likelihood(z, x)
    if len(kernel.inner) != 1:
        raise ValueError("one inner noise at most")
    law = kernel.inner[0]
    m_mu, m_sd = law.mean(), math.sqrt(law.var())
    m = np.linspace(m_mu - _INNER_SPAN * m_sd, m_mu + _INNER_SPAN * m_sd, _INNER_NODES)
    q = np.exp(law.logpdf(m))
    q[0] *= 0.5
    q[-1] *= 0.5
    log_q = np.log(q / q.sum())
    from uxemu.bayes import log_family, logsumexp_rows

    def direct(x):
        out = np.empty(x.size)
        for lo in range(0, x.size, 256):
            xs = x[lo : lo + 256, None]
            with np.errstate(all="ignore"):
                loc, scale = kernel.loc_scale(xs, m[None, :])
                a = log_q[None, :] + log_family(kernel.family, (z - loc) / scale) - np.log(scale)
            out[lo : lo + 256] = logsumexp_rows(a)
        return out

    def loglik(x):
        x = np.asarray(x, dtype=np.float64)
        if x.size <= _SPLINE_NODES:
            return direct(x.ravel()).reshape(x.shape)
        nodes = np.linspace(x.min(), x.max(), _SPLINE_NODES)
        return CubicSpline(nodes, direct(nodes))(x)

    return loglik
