"""BayesLaplace: prior atoms × likelihood of the evidence → posterior value (docs/semantics.md)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from . import _density, _ttr, libm
from .facts import Status
from .lift import outer_product
from .value import Value, normalise

_LOG_SQRT_2PI = 0.5 * libm.log(2.0 * math.pi)
_LOG2 = libm.log(2.0)


def log_family(family: str, t: np.ndarray) -> np.ndarray:
    """Standard log-density of the outer noise family of a kernel likelihood."""
    if family == "gaussian":
        return -0.5 * t * t - _LOG_SQRT_2PI
    if family == "laplace":
        return -np.abs(t) - _LOG2
    if family == "uniform":
        return np.where((t >= -0.5) & (t <= 0.5), 0.0, -np.inf)
    raise ValueError(f"unknown kernel family {family!r}; use 'gaussian', 'laplace' or 'uniform'")


FAMILIES = ("gaussian", "laplace", "uniform")
# The variance of each standardised outer family (ux/bayes.c family_variance): Laplace(0, 1) and the uniform on
# [−½, ½].
FAMILY_VARIANCE = {"gaussian": 1.0, "laplace": 2.0, "uniform": 1.0 / 12.0}
# The smallest likelihood taken in the linear domain — a sum over inner-noise atoms, the largest likelihood of
# a point update (ux/bayes.c, UX_LINEAR_MIN of the double build): far above the subnormals, so terms that
# underflow to 0 change such a sum by less than 1e-30 of itself.
LINEAR_MIN = 2.0**-900


def logsumexp_rows(a: np.ndarray) -> np.ndarray:
    """log Σ_j exp(a_ij) per row, max-subtracted, summed sequentially; −∞ for an all −∞ row."""
    top = a.max(axis=1)
    finite = np.isfinite(top)
    safe = np.where(finite, top, 0.0)
    with np.errstate(invalid="ignore"):
        s = np.cumsum(libm.exp(a - safe[:, None]), axis=1)[:, -1]
        out = safe + libm.log(s)
    return np.where(finite, out, -np.inf)


class KernelLikelihood:
    """p(z | x) = Σ_j ν_j g((z − loc_j(x)) / scale_j(x)) / scale_j(x): exact marginalisation of the
    inner noises (quantized values) under an outer noise family with a known density."""

    def __init__(self, family: str, loc_scale, inner: tuple[Value, ...] = ()):
        if family not in FAMILIES:
            raise ValueError(f"unknown kernel family {family!r}; use one of {FAMILIES}")
        self.family = family
        self.loc_scale = loc_scale
        self.inner = tuple(inner)

    def _atoms(self, x: np.ndarray):
        """(loc, scale) as (N hypotheses, J inner atoms) matrices and the atoms' weights ν (J = 1, ν = 1 without
        inner noise)."""
        if self.inner:
            points, nu = outer_product(list(self.inner))
            with np.errstate(all="ignore"):
                loc, scale = self.loc_scale(x[:, None], *[p[None, :] for p in points])
        else:
            nu = np.ones(1)
            with np.errstate(all="ignore"):
                loc, scale = self.loc_scale(x)
            loc, scale = np.broadcast_to(loc, x.shape)[:, None], np.broadcast_to(scale, x.shape)[:, None]
        return np.broadcast_to(loc, (x.size, nu.size)), np.broadcast_to(scale, (x.size, nu.size)), nu

    def log_likelihood(self, x: np.ndarray, z: np.ndarray) -> np.ndarray:
        """(N hypotheses, K evidence atoms) matrix of log p(z_k | x_i)."""
        loc, scale, nu = self._atoms(x)
        log_nu = libm.log(nu)[None, :]
        out = np.empty((x.size, z.size))
        with np.errstate(all="ignore"):
            log_scale = libm.log(scale)
            for k, zk in enumerate(z):
                g = log_family(self.family, (zk - loc) / scale)
                if not self.inner:
                    out[:, k] = logsumexp_rows(log_nu + g - log_scale)
                    continue
                # With inner noise the sum over its atoms is taken in the linear domain, (ν_j·e^g)/scale summed
                # in j order, wherever it is at least LINEAR_MIN and finite (docs/semantics.md, as ux/bayes.c);
                # the log-domain sum only for the rows where it is not.
                linear = np.cumsum(nu[None, :] * libm.exp(g) / scale, axis=1)[:, -1]
                tails = ~((linear >= LINEAR_MIN) & np.isfinite(linear))
                out[:, k] = libm.log(linear)
                if tails.any():
                    out[tails, k] = logsumexp_rows((log_nu + g - log_scale)[tails])
        return out

    def _innovation_moments(self, x: np.ndarray, w: np.ndarray, z: np.ndarray):
        """Var loc (about the first atom's loc), Var z and the worst ν² over the evidence (ux/bayes.c
        innovation_moments): the kernel's loc and scale at every atom, an inner noise held at its mean; the sums
        sequential."""
        x, w = np.asarray(x, dtype=np.float64), np.asarray(w, dtype=np.float64)
        with np.errstate(all="ignore"):
            centres = [np.full(x.size, _ttr.sequential_sum(v.w * v.x)) for v in self.inner]
            loc, scale = self.loc_scale(x, *centres)
            loc, scale = np.broadcast_to(loc, x.shape), np.broadcast_to(scale, x.shape)
            d = loc - loc[0]
            total = _ttr.sequential_sum(w)
            shift = _ttr.sequential_sum(w * d) / total
            spread = _ttr.sequential_sum(w * (d * d)) / total - shift * shift
            var = spread + FAMILY_VARIANCE[self.family] * (_ttr.sequential_sum(w * (scale * scale)) / total)
            nu = np.asarray(z, dtype=np.float64) - (loc[0] + shift)
            return float(spread), float(var), float((nu * nu).max())

    def innovation_ratio(self, x: np.ndarray, w: np.ndarray, z: np.ndarray) -> float:
        """The normalised innovation squared max_k (z_k − E z)² / Var z of the evidence under the predictive law
        of one observation from the prior atoms (x, w) (docs/semantics.md, "Innovation gate", as ux/bayes.c):
        E z and Var z from the kernel's loc and scale at every atom, an inner noise held at its mean; the
        sums sequential, about the first atom's loc. NaN where it cannot be taken (a non-finite loc or scale)."""
        _, var, worst = self._innovation_moments(x, w, z)
        with np.errstate(all="ignore"):
            return float(np.float64(worst) / np.float64(var))

    def innovation_shift(self, x: np.ndarray, w: np.ndarray, z: np.ndarray, prior_var: float) -> float:
        """How far a linear update would move the mean on the worst evidence point (docs/semantics.md,
        "Departure"; ux_innovation_shift): √(V·Var loc)/Var z·|ν|, V the prior atoms' variance."""
        spread, var, worst = self._innovation_moments(x, w, z)
        spread = 0.0 if spread < 0 else spread  # rounding: a loc that does not vary
        with np.errstate(all="ignore"):
            return float(np.sqrt(np.float64(prior_var * spread)) / np.float64(var) * np.sqrt(np.float64(worst)))

    def linear_update(self, x: np.ndarray, w: np.ndarray, z: float, mean: float, var: float) -> LinearUpdate | None:
        """The statistically linearised update of prior atoms (x, w) — mean `mean`, variance `var` — on one
        evidence point z (docs/semantics.md, "Linear update"; ux_linear_update): gain K = Cov(x, loc)/S,
        S = Var loc + Var z|x; one kernel call per atom, sums in atom order, x about `mean` and loc about the
        first atom's loc. None with inner noise."""
        if self.inner:
            return None
        x, w = np.asarray(x, dtype=np.float64), np.asarray(w, dtype=np.float64)
        with np.errstate(all="ignore"):
            loc, scale = self.loc_scale(x)
            loc, scale = np.broadcast_to(loc, x.shape), np.broadcast_to(scale, x.shape)
            d, ell = x - mean, loc - loc[0]
            dd = d * d
            t = _ttr.sequential_sum(w)
            md, ml = _ttr.sequential_sum(w * d) / t, _ttr.sequential_sum(w * ell) / t
            cov = _ttr.sequential_sum(w * (d * ell)) / t - md * ml
            loc_var = _ttr.sequential_sum(w * (ell * ell)) / t - ml * ml
            noise = FAMILY_VARIANCE[self.family] * (_ttr.sequential_sum(w * (scale * scale)) / t)
            s = loc_var + noise
            m2 = _ttr.sequential_sum(w * dd) / t - md * md
            m3, m4 = _ttr.sequential_sum(w * (dd * d)) / t, _ttr.sequential_sum(w * (dd * dd)) / t
            gain, nu, sd = cov / s, np.float64(z) - (loc[0] + ml), np.sqrt(s)
            residual = loc_var - cov * cov / np.float64(var)
            # V − K·Cov for a line, without its cancellation when K·Cov ≈ V (a prior far wider than the noise)
            return LinearUpdate(
                shift=float(gain * nu),
                var=float(np.float64(var) * (noise / s)),
                ratio=float(nu * nu / s),
                log_evidence=float(log_family("gaussian", nu / sd) - libm.log(sd)),
                loc_var=float(loc_var),
                residual=float(residual),
                noise=float(noise),
                bimodality=float((m3 * m3 / (m2 * m2 * m2) + 1.0) / (m4 / (m2 * m2))),
                same_scale=bool((scale == scale[0]).all()),
            )

    def likelihood(self, x: np.ndarray, z: float) -> np.ndarray:
        """p(z | x_i) per hypothesis in the linear domain, as BayesLaplace weighs one evidence point seen once
        (docs/semantics.md): Σ_j (ν_j·e^{g(u_ij)})/scale_ij in j order — e^{g(u_i)}/scale_i without inner noise
        (ν = 1 multiplies exactly); NaN read as 0."""
        loc, scale, nu = self._atoms(x)
        with np.errstate(all="ignore"):
            p = np.cumsum(nu[None, :] * libm.exp(log_family(self.family, (z - loc) / scale)) / scale, axis=1)[:, -1]
        return np.where(np.isnan(p), 0.0, p)


