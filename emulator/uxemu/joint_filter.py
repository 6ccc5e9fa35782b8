"""BayesLaplace over joint values and the filter over a vector state (docs/semantics.md, "Joint BayesLaplace",
"Joint filter"): the reference of firmware/src/ux/joint_bayes.c and joint_filter.c, sum for sum, so that the
two agree bit for bit in the double build.

    >>> from uxemu import joint_systems
    >>> from uxemu.joint_filter import run_joint_filter
    >>> m = joint_systems.get("cvrange")
    >>> x, z = joint_systems.simulate(m, 20, seed=1)
    >>> run = run_joint_filter(m, z, eta=16)
    >>> run.mean.shape, run.cov.shape, int(run.status.max())
    ((20, 2), (20, 2, 2), 0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from . import _ttr, libm
from ._linalg import GateSums
from .bayes import FAMILY_VARIANCE, LINEAR_MIN, Status, log_family
from .filter import NIS_LIMIT, OUTLIER_GATE, consistency_limit, gate_limit, nis_track, sum_in_order
from .joint import JointValue, product
from .joint_systems import JointModel

JOINT_MODES = ("refined", "paper")  # the atom filter's; the scalar filter's mixture mode has no joint form
# Every mode a vector state runs in: the atom filter's and the cell filter's (uxemu.joint_cells, "cells").
VECTOR_MODES = JOINT_MODES + ("cells",)
# A vector state's mode when none is asked for (uxemu.run_filter, uxhost): the cell filter, which is more
# accurate than the atom filter at a fraction of its cost (benchmarks/results/joint_cells.md).
DEFAULT_VECTOR_MODE = "cells"


def _weights(J: int, omega) -> np.ndarray:
    if omega is None:
        return np.full(J, 1.0 if J == 1 else 1.0 / J)
    om = np.atleast_1d(np.asarray(omega, dtype=np.float64))
    if om.size != J:
        raise ValueError(f"{J} evidence points but {om.size} weights")
    return om


def check_evidence(model: JointModel, z, omega=None, m: int = 1):
    """(z as J × dim_obs rows, ω) after the checks the C core makes: a clear ValueError for a wrong width,
    a non-finite position, ω ≤ 0 or m < 1."""
    z = np.asarray(z, dtype=np.float64)
    z = z.reshape(1, -1) if z.ndim <= 1 else z
    if z.shape[1] != model.dim_obs or not 1 <= z.shape[0] <= 64:
        raise ValueError(
            f"system {model.name} observes {model.dim_obs} component(s) per point (1 … 64 points); "
            f"got evidence of shape {z.shape}"
        )
    om = _weights(z.shape[0], omega)
    if m < 1:
        raise ValueError(f"m = {m}: the evidence must stand for at least one observation")
    if not np.isfinite(z).all():
        raise ValueError("the observation is not finite (NaN or ±inf): send a step without observation instead")
    if not (np.isfinite(om).all() and (om > 0).all()):
        raise ValueError("evidence weights must be finite and > 0")
    return z, om


def log_likelihoods(model: JointModel, x: np.ndarray, z: np.ndarray, omega: np.ndarray, m: int) -> np.ndarray:
    """ℓ_i = m Σ_k ω_k Σ_c [g((z_kc − loc_c(x_i)) / scale_c(x_i)) − log scale_c(x_i)], sums in index order;
    NaN → −∞ (ux/joint_bayes.h)."""
    with np.errstate(all="ignore"):
        loc, scale = model.loc_scale(x)
        loc = np.broadcast_to(loc, (x.shape[0], model.dim_obs))
        scale = np.broadcast_to(scale, (x.shape[0], model.dim_obs))
        log_scale = libm.log(scale)
        acc = np.zeros(x.shape[0])
        for k in range(z.shape[0]):
            s = np.zeros(x.shape[0])
            for c in range(model.dim_obs):
                s = s + (log_family(model.family, (z[k, c] - loc[:, c]) / scale[:, c]) - log_scale[:, c])
            acc = acc + omega[k] * s
        ell = float(m) * acc
    return np.where(np.isnan(ell), -np.inf, ell)


def likelihoods_linear(model: JointModel, x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """One evidence point seen once, in the linear domain as the scalar update: p_i = Π_c e^{g(u_ic)}/scale_ic
    in index order, NaN → 0 (ux/joint_bayes.c)."""
    with np.errstate(all="ignore"):
        loc, scale = model.loc_scale(x)
        loc = np.broadcast_to(loc, (x.shape[0], model.dim_obs))
        scale = np.broadcast_to(scale, (x.shape[0], model.dim_obs))
        p = None
        for c in range(model.dim_obs):
            factor = libm.exp(log_family(model.family, (z[c] - loc[:, c]) / scale[:, c])) / scale[:, c]
            p = factor if p is None else p * factor
    return np.where(np.isnan(p), 0.0, p)


def reduce_atoms(x: np.ndarray, w: np.ndarray, eta: int) -> JointValue:
    """Zero weights dropped, joint TTR(log2 eta), normalised (ux_joint_reduce)."""
    return JointValue.from_atoms(x, w, eta)


def joint_bayes_laplace(model: JointModel, x, w, z, omega=None, m: int = 1, eta: int = 16):
    """The posterior of prior atoms (x: M × dim, w > 0) given evidence: (JointValue, Status, log evidence)."""
    z, om = check_evidence(model, z, omega, m)
    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    prior_mass = _ttr.sequential_sum(w)
    if z.shape[0] == 1 and m == 1 and om[0] == 1.0:
        p = likelihoods_linear(model, x, z[0])
        top = float(p.max())
        if top >= LINEAR_MIN and math.isfinite(top):
            post = w * (p / top)
            mass = _ttr.sequential_sum(post)
            return reduce_atoms(x, post, eta), Status.OK, libm.log(top) + libm.log(mass) - libm.log(prior_mass)
    ell = log_likelihoods(model, x, z, om, m)
    top = float(ell.max())
    if not math.isfinite(top):
        return reduce_atoms(x, w, eta), Status.FALLBACK, top
    with np.errstate(under="ignore"):
        post = w * libm.exp(ell - top)
    mass = _ttr.sequential_sum(post)
    return reduce_atoms(x, post, eta), Status.OK, top + libm.log(mass) - libm.log(prior_mass)


def independent_laws(laws, eta: int) -> JointValue:
    """The joint value of independent laws, each quantized at eta: the first two laws' product reduced to eta,
    then each further law's product with it (the atom varying slowest, weights multiplied left to right)
    reduced to eta again, so that no product exceeds η² points (ux_joint_filter_init's rule); one law is its
    quantized value as it is (a reduction would renormalise its weights, changing their last bits). The laws
    must have a location–scale form (their quantization needs no stack)."""
    for law in laws:
        if law.location_scale() is None:
            raise ValueError(
                f"{law}: a joint filter's prior and noise laws need a location–scale form "
                "(Gaussian, Laplace, uniform, exponential)"
            )
    if len(laws) == 1:
        v = laws[0].quantize(eta)
        return JointValue(v.x[:, None], v.w, eta, v.sources)
    out = product(*[law.quantize(eta) for law in laws[:2]], eta=eta)
    for law in laws[2:]:
        q = law.quantize(eta)
        n = q.x.size
        x = np.concatenate([np.repeat(out.x, n, axis=0), np.tile(q.x, out.w.size)[:, None]], axis=1)
        out = JointValue.from_atoms(x, np.repeat(out.w, n) * np.tile(q.w, out.w.size), eta, out.sources | q.sources)
    return out


class JointFilter:
    """The joint filter step by step (ux_joint_filter): predict(k, u), update(z), mean(), cov()."""

    def __init__(
        self,
        model: JointModel,
        eta: int = 16,
        mode: str = "refined",
        prior=None,
        gate: float = OUTLIER_GATE,
        gate_outliers: bool = False,
        nis_limit: float = NIS_LIMIT,
    ):
        self.gate, self.gate_outliers = gate_limit(gate), bool(gate_outliers)  # ux_joint_filter_set_gate
        self.test_ratio = math.nan  # the last update's largest νᵀ·S⁻¹·ν over its evidence points
        self.nis = 1.0  # the running mean of the test ratio per observation component ("Consistency")
        self.nis_limit = consistency_limit(nis_limit)  # ux_joint_filter_set_consistency
        if mode not in JOINT_MODES:
            raise ValueError(f"unknown mode {mode!r} for a joint filter; use one of {JOINT_MODES}")
        _ttr.log2_eta(eta)
        self.model, self.eta, self.mode = model, int(eta), mode
        laws = model.prior if prior is None else tuple(prior)
        if len(laws) != model.dim:
            raise ValueError(f"system {model.name} has {model.dim} components; the prior gives {len(laws)}")
        self.prior_laws = laws
        self.fresh = True
        self.posterior = independent_laws(laws, eta)
        self.process = independent_laws(model.process_noise, eta)
        self.staged = None  # (x, w) of the staged prediction
        self.last = Status.OK
        self.log_evidence = 0.0

    def _reduce_staged(self):
        if self.staged is not None:
            self.posterior = reduce_atoms(*self.staged, self.eta)
            self.staged = None

    def predict(self, k: int, u: float = 0.0):
        """The transition on the posterior's atoms × the process noise's (the posterior's slowest)."""
        self._reduce_staged()
        b, p = self.posterior, self.process
        x = np.repeat(b.x, len(p), axis=0)
        w = np.tile(p.x, (len(b), 1))
        weights = (b.w[:, None] * p.w[None, :]).ravel()
        with np.errstate(all="ignore"):
            y = np.asarray(self.model.transition(x, w, k, u), dtype=np.float64)
        if not np.isfinite(y).all():
            raise ValueError(f"the transition of {self.model.name} gave a non-finite value at step {k}")
        if self.mode == "paper":
            v = reduce_atoms(y, weights, self.eta)
            y, weights = v.x, v.w
        self.staged = (y, weights)

    def update(self, z, omega=None, m: int = 1) -> Status:
        """BayesLaplace with evidence z (J × dim_obs, or one point); z None: a step without observation."""
        if z is None:
            self.test_ratio = math.nan
            return self._without_observation(Status.NO_EVIDENCE)
        zs, _ = check_evidence(self.model, z, omega, m)
        if self.staged is not None:
            x, w = self.staged
        elif self.fresh and self.mode == "refined" and self.first_prior() is not None:
            x, w = self.first_prior()
        else:
            x, w = self.posterior.x, self.posterior.w
        self.test_ratio = self._evidence_test_ratio(x, w, zs)
        outlier = self.test_ratio > self.gate * self.gate
        self.nis = nis_track(self.nis, self.test_ratio, self.model.dim_obs)
        if outlier and self.gate_outliers:  # not weighed: the step without observation's
            return self._without_observation(Status.OUTLIER)
        self.posterior, status, self.log_evidence = joint_bayes_laplace(self.model, x, w, z, omega, m, self.eta)
        self.last = Status.OUTLIER if outlier and status == Status.OK else status
        if self.last == Status.OK and self.nis > self.nis_limit:
            self.last = Status.INCONSISTENT
        self.staged = None
        self.fresh = False
        return self.last

    def _without_observation(self, status: Status) -> Status:
        """The staged prediction reduced to η atoms (a belief without one stays), log evidence 0."""
        self._reduce_staged()
        self.fresh = False
        self.last, self.log_evidence = status, 0.0
        return self.last

    def _evidence_test_ratio(self, x, w, z) -> float:
        """The largest test ratio over the evidence rows z against the predictive of the points (x, w) to be
        weighed: each point's kernel location, and the family's variance × its scale² per component, in the
        gate's sums (ux/joint_filter.c evidence_test_ratio)."""
        n, mo = x.shape[0], self.model.dim_obs
        with np.errstate(all="ignore"):
            loc, scale = self.model.loc_scale(x)
            loc = np.asarray(loc, dtype=np.float64).reshape(n, mo)
            scale = np.asarray(scale, dtype=np.float64).reshape(n, mo)
            S = np.zeros((n, mo, mo))
            for c in range(mo):
                S[:, c, c] = (scale[:, c] * scale[:, c]) * FAMILY_VARIANCE[self.model.family]
        sums, worst = GateSums.of(np.asarray(w, dtype=np.float64), loc, S), 0.0
        for zk in z:
            r = sums.ratio(zk)
            if math.isnan(r):
                return r
            worst = r if r > worst else worst
        return worst

    def first_prior(self):
        """The points the first update weighs in refined mode (ux_joint_filter's first_prior): d = 1, the prior
        law at min(η², MAX_ETA) atoms; d = 2, the product of the components' η-atom quantizations (η² points,
        the first component slowest); None (the η-atom joint prior serves) for d > 2 or a law without a
        location–scale form."""
        laws = self.prior_laws
        if self.model.dim > 2 or any(law.location_scale() is None for law in laws):
            return None
        if self.model.dim == 1:
            v = laws[0].quantize(min(self.eta * self.eta, _ttr.MAX_ETA))
            return v.x[:, None], v.w
        a, b = laws[0].quantize(self.eta), laws[1].quantize(self.eta)
        x = np.stack([np.repeat(a.x, len(b)), np.tile(b.x, len(a))], axis=1)
        return x, (a.w[:, None] * b.w[None, :]).ravel()

    def mean(self) -> np.ndarray:
        return self.posterior.mean()

    def cov(self) -> np.ndarray:
        return self.posterior.cov()


@dataclass
class JointRun:
    mean: np.ndarray  # (T, dim)
    cov: np.ndarray  # (T, dim, dim)
    status: np.ndarray  # Status per step
    log_evidence: np.ndarray  # log p(z_k | z_0..k−1) per step (0 without observation)
    posteriors: list[JointValue] = field(repr=False)
    test_ratio: np.ndarray | None = None  # the innovation gate's ratio per step (NaN: none)
    nis: np.ndarray | None = None  # the running mean of the test ratios after each step ("Consistency")

    @property
    def log_likelihood(self) -> float:
        return sum_in_order(self.log_evidence)


def observation_row(z) -> np.ndarray | None:
    """A trace's observation at one step: None (a step without observation) when any component is NaN."""
    z = np.atleast_1d(np.asarray(z, dtype=np.float64))
    return None if np.isnan(z).any() else z


def run_trace(predict, update, read, dim: int, z, k=None, u=None, ratio=None, nis=None) -> JointRun:
    """Drive a joint filter over a trace: z (T × dim_obs; a row with a NaN is a step without observation), k
    (default 0 … T−1), u (default 0); the first step only updates (the first observation is of x_0). `read()`
    gives (mean, cov, log evidence, posterior) after each update, `ratio()` and `nis()` (when given) its test
    ratio and consistency mean. The one loop the reference and the C core's binding share."""
    z = np.asarray(z, dtype=np.float64)
    z = z.reshape(-1, 1) if z.ndim == 1 else z
    T = z.shape[0]
    k = np.arange(T) if k is None else np.asarray(k)
    u = np.zeros(T) if u is None else np.asarray(u, dtype=np.float64)
    means, covs = np.empty((T, dim)), np.empty((T, dim, dim))
    status, evidence, posts = np.empty(T, dtype=np.int8), np.empty(T), []
    ratios = None if ratio is None else np.empty(T)
    means_nis = None if nis is None else np.empty(T)
    for i in range(T):
        if i > 0:
            predict(int(k[i]), float(u[i]))
        status[i] = update(observation_row(z[i]))
        means[i], covs[i], evidence[i], post = read()
        posts.append(post)
        if ratios is not None:
            ratios[i] = ratio()
        if means_nis is not None:
            means_nis[i] = nis()
    return JointRun(means, covs, status, evidence, posts, ratios, means_nis)


def run_joint_filter(
    model: JointModel,
    z,
    eta: int = 16,
    mode: str = "refined",
    k=None,
    u=None,
    prior=None,
    gate: float = OUTLIER_GATE,
    gate_outliers: bool = False,
    nis_limit: float = NIS_LIMIT,
) -> JointRun:
    """Filter a whole trace (see run_trace) with the reference joint filter; the run has each step's test ratio."""
    f = JointFilter(model, eta, mode, prior, gate, gate_outliers, nis_limit)
    return run_trace(
        f.predict,
        f.update,
        lambda: (f.mean(), f.cov(), f.log_evidence, f.posterior),
        model.dim,
        z,
        k,
        u,
        ratio=lambda: f.test_ratio,
        nis=lambda: f.nis,
    )
