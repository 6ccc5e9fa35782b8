"""The BayesLaplace filter: predict by lifting the transition, update with BayesLaplace."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from . import _ttr
from .bayes import Status, bayes_laplace, reduce_prior
from .lift import evaluate
from .model import StateSpaceModel
from .value import Value, normalise

MODES = ("refined", "paper")


@dataclass
class FilterRun:
    mean: np.ndarray
    var: np.ndarray
    status: np.ndarray  # Status per step
    posteriors: list[Value] = field(repr=False)
    log_evidence: np.ndarray = None  # log p(z_k | z_0..k−1) per step (0 without observation)

    @property
    def log_likelihood(self) -> float:
        """log p(z_0..T−1): the steps' log evidence summed in order (as the C filter accumulates it)."""
        total = 0.0
        for v in self.log_evidence:
            total += float(v)
        return total

    @property
    def fallbacks(self) -> int:
        return int((self.status == Status.FALLBACK).sum())


class BayesLaplaceFilter:
    """One filter instance: call `step(k, z, u)` per observation, or `run(trace)`."""

    def __init__(self, model: StateSpaceModel, eta: int = 16, mode: str = "refined",
                 likelihood: str = "kernel", prior=None):
        if mode not in MODES:
            raise ValueError(f"unknown mode {mode!r}; use one of {MODES}")
        self.model = model
        self.eta = eta
        self.n = _ttr.log2_eta(eta)
        self.mode = mode
        self.likelihood = model.likelihood(eta, likelihood)
        self.process_noise = model.process_noise.quantize(eta)
        prior_law = model.prior if prior is None else prior
        self.posterior = prior_law.quantize(eta)
        self.log_evidence = 0.0  # of the last update
        self.log_likelihood = 0.0  # summed over every update

    def predict(self, k: int, u: float = 0.0):
        """The predictive atoms: all η² in evaluation order (refined) or reduced to η (paper)."""
        post = self.posterior.independent_copy()
        noise = self.process_noise.independent_copy()
        y, w, _ = evaluate(lambda x, e: self.model.transition(x, e, k, u), [post, noise])
        if not np.isfinite(y).all():
            raise ValueError(f"the transition returned a non-finite state at step {k}")
        xs, ws = _ttr.compact(y, w)
        if self.mode == "paper":
            px, pw = _ttr.ttr(xs, ws, self.n)
            return px, normalise(pw)
        return xs, ws

    def update(self, prior_atoms, evidence, m: int = 1):
        """BayesLaplace on the prior atoms; `evidence` None is a step without observation (status
        NO_EVIDENCE): the posterior is the prior atoms reduced to η, as on a fallback."""
        if evidence is None:
            self.posterior = reduce_prior(*prior_atoms, self.eta)
            self.log_evidence = 0.0  # nothing observed: p(∅) = 1
            return Status.NO_EVIDENCE
        res = bayes_laplace(prior_atoms, self.likelihood, evidence, m, eta=self.eta)
        self.posterior = res.posterior
        self.log_evidence = res.log_evidence
        self.log_likelihood += res.log_evidence
        return res.status

    def step(self, k: int, evidence, u: float = 0.0, predict: bool | None = None, m: int = 1) -> Status:
        """Predict (all steps but the first, unless told) and update; evidence None: no observation."""
        predict = k > 0 if predict is None else predict
        atoms = self.predict(k, u) if predict else (self.posterior.x, self.posterior.w)
        return self.update(atoms, evidence, m)

    def run(self, trace) -> FilterRun:
        """Every row of the trace; a NaN z is a missing observation (a predict-only step)."""
        T = len(trace.z)
        means, vars_, status, posts, evidence = np.empty(T), np.empty(T), np.empty(T, dtype=np.int8), [], np.empty(T)
        for i in range(T):
            status[i] = self.step(int(trace.k[i]), observation(trace.z[i]), float(trace.u[i]), predict=i > 0)
            means[i], vars_[i], evidence[i] = self.posterior.mean(), self.posterior.var(), self.log_evidence
            posts.append(self.posterior)
        return FilterRun(means, vars_, status, posts, evidence)


def observation(z: float) -> float | None:
    """A trace's z as evidence: NaN marks a missing observation (None), anything else is observed."""
    z = float(z)
    return None if np.isnan(z) else z


def run_filter(model: StateSpaceModel, trace, eta: int = 16, mode: str = "refined",
               likelihood: str = "kernel", prior=None) -> FilterRun:
    """Filter a whole trace (anything with arrays k, u, z) and return means, variances, statuses."""
    return BayesLaplaceFilter(model, eta, mode, likelihood, prior).run(trace)
