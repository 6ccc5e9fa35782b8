"""The log-likelihood a fit climbs for a joint (vector-state) system: the cell filter's (ux/joint_cells.h).

`uxemu.fit.fit` takes a joint system through JointLogLikelihood, which has what `fit.maximise` needs. Only
the cell filter is fitted: the joint atom filter's log L moves by nats between parameters 2.5 % apart
(benchmarks/results/joint_loglik.md). How far fits on the cells recover simulated parameters:
benchmarks/results/joint_fits.md.
"""

from __future__ import annotations

import math

from . import _ttr, joint_systems
from .fit import ENGINES, Evaluated, OptimumFlags, _prior_tuple, engine_for, run_flags
from .joint_cells import run_joint_cells
from .joint_filter import DEFAULT_VECTOR_MODE
from .run import _steps

FIT_MODE = "cells"  # the one joint filter fitted
# The cells' exchange (docs/semantics.md "Cell filter") is a decision the parameters flip, a step in log L at
# each flip; the fit climbs the cell filter without it (what that changes: benchmarks/README.md, joint_fits).
FIT_EXCHANGE = False
# `uxhost fit` gives a joint system's fit its profile-likelihood intervals unless told --no-profile: they hold
# the simulated values about as often as their level says, the standard errors' ± 2 less often
# (benchmarks/README.md, joint_fits).
PROFILE_BY_DEFAULT = True
# Why a joint system is not fitted on the atom filter (refined, paper).
ATOM_REFUSAL = (
    "the joint atom filter's log-likelihood is not smooth in its parameters, so neither an optimum nor standard "
    f"errors would hold (benchmarks/results/joint_loglik.md); fit it on the cell filter (mode {FIT_MODE!r}"
    + (", the default)" if FIT_MODE == DEFAULT_VECTOR_MODE else ")")
)


class JointLogLikelihood(Evaluated):
    """θ ↦ log p(z_0..T−1 | θ) of a joint table system on the cell filter at η (the full parameter vector in the
    table's order). `prior`: None (the table's) or one law per component (Gaussian or Laplace on the native
    engine). `engine`: 'native' (the C core), 'reference' (uxemu.joint_cells) or 'auto'. `evidence`: 'update'
    only (the density evidence is the scalar filter's)."""

    source = "the cell filter"
    evidence = "update"

    def __init__(
        self, system, trace, eta: int = 16, mode=None, likelihood="kernel", prior=None, engine="auto", evidence="update"
    ):
        self.spec = joint_systems.spec(system)
        mode = mode or DEFAULT_VECTOR_MODE
        if mode != FIT_MODE:
            raise ValueError(f"{self.spec.name} is a joint system; mode {mode!r} is not fitted: {ATOM_REFUSAL}")
        if likelihood != "kernel":
            raise ValueError(f"{self.spec.name} is a joint system: its filter has the kernel likelihood only")
        if evidence != "update":
            raise ValueError(f"evidence {evidence!r} is the scalar filter's density; a joint system's is 'update'")
        if engine not in ENGINES:
            raise ValueError(f"unknown engine {engine!r}; use one of {ENGINES}")
        _ttr.log2_eta(eta)
        self.trace, self.eta, self.prior = trace, int(eta), None if prior is None else tuple(prior)
        self.k, self.u, self.z = _steps(trace)
        self.engine, self._native = engine_for(engine)

    def _value(self, params) -> float:
        try:
            return float(self.run(params).log_likelihood)
        except (ValueError, ArithmeticError) as exc:  # a parameter the model refuses, a transition that overflows
            self.refusal = str(exc)
            return -math.inf

    def flags(self, params) -> OptimumFlags:
        """The influential outliers and INCONSISTENT steps at `params` (`uxemu.fit.run_flags`: the cell filter's
        innovation gate and consistency test, docs/semantics.md "Cell filter"; one filter run)."""
        return run_flags(self.trace, self.run(tuple(float(v) for v in params)))

    def run(self, params):
        """The cell filter's run of the trace at `params` (a JointRun), its exchange off (FIT_EXCHANGE)."""
        if self._native is not None:
            prior = None if self.prior is None else [_prior_tuple(law) for law in self.prior]
            return self._native.run_joint_cells(
                self.spec.id, self.z, self.eta, self.k, self.u, params, prior, exchange=FIT_EXCHANGE
            )
        model = joint_systems.get(self.spec.name, **dict(zip(self.spec.param_names, params)))
        return run_joint_cells(model, self.z, self.eta, self.k, self.u, self.prior, exchange=FIT_EXCHANGE)