class SamplerLikelihood:
    """The generic path: lift the observation sampler h(x, noise…) per hypothesis, reduce to η atoms,
    and read the TTR-binned density at the evidence. The model code doubles as the likelihood."""

    def __init__(self, h, noises: tuple[Value, ...], eta: int, chunk_points: int = 1 << 22):
        if not noises:
            raise ValueError("the sampler form needs at least one noise input (a noise-free model has no density)")
        self.h = h
        self.noises = tuple(noises)
        self.n = _ttr.log2_eta(eta)
        self.chunk_points = chunk_points

    def log_likelihood(self, x: np.ndarray, z: np.ndarray) -> np.ndarray:
        points, q = outer_product(list(self.noises))
        P = q.size
        rows = max(1, self.chunk_points // max(P, 1))
        out = np.empty((x.size, z.size))
        for lo in range(0, x.size, rows):
            xs = x[lo : lo + rows]
            with np.errstate(all="ignore"):
                y = np.asarray(self.h(xs[:, None], *[p[None, :] for p in points]), dtype=np.float64)
            y = np.broadcast_to(y, (xs.size, P))
            w = np.broadcast_to(q, (xs.size, P))
            # Non-finite outputs and underflowed weights leave the law.
            dead = ~np.isfinite(y) | (w == 0)
            X, Wt, counts = _ttr.ttr_rows(np.where(dead, 0.0, y), np.where(dead, 0.0, w), self.n)
            dens = np.zeros((xs.size, z.size))
            for c in np.unique(counts):
                sel = np.flatnonzero(counts == c)
                if c >= 2:
                    Xc, Wc = X[sel, :c], Wt[sel, :c]
                    Wc = Wc / np.cumsum(Wc, axis=1)[:, -1:]
                    dens[sel] = _density.pdf_rows(Xc, Wc, z)
            with np.errstate(divide="ignore"):
                out[lo : lo + rows] = libm.log(dens)
        return out


class LinearUpdate(NamedTuple):
    """KernelLikelihood.linear_update (ux_linear): the mean's shift K·ν, the variance a line in x leaves
    V·(v_g·E scale²)/S, ν²/S, log N(ν; 0, S), Var loc, what a line in x leaves of it, the noise's variance
    v_g·E scale², the atoms' bimodality coefficient, and whether every atom's scale is the first's."""

    shift: float
    var: float
    ratio: float
    log_evidence: float
    loc_var: float
    residual: float
    noise: float
    bimodality: float
    same_scale: bool


@dataclass
class BayesResult:
    posterior: Value
    status: Status
    log_likelihood: np.ndarray  # ℓ_i per prior atom (after m and ω), for diagnostics
    log_evidence: float = 0.0  # log p(evidence) under the prior atoms: the update's normalising constant
    ess: float = math.nan  # the weighed atoms' effective count (Σ w')²/Σ w'² (NaN on a fallback)
    points_var: float = math.nan  # the weighed atoms' variance, before TTR (NaN on a fallback)


def evidence_arrays(evidence):
    """(z, ω) from a number, a Value (an empirical law) or a (z, ω) pair; rejects non-finite input."""
    if isinstance(evidence, Value):
        z, om = evidence.x, evidence.w
    elif isinstance(evidence, tuple) and len(evidence) == 2:
        z = np.atleast_1d(np.asarray(evidence[0], dtype=np.float64))
        om = np.atleast_1d(np.asarray(evidence[1], dtype=np.float64))
    else:
        z = np.atleast_1d(np.asarray(evidence, dtype=np.float64))
        om = np.ones(1) if z.size == 1 else np.full(z.size, 1.0 / z.size)
    if z.size == 0 or z.shape != om.shape:
        raise ValueError("evidence needs as many weights as observations, and at least one")
    if not (np.isfinite(z).all() and np.isfinite(om).all()):
        raise ValueError(f"evidence must be finite, got observations {z} with weights {om}")
    if (om <= 0).any():
        raise ValueError("evidence weights must be positive")
    return z, om


def points_mean(x, w) -> float:
    """Mean of weighted points (weights > 0, not necessarily normalised), sums in order (ux_points_mean)."""
    x, w = np.asarray(x, dtype=np.float64), np.asarray(w, dtype=np.float64)
    return _ttr.sequential_sum(w * x) / _ttr.sequential_sum(w)


def points_variance(x, w) -> float:
    """Variance of weighted points (weights > 0, not necessarily normalised), sums in order (ux_points_var):
    Σ w·(x − m)² / Σ w, m = Σ w·x / Σ w."""
    x, w = np.asarray(x, dtype=np.float64), np.asarray(w, dtype=np.float64)
    mass = _ttr.sequential_sum(w)
    d = x - _ttr.sequential_sum(w * x) / mass
    return _ttr.sequential_sum(w * (d * d)) / mass


def reduce_prior(x, w, eta: int) -> Value:
    """The prior atoms reduced with TTR to η and normalised: the posterior when the evidence says nothing."""
    px, pw = _ttr.ttr(x, w, _ttr.log2_eta(eta))
    return Value(px, normalise(pw), eta)


def bayes_laplace(prior, likelihood, evidence, m: int = 1, eta: int | None = None) -> BayesResult:
    """Posterior of `prior` given `evidence` observed `m` times under `likelihood`.

    `prior` is a Value or an (x, w) pair of atoms in any order with positive weights (the η² predictive
    atoms of the refined filter, in evaluation order). The result has at most `eta` atoms (default: the prior's η).
    """
    if isinstance(prior, Value):
        x, w = prior.x, prior.w
        eta = prior.eta if eta is None else eta
    else:
        x, w = prior
        if eta is None:
            raise ValueError("eta is needed when the prior is given as atoms")
    n = _ttr.log2_eta(eta)
    if int(m) != m or m < 1:
        raise ValueError(f"the observation count m must be a positive integer, got {m}")
    z, om = evidence_arrays(evidence)
    if isinstance(likelihood, KernelLikelihood) and z.size == 1 and m == 1 and om[0] == 1.0:
        # One evidence point seen once: the weights in the linear domain, w_i·(p_i / max p), when the largest
        # likelihood is at least LINEAR_MIN and finite (docs/semantics.md, as ux/bayes.c); else the log domain.
        p = likelihood.likelihood(np.asarray(x, dtype=np.float64), float(z[0]))
        top = float(p.max())
        if top >= LINEAR_MIN and math.isfinite(top):
            wp = w * (p / top)
            log_evidence = libm.log(top) + libm.log(_ttr.sequential_sum(wp)) - libm.log(_ttr.sequential_sum(w))
            with np.errstate(divide="ignore"):
                ell = libm.log(p)
            return _posterior(x, wp, eta, n, ell, log_evidence)
    ell = log_likelihood_sum(likelihood, x, z, om, m)
    top = float(ell.max())
    if not np.isfinite(top):  # −∞: every likelihood zero; +∞ cannot be weighed either
        return BayesResult(reduce_prior(x, w, eta), Status.FALLBACK, ell, top)
    wp = w * libm.exp(ell - top)  # the best hypothesis keeps its prior weight: they cannot all underflow
    # log p(z) = log Σ w_i·exp(ℓ_i) − log Σ w_i, the same max subtracted; sums sequential, as in C.
    log_evidence = top + libm.log(_ttr.sequential_sum(wp)) - libm.log(_ttr.sequential_sum(w))
    return _posterior(x, wp, eta, n, ell, log_evidence)


def _posterior(x, wp, eta: int, n: int, ell, log_evidence: float) -> BayesResult:
    """The weighed atoms, zero weights dropped, reduced with TTR and normalised; their effective count."""
    mass = _ttr.sequential_sum(wp)
    xs, ws = _ttr.compact(x, wp)
    spread = points_variance(xs, ws)
    px, pw = _ttr.ttr(xs, ws, n)
    return BayesResult(
        Value(px, normalise(pw), eta), Status.OK, ell, log_evidence, mass * mass / _ttr.sequential_sum(wp * wp), spread
    )


def log_likelihood_sum(likelihood, x: np.ndarray, z: np.ndarray, om: np.ndarray, m: int) -> np.ndarray:
    """ℓ(x) = m Σ_k ω_k log p(z_k | x) per point of x (sequential over k; NaN read as −∞), as BayesLaplace."""
    L = likelihood.log_likelihood(np.asarray(x, dtype=np.float64), z)
    acc = np.zeros(L.shape[0])
    with np.errstate(invalid="ignore"):
        for k in range(z.size):
            acc = acc + om[k] * L[:, k]
        ell = float(m) * acc
    return np.where(np.isnan(ell), -np.inf, ell)
