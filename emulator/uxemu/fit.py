"""Fitting a system's parameters to a trace by maximising the filter's marginal likelihood.

The filter's log p(z_0..T−1 | θ) is the sum of its updates' log evidence (docs/semantics.md,
"Evidence"): a deterministic function of θ, so an ordinary optimiser can climb it — no common random
numbers, no particle MCMC. `fit` runs Nelder–Mead over the free parameters (positive ones on a log scale,
so the search never leaves their domain) and reads standard errors from the observed information, the
curvature of the log-likelihood at the optimum.

Where the search starts decides which maximum it finds: from the table's defaults alone it climbed to a ridge
hundreds of nats below the maximum on a trace whose scale was far from them. So unless told where to start,
the fit first scans a few starts — the defaults, and for each positive parameter levels from the trace's own
scale (`scan_axes`) — and climbs from the best. Every run is kept (`FitResult.history`); where one beat the
optimum the fit climbs again from it, and if one still does, the fit says so (`FitResult.better_seen`) and
is not "converged".

The curvature is read from a quadratic fitted by least squares over a region where the log-likelihood
falls by 0.5–4 nats: it is smooth on that scale but not on a much finer one, where the reductions' cell
boundaries move (measured on sv, 500 steps: ±0.005 nats at 2e-4 steps of σ_η; on gss in refined mode, 50
steps at η = 32: bumps of 0.4 nats at 0.1 steps of σ_v). The fit's rms residual (`FitResult.roughness`) says how
far from a quadratic the log-likelihood is there; where it is large the standard errors do not hold, and
`FitResult.jitter`, the residual of a cubic, says why: log L not smooth there (the filter's), or smooth
and skewed (the trace's, as the exact likelihood's would be).

A model of your own fits as a table system does: pass a function of keyword parameters, each with its
default, that returns the StateSpaceModel (`ModelFamily`); it runs on the reference engine.
"""

from __future__ import annotations

import inspect
import itertools
import math
import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from . import _ttr, joint_systems, systems
from .bayes import Status
from .filter import OUTLIER_GATE, sum_in_order
from .model import StateSpaceModel

ENGINES = ("auto", "native", "reference")
# Which per-step evidence the log-likelihood sums (docs/semantics.md): "update", BayesLaplace's η²-point
# normaliser (what the filter and the device report); "density", the filter density's quadrature of the
# same integral (exact for the filter's predictive law; the update's where the density is the bins).
EVIDENCE = ("update", "density")
# The filter mode a fit runs by default: mixture, whose posterior moves continuously with θ, whose
# quadrature follows a narrow likelihood (docs/semantics.md, "Filter"), and whose log-likelihood is the
# closest to the exact one on every system at η = 16 (benchmarks/results/evidence.md: per-step gap to the
# grid filter sv 4.1e-5, gss 3.9e-4, cubic 1.7e-6, lg 5.8e-5 against refined's 1.1e-3, 1.9e-2, 2.9e-5,
# 7.5e-4; 1 of 3 gss fits flagged rough against all 3 in refined mode). A model without additive Gaussian
# process noise runs refined steps in it.
DEFAULT_MODE = "mixture"
# Above this rms residual (nats) of the quadratic the standard errors are read from, they do not hold: the
# design's innermost points fall by about an eighth of 0.5–4 nats, so a residual of this size swamps the
# curvature they carry. Smooth log-likelihoods (lg, sv, cubic, and the exact ones) stay below 0.06.
ROUGHNESS_LIMIT = 0.1
# A positive parameter whose log L falls by less than this (nats) over ±half its estimate (its steps' cap)
# has no standard error: that fall is within twice the reductions' small-scale jitter (±0.005 nats,
# measured on sv), so the curvature read there is the jitter's (cubic's σ_v estimated at 5e-5: a fall of
# 0.004 nats, a standard error of 2.7e-4 from it). Above it the curvature holds: an estimate at least 0.28 of
# its standard error from 0 (cubic's σ_v at 0.045: 0.61, its standard error 0.073 kept).
EDGE_DROP = 0.01
# Above this rms residual (nats) of a cubic over the same design, log L is not smooth there (the filter's
# reductions jitter); below it, a log L off the quadratic is smooth but skewed, as a noise scale's often is
# (the exact one too), and the standard errors, a quadratic's, misstate its two sides. Measured on 200 traces
# each (benchmarks/results/stderr_calibration.md): sv's four fits furthest off the quadratic (0.20–0.31,
# the exact likelihood's the same) are 0.012–0.031 off a cubic; gss's four (0.31–0.77, the exact's
# 0.025–0.030) 0.080–0.56.
JITTER_LIMIT = 0.05
# The parts of a fit's work, as `stage` names them when each begins (then "profile of NAME" per parameter; a
# search and the standard errors are announced again where they are redone from a better run, MAX_POLISHES).
STAGES = ("scan of starts", "search", "standard errors")
# The scan's levels of a positive free parameter given no start, beside its default: these multiples of the
# robust spread of the trace's first differences, and the spread of its values (`data_scales`). A noise scale
# lies below the differences' spread (a local level's Δz has variance q² + 2r²) or near the values' (a
# stationary state's); the table's default, kept first, serves parameters the data's scale does not set (sv's
# σ_η). Starting from the default alone, Nelder–Mead climbed the steepest direction first and stopped on a
# ridge: a 200-step local level (lg, a = 1) of q = 1000, r = 100 was fitted to q = 1.7e-5, r = 5463, 341 nats
# below the maximum, "converged" (tests/emulator/test_fit.py).
SCAN_MULTIPLES = (0.1, 10**-0.5, 1.0)
# Levels closer than this factor to one already taken are left out: half a step of the scan (√10 apart).
SCAN_MERGE = 10**0.25
# The scan tries every combination of its levels where there are at most this many (two parameters: at most
# 5 × 5 = 25 runs), else the levels taken alike by every parameter, then each parameter's levels with the
# others at the best point so far (m + n(m − 1) runs for n parameters of m levels: 17 for three).
SCAN_BUDGET = 30
# A run of the fit whose log L beats the optimum's by more than this, relative to |log L| (and at least
# BEST_FLOOR nats), says the optimum is not the maximum: the fit searches again from that run (at most
# MAX_POLISHES times), and if one still beats it, FitResult.better_seen names it and `converged` is False.
BEST_TOLERANCE = 1e-6
# The search's own precision (its fatol): Nelder–Mead stops once its simplex's values are this close, so
# a run this much above the optimum is within what the search claims, not a better maximum.
BEST_FLOOR = 1e-4
MAX_POLISHES = 1
# An observation beyond the innovation gate is an influential outlier (FitResult.outliers, a warning of `uxhost
# fit`) where its log evidence at the optimum is also this many nats below the median step's: ten times the
# 2 nats over which the standard errors are read. The gate alone fails clean data (1 to 7 in 40 traces of 300
# steps each of sv, gss, lg, cubic at the defaults, a ratio up to 134 on gss), but those steps are at most 11.3
# nats below the median; a 1e6 observation in sv is 3.3e9 below.
OUTLIER_NATS = 20.0


@dataclass
class FitResult:
    system: str
    free: tuple[str, ...]  # the fitted parameters' names
    estimate: dict[str, float]  # their maximum-likelihood values
    stderr: dict[str, float]  # standard errors from the observed information (NaN where it is not positive)
    params: tuple[float, ...]  # the whole parameter vector at the optimum, in the table's order
    log_likelihood: float  # log p(z_0..T−1 | θ̂)
    evaluations: int  # filter runs the scan of starts, the search and the curvature took (and a profile)
    seconds: float  # CPU time
    converged: bool
    message: str
    engine: str
    evidence: str = "update"
    trace_steps: int = 0
    roughness: float = math.nan  # rms residual (nats) of the quadratic the standard errors are read from
    jitter: float = math.nan  # rms residual (nats) of a cubic over the same values: what is not smooth
    # (θ_free, log-likelihood) per filter run: the scan's, the searches', the standard errors' and the profile's
    history: list = field(default_factory=list, repr=False)
    # Profile-likelihood intervals (uxemu.profile: where log L, maximised over the other free parameters, falls
    # by 2 nats, a quadratic's ± 2 se), by name: (low, high); empty unless the fit was asked for them.
    interval: dict[str, tuple[float, float]] = field(default_factory=dict)
    # The positive free parameters the trace cannot tell from 0 (log L falls by less than EDGE_DROP over ± half
    # the estimate): they have no standard error.
    indistinct: tuple[str, ...] = ()
    # The best run of the fit (scan, searches, standard errors, profile), as (free parameters by name, log L),
    # where it beats log_likelihood by more than the tolerance (BEST_TOLERANCE): the optimum is then not the
    # maximum, and `converged` is False. None where the optimum is the best run.
    better_seen: tuple[dict, float] | None = None
    # The k of the influential outliers at the optimum (`influential_outliers`): observations that can pull the
    # estimate far off (one 1e6 among 200 sv observations took φ from 0.98 to 0.30). Empty where there is none
    # or the log-likelihood cannot say (one without `flags`).
    outliers: tuple[int, ...] = ()
    # The k of the steps the filter calls INCONSISTENT at the optimum (docs/semantics.md, "Consistency"): readings
    # that, together, do not fit the fitted model's predictions, which no noise scale it can choose repairs.
    inconsistent: tuple[int, ...] = ()

    @property
    def why_not_best(self) -> str | None:
        """Why the optimum is not the maximum (None where no run beat it)."""
        if self.better_seen is None:
            return None
        where, value = self.better_seen
        at = ", ".join(f"{n} = {v:.5g}" for n, v in where.items())
        return (
            f"a filter run at {at} had log L {value:.4f}, {value - self.log_likelihood:.3g} nats above the "
            "optimum's, which is therefore not the maximum (log L is not smooth there, or the search stopped "
            "short); start the fit there"
        )

    def why_no_stderr(self, name: str) -> str | None:
        """Why parameter `name` has no standard error (None where it has one)."""
        if self.stderr[name] > 0:
            return None
        if name in self.indistinct:
            return (
                f"the trace cannot tell it from 0 (log L falls by less than {EDGE_DROP} nats over ± half its "
                "estimate)"
            )
        if not math.isfinite(self.roughness):
            return "log L is not finite around the optimum"
        return "log L does not curve down along it at the optimum"

    @property
    def stderr_reliable(self) -> bool:
        """The log-likelihood is close enough to a quadratic on the standard errors' scale for them to hold."""
        return self.roughness <= ROUGHNESS_LIMIT

    @property
    def smooth(self) -> bool:
        """log L is smooth on the standard errors' scale: a cubic fits it there (skewed or not)."""
        return self.jitter <= JITTER_LIMIT

    @property
    def why_unreliable(self) -> str | None:
        """Why the standard errors do not hold (None where they do): log L not smooth on their scale (a larger η
        smooths it), or smooth and skewed (the data's shape: a longer trace makes it more quadratic)."""
        if self.stderr_reliable:
            return None
        if not self.smooth:
            return (
                f"the log-likelihood is not smooth on the scale of the standard errors ({self.roughness:.2f} nats "
                f"rms off a quadratic, {self.jitter:.2f} off a cubic; limits {ROUGHNESS_LIMIT}, {JITTER_LIMIT}): "
                "they do not hold; a larger η smooths it"
            )
        return (
            f"the log-likelihood is smooth but skewed on the scale of the standard errors ({self.roughness:.2f} nats "
            f"rms off a quadratic, {self.jitter:.2f} off a cubic; limit {ROUGHNESS_LIMIT}): they, a quadratic's, "
            "misstate its two sides — the trace's shape, not the filter's (a longer trace makes it more quadratic)"
        )


class ModelFamily:
    """A model of your own, for fitting: `make(**params) -> StateSpaceModel`, a function whose parameters are
    all keywords with numeric defaults (where a search starts and what a parameter not fitted keeps).
    `positive`: the names of those that must stay above 0 (a noise scale): searched on a log scale, and their
    standard errors' steps kept inside the domain, as a table system's positive parameters. Its `spec` is a
    SystemSpec of id 0 (no C build: it runs on the reference engine), named after the default model."""

    def __init__(self, make, positive=()):
        if not callable(make):
            raise TypeError(f"a model family is a function returning a StateSpaceModel, not {type(make).__name__}")
        signature = inspect.signature(make).parameters.values()
        lacking = [p.name for p in signature if not _numeric(p.default)]
        if lacking or not signature:
            raise ValueError(
                f"{_name(make)}: every parameter needs a numeric default (the search's start); "
                f"{', '.join(lacking) or 'it takes none'}"
            )
        names = [p.name for p in signature]
        unknown = sorted(set(positive) - set(names))
        if unknown:
            raise ValueError(f"{_name(make)} has parameters {', '.join(names)}; no parameter {', '.join(unknown)}")
        default = make()
        if not isinstance(default, StateSpaceModel):
            raise TypeError(f"{_name(make)}() returned {type(default).__name__}, not a StateSpaceModel")
        params = tuple(
            systems.Param(p.name, float(p.default), "positive" if p.name in positive else "real") for p in signature
        )
        self.make = make
        self.spec = systems.SystemSpec(0, default.name, _name(make), params, _prior_description(default.prior))

    def model(self, params) -> StateSpaceModel:
        """The model at a full parameter vector (in the function's order)."""
        return self.make(**dict(zip(self.spec.param_names, params)))


def _numeric(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _name(make) -> str:
    return getattr(make, "__qualname__", repr(make))


def _prior_description(law) -> tuple:
    try:
        return _prior_tuple(law)
    except ValueError:  # a law the table cannot name: SystemSpec's (law, loc, scale) says which
        return (type(law).__name__, math.nan, math.nan)


class Evaluated:
    """The call of a log-likelihood that `maximise` climbs: counts the runs (`calls`), gives −∞ outside the
    parameters' domain and wherever the value is not finite, and says why in `refusal` (a subclass's
    `_value(params)` computes the value, and may set `refusal` itself). `source` names what computed it."""

    source = "the filter"
    calls = 0
    refusal = None  # why the last −∞ was returned

    def __call__(self, params) -> float:
        params = tuple(float(v) for v in params)
        self.calls += 1
        self.refusal = outside_domain(self.spec, params)
        if self.refusal is not None:
            return -math.inf
        value = self._value(params)
        if not math.isfinite(value):  # a step's evidence 0 (or NaN): its observation impossible under θ
            self.refusal = self.refusal or (
                f"{self.source}'s log-likelihood is {value} (an observation of zero " "density under the model)"
            )
            return -math.inf
        return value

    def _value(self, params) -> float:
        raise NotImplementedError


def engine_for(engine: str):
    """(the engine's name, the native library or None) for ENGINES' `engine`: 'auto' runs natively where
    the library is built; 'native' raises where it is not."""
    if engine == "reference":
        return "reference", None
    from . import native

    try:
        return "native", native.load()
    except (OSError, FileNotFoundError):
        if engine == "native":
            raise
        return "reference", None


class LogLikelihood(Evaluated):
    """θ ↦ log p(z_0..T−1 | θ) of one system, trace and filter configuration (the full parameter vector in
    the table's order, or the function's). `system`: a table system's name or id, or a ModelFamily (your
    own model).
    `engine`: 'native' (the C core through uxemu.native: fast; table systems), 'reference' (the Python twin)
    or 'auto' (native when its library is built and the system is the table's). `evidence`: one of EVIDENCE."""

    def __init__(
        self,
        system,
        trace,
        eta: int = 16,
        mode: str = DEFAULT_MODE,
        likelihood: str = "kernel",
        prior=None,
        engine: str = "auto",
        evidence: str = "update",
    ):
        if engine not in ENGINES:
            raise ValueError(f"unknown engine {engine!r}; use one of {ENGINES}")
        if evidence not in EVIDENCE:
            raise ValueError(f"unknown evidence {evidence!r}; use one of {EVIDENCE}")
        _ttr.log2_eta(eta)  # before any run: a C filter would refuse it only as UX_ERR_ARG
        self.evidence = evidence
        self.family = system if isinstance(system, ModelFamily) else None
        joint = None if self.family is not None else joint_systems.find(system)
        if joint is not None:  # fit() takes both kinds
            raise ValueError(
                f"{joint.name} is a joint system: its log-likelihood is uxemu.joint_fit.JointLogLikelihood"
            )
        self.spec = self.family.spec if self.family is not None else systems.spec(system)
        if self.family is not None and engine == "native":
            raise ValueError(
                f"model {self.spec.name!r} is Python only: it runs on the reference engine, not the "
                "native one (a table system runs natively)"
            )
        self.trace, self.eta, self.mode, self.likelihood, self.prior = trace, eta, mode, likelihood, prior
        self.engine, self._native = engine_for("reference" if self.family is not None else engine)

    def _value(self, params) -> float:
        """The filter's log-likelihood at `params` (in their domain); −∞ with `refusal` set where it refuses them."""
        try:
            run = self._run(params)
            return float(run.log_likelihood) if self.evidence == "update" else sum_in_order(run.density_log_evidence)
        except (ValueError, ArithmeticError) as exc:  # a transition that overflows, a parameter refused
            self.refusal = str(exc)
            return -math.inf

    def _run(self, params):
        """The filter's run of the trace at `params` (a NativeRun or FilterRun)."""
        if self._native is not None:
            prior = None if self.prior is None else _prior_tuple(self.prior)
            return self._native.run_filter(
                self.spec.id,
                self.trace.k,
                self.trace.u,
                self.trace.z,
                self.eta,
                self.mode,
                self.likelihood,
                params=params,
                prior=prior,
                atoms=False,
                density_evidence=self.evidence == "density",
            )
        from .filter import run_filter

        model = (
            self.family.model(params) if self.family is not None else systems.from_param_vector(self.spec.id, params)
        )
        return run_filter(model, self.trace, self.eta, self.mode, self.likelihood, prior=self.prior)

    def flags(self, params) -> "OptimumFlags":
        """The influential outliers and the INCONSISTENT steps at `params` (`run_flags`; one filter run)."""
        return run_flags(self.trace, self._run(tuple(float(v) for v in params)))


class OptimumFlags(NamedTuple):
    """What a filter run at the optimum flags, by k: influential outliers, and INCONSISTENT steps."""

    outliers: tuple[int, ...]
    inconsistent: tuple[int, ...]


def run_flags(trace, run) -> OptimumFlags:
    """Of a filter's run of `trace` (a FilterRun or JointRun): `influential_outliers` (the steps its innovation
    gate fails by its test ratio), and the steps whose status is INCONSISTENT."""
    failed = np.asarray(run.test_ratio, dtype=np.float64) > OUTLIER_GATE**2  # NaN (no test): passed
    return OptimumFlags(influential_outliers(trace, failed, run.log_evidence), inconsistent_steps(trace, run.status))


def inconsistent_steps(trace, status) -> tuple[int, ...]:
    """The k of the steps whose status is INCONSISTENT."""
    return tuple(int(trace.k[i]) for i in np.flatnonzero(np.asarray(status) == Status.INCONSISTENT))


def influential_outliers(trace, failed, log_evidence) -> tuple[int, ...]:
    """The k of the steps whose observation fails the innovation gate (`failed`, per step) and whose log evidence
    is also OUTLIER_NATS below the median observed step's: an observation the model calls improbable and that
    weighs on log L enough to move the optimum."""
    evidence = np.asarray(log_evidence, dtype=np.float64)
    z = np.asarray(trace.z, dtype=np.float64)
    observed = np.isfinite(z) if z.ndim == 1 else np.isfinite(z).all(axis=1)  # a joint system's rows
    if not observed.any():
        return ()
    low = evidence < np.median(evidence[observed]) - OUTLIER_NATS
    return tuple(int(trace.k[i]) for i in np.flatnonzero(np.asarray(failed, dtype=bool) & low & observed))


def outside_domain(spec, params) -> str | None:
    """Which of the parameters lie outside their domains ("q = -1.0: not positive"), or None."""
    outside = [f"{p.name} = {v}: not {p.domain}" for p, v in zip(spec.params, params) if not p.admits(v)]
    return "; ".join(outside) or None


def _prior_tuple(law):
    from .laws import Laplace, Normal

    if isinstance(law, (Normal, Laplace)):
        loc, scale = law.location_scale()
        return ("gaussian" if isinstance(law, Normal) else "laplace", loc, scale)
    raise ValueError(f"the native engine takes a Gaussian or Laplace prior, not {type(law).__name__}")


def fit(
    system,
    trace,
    free,
    bounds: dict | None = None,
    start: dict | None = None,
    fixed: dict | None = None,
    eta: int = 16,
    mode: str | None = None,
    likelihood: str = "kernel",
    prior=None,
    engine: str = "auto",
    progress=None,
    max_evaluations: int = 400,
    evidence: str = "update",
    profile: bool = False,
    stage=None,
) -> FitResult:
    """Maximum-likelihood estimate of the parameters named in `free` for `system` on `trace`.

    `system`: a table system's name or id, or a model of your own — a function of keyword parameters with
    numeric defaults returning a StateSpaceModel, or a ModelFamily — which runs on the reference engine;
    those of its free parameters whose `bounds` start at 0 are positive (ModelFamily). A joint (vector-state)
    table system is fitted on the cell filter (uxemu.joint_fit; `trace.z` one column per observed component,
    `prior` one law per state component); `mode` None is the cell filter there, DEFAULT_MODE for a scalar one.
    `fixed` / `start`: values by name for the parameters held fixed (default: the table's, or the function's,
    defaults) / where the search starts (default: the best of a scan of starts, `maximise`). `bounds`:
    {name: (low, high)} limits of the search (None: unbounded within the parameter's domain). `progress(evaluations, log_likelihood)` is called after
    every filter run. `evidence`: which per-step evidence the log-likelihood sums (EVIDENCE). `profile`: also
    the profile-likelihood intervals (FitResult.interval; two to seven times the fit's filter runs, uxemu.profile).
    `stage(what)` is called as each part of the work begins (STAGES; "profile of NAME" for each parameter's).
    """
    if callable(system) and not isinstance(system, ModelFamily):
        system = ModelFamily(system, positive=[n for n, (lo, _) in (bounds or {}).items() if lo == 0])
    if not np.isfinite(np.asarray(trace.z, dtype=np.float64)).any():  # log L is 0 at every parameter: no maximum
        raise ValueError("the trace has no observation (every z is missing): nothing to fit")
    loglik = _loglik(system, trace, eta, mode, likelihood, prior, engine, evidence)
    return maximise(loglik, free, bounds, start, fixed, progress, max_evaluations, profile, stage)


def _loglik(system, trace, eta, mode, likelihood, prior, engine, evidence):
    """The log-likelihood `fit` climbs: a joint table system's on the cell filter, any other on the scalar
    filter (`mode` None: DEFAULT_MODE)."""
    if isinstance(system, ModelFamily) or joint_systems.find(system) is None:
        return LogLikelihood(system, trace, eta, mode or DEFAULT_MODE, likelihood, prior, engine, evidence)
    from .joint_fit import JointLogLikelihood

    return JointLogLikelihood(system, trace, eta, mode, likelihood, prior, engine, evidence)


def maximise(
    loglik,
    free,
    bounds: dict | None = None,
    start: dict | None = None,
    fixed: dict | None = None,
    progress=None,
    max_evaluations: int = 400,
    profile: bool = False,
    stage=None,
) -> FitResult:
    """`fit` over any log-likelihood: `loglik(params)` of the full parameter vector, with the attributes
    `spec` (the system's), `trace`, `engine`, `evidence` and `calls` that LogLikelihood has, and optionally
    `refusal` (benchmarks pass the grid or Kalman filter's exact one, to compare estimates and standard
    errors; `uxhost fit --port` the one a device computes, uxhost/device_fit.py).

    The work: a scan of starts (`scan_axes`: the start, and for each positive free parameter not in `start`
    up to four levels from the trace's scale: at most 25 filter runs for two such parameters, 5 for one, the
    start's alone where every free parameter has a start or none is positive), Nelder–Mead from the best of them (at most
    `max_evaluations` runs), the standard errors there — and both again from a run that beat that optimum
    (MAX_POLISHES); a run that still beats it is FitResult.better_seen, and the fit is not converged."""
    problem = Problem(loglik.spec, free, bounds, start, fixed)
    announce = stage or (lambda what: None)
    t0 = time.process_time()
    runs = Runs(loglik, problem.free, problem.index, progress)
    announce(STAGES[0])
    u = scan(lambda point: runs(problem.vector(point)), scan_axes(problem, getattr(loglik, "trace", None)))
    _witness(runs, problem, u)
    res, curvature = _climb(runs, problem, u, max_evaluations, announce)
    best = problem.vector(res.x)
    free = problem.free
    result = FitResult(
        loglik.spec.name,
        free,
        dict(zip(free, (best[i] for i in problem.index))),
        dict(zip(free, curvature.stderr)),
        tuple(best),
        -float(res.fun),
        loglik.calls,
        time.process_time() - t0,
        bool(res.success),
        str(res.message),
        loglik.engine,
        loglik.evidence,
        len(loglik.trace.z),
        curvature.roughness,
        curvature.jitter,
        runs.history,
        indistinct=tuple(free[j] for j in curvature.indistinct),
    )
    if profile:
        from . import profile as profiles

        result.interval = profiles.intervals(runs, result, bounds, stage=announce)
        result.evaluations, result.seconds = loglik.calls, time.process_time() - t0
    result.better_seen = runs.better_than(result.log_likelihood)
    if result.better_seen is not None:  # never "converged" below a run the fit has seen
        result.converged, result.message = False, result.why_not_best
    flags = getattr(loglik, "flags", None)
    if flags is not None:  # one more filter run, at the optimum
        result.outliers, result.inconsistent = flags(result.params)
        result.evaluations += 1
    return result


def _witness(runs: Runs, problem: Problem, u) -> None:
    """Runs the point the fit would start from had no start been given (the started parameters at their
    defaults, the others at the scan's `u`). A start where log L is flat — σ_η = 1e-300, where no step of the
    search changes it — otherwise ended "converged" there, 31 nats below the optimum; this run then beats that
    optimum, and the search resumes from it (_climb) or the fit says it is not converged."""
    if not problem.started:
        return
    point = tuple(
        problem.clip(j, problem.to_u(j, problem.base[n])) if n in problem.started else u[j]
        for j, n in enumerate(problem.free)
    )
    if point != tuple(u):
        runs(problem.vector(point))


class Problem:
    """What `maximise` searches, checked: the free parameters' positions in the full vector (`index`), which of
    them are searched on a log scale (the positive ones), the vector the others keep (`base`), the search's
    coordinates at the start (`u0`) and its bounds in them (`ubounds`), and which of the free parameters have
    a start given (`started`: the scan leaves them there)."""

    def __init__(self, spec, free, bounds, start, fixed):
        free = tuple(free)
        _check_names(spec, free, bounds, start)
        self.spec, self.free, self.started = spec, free, frozenset(start or {})
        self.base = dict(zip(spec.param_names, spec.param_vector(**(fixed or {}))))
        theta0 = {**self.base, **(start or {})}
        outside = outside_domain(spec, [theta0[n] for n in spec.param_names])  # the fixed ones were checked above
        if outside:
            raise ValueError(f"start {outside}")
        self.index = [spec.param_names.index(n) for n in free]
        self.logscale = [spec.params[i].domain == "positive" for i in self.index]
        self.u0 = [self.to_u(j, theta0[n]) for j, n in enumerate(free)]
        self.ubounds = (
            None if not bounds else [self._ubound(j, bounds.get(n, (None, None))) for j, n in enumerate(free)]
        )

    def to_u(self, j: int, theta: float) -> float:
        return math.log(theta) if self.logscale[j] else float(theta)

    def _ubound(self, j, bound):
        lo, hi = bound
        if self.logscale[j]:
            return (None if lo is None or lo <= 0 else math.log(lo), None if hi is None else math.log(hi))
        return lo, hi

    def clip(self, j: int, u: float) -> float:
        """u within parameter j's search bounds."""
        lo, hi = (None, None) if self.ubounds is None else self.ubounds[j]
        return min(max(u, -math.inf if lo is None else lo), math.inf if hi is None else hi)

    def vector(self, u) -> list[float]:
        """The full parameter vector at search coordinates u."""
        v = [self.base[n] for n in self.spec.param_names]
        for j, i in enumerate(self.index):
            v[i] = math.exp(u[j]) if self.logscale[j] else float(u[j])
        return v


def _check_names(spec, free, bounds, start) -> None:
    unknown = [n for n in free if n not in spec.param_names]
    if unknown or not free:
        raise ValueError(
            f"system {spec.name} has parameters {spec.param_names}; free must name some of them "
            f"(got {list(free) or 'none'})"
        )
    twice = sorted({n for n in free if free.count(n) > 1})
    if twice:  # a parameter searched along two coordinates at once is one the search cannot place
        raise ValueError(f"free names {', '.join(twice)} more than once")
    for what, named in (("bounds", bounds), ("start", start)):
        stray = sorted(set(named or {}) - set(free))
        if stray:  # a misspelt name would otherwise leave its parameter unbounded, or start at its default
            raise ValueError(f"{what} names {', '.join(stray)}, not among the free parameters {', '.join(free)}")


class Runs:
    """`loglik` as the fit runs it: every run recorded in `history` as (free parameters, log L) and reported
    to `progress` — the scan's, the searches', the standard errors' and the profile's alike, so that the best of
    them is known (`better_than`) — and a vector already run not run again (the search's start is the scan's
    best). The first run is the start: −∞ there raises, with why. Other attributes are `loglik`'s."""

    def __init__(self, loglik, free, index, progress):
        self.loglik, self.free, self.index, self.progress = loglik, free, index, progress
        self.history, self._seen = [], {}

    def __getattr__(self, name):
        return getattr(self.loglik, name)

    def __call__(self, params) -> float:
        key = tuple(float(v) for v in params)
        if key in self._seen:
            return self._seen[key]
        value = self._seen[key] = self.loglik(key)
        self.history.append((tuple(key[i] for i in self.index), value))
        if self.progress is not None:
            self.progress(len(self.history), value)
        if len(self.history) == 1 and not math.isfinite(value):  # the start: no slope to climb from −∞
            why = getattr(self.loglik, "refusal", None) or "outside the parameters' domain, or the filter failed"
            raise ValueError(f"no log-likelihood at the start {dict(zip(self.free, self.history[0][0]))}: {why}")
        return value

    def better_than(self, value: float):
        """The best run, as ({name: value}, log L), where it beats `value` by more than the tolerance; else None."""
        where, best = max(self.history, key=lambda run: _ordered(run[1]))
        if not best > value + max(BEST_TOLERANCE * abs(value), BEST_FLOOR):
            return None
        return dict(zip(self.free, where)), best


def data_scales(trace) -> list[float]:
    """The trace's own scales, robust to outliers: 1.4826 × the median absolute deviation (a Gaussian's
    standard deviation) of its first differences, then of its values; those not positive left out (none
    for a trace of fewer than three observations)."""
    z = np.asarray(getattr(trace, "z", ()), dtype=np.float64)
    z = z.reshape(len(z), -1) if z.ndim > 1 else z.reshape(-1, 1)  # a joint trace: one column per component
    steps = np.diff(z, axis=0)
    z, steps = z[np.isfinite(z)], steps[np.isfinite(steps)]
    if z.size < 3:
        return []
    spreads = [1.4826 * float(np.median(np.abs(x - np.median(x)))) for x in (steps, z)]
    return [s for s in spreads if s > 0 and math.isfinite(s)]


def scan_axes(problem: Problem, trace) -> list[list[float]]:
    """Per free parameter, the search coordinates the scan tries, its start first: for a positive one given no
    start, also SCAN_MULTIPLES of the trace's first differences' spread and its values' spread (`data_scales`),
    each at least SCAN_MERGE from those already taken, within the search's bounds; for the others, the start."""
    scales = data_scales(trace)
    candidates = [scales[0] * m for m in SCAN_MULTIPLES] + scales[1:] if scales else []
    axes = []
    for j, name in enumerate(problem.free):
        levels = [problem.clip(j, problem.u0[j])]
        if problem.logscale[j] and name not in problem.started:
            for value in candidates:
                u = problem.clip(j, math.log(value))
                if all(abs(u - taken) > math.log(SCAN_MERGE) for taken in levels):
                    levels.append(u)
        axes.append(levels)
    return axes


def scan(evaluate, axes) -> tuple[float, ...]:
    """The point of best `evaluate` among combinations of the `axes`' levels (the first level of each first:
    ties go to it): every combination where there are at most SCAN_BUDGET, else the i-th levels of all alike,
    then each axis's levels with the others at the best so far."""
    grid = list(itertools.product(*axes))
    if len(grid) <= SCAN_BUDGET:
        return _best_of(evaluate, grid)
    depth = max(len(levels) for levels in axes)
    best = _best_of(evaluate, [tuple(levels[min(i, len(levels) - 1)] for levels in axes) for i in range(depth)])
    for j, levels in enumerate(axes):
        best = _best_of(evaluate, [best] + [best[:j] + (u,) + best[j + 1 :] for u in levels if u != best[j]])
    return best


def _best_of(evaluate, points):
    values = [_ordered(evaluate(p)) for p in points]
    return points[max(range(len(points)), key=lambda k: (values[k], -k))]


def _ordered(value: float) -> float:
    """A log L that compares: NaN (a log-likelihood of one's own may return it) as −∞."""
    return -math.inf if math.isnan(value) else value


def _climb(runs: Runs, problem: Problem, u, max_evaluations: int, announce):
    """Nelder–Mead from `u`, then the curvature at its optimum; where some run (the curvature's among them)
    beat that optimum, again from the best run, MAX_POLISHES times at most. (scipy's result, Curvature)."""
    for polish in itertools.count():
        last = polish == MAX_POLISHES
        announce(STAGES[1])
        res = _nelder_mead(runs, problem, u, max_evaluations)
        better = runs.better_than(-float(res.fun))
        if better is None or last:
            announce(STAGES[2])
            curvature = standard_errors(runs, problem.vector(res.x), problem.index, positive=problem.logscale)
            better = runs.better_than(-float(res.fun))
            if better is None or last:
                return res, curvature
        u = [problem.to_u(j, better[0][n]) for j, n in enumerate(problem.free)]


def _nelder_mead(runs: Runs, problem: Problem, u0, max_evaluations: int):
    from scipy.optimize import minimize

    def objective(u):
        value = runs(problem.vector(u))
        return -value if math.isfinite(value) else 1e300

    # The first simplex steps every coordinate by 0.1: ±10 % of a positive parameter (log scale), 0.1 of a
    # real one (scipy's default, 5 % of the value, is a near-zero step at log 1 = 0).
    simplex = np.array([u0] + [np.add(u0, 0.1 * np.eye(len(u0))[j]) for j in range(len(u0))])
    return minimize(
        objective,
        u0,
        method="Nelder-Mead",
        bounds=problem.ubounds,
        options=dict(xatol=1e-4, fatol=1e-4, maxfev=max_evaluations, adaptive=len(u0) > 2, initial_simplex=simplex),
    )


class Curvature(NamedTuple):
    stderr: list[float]  # per free parameter; NaN where there is none
    roughness: float
    jitter: float
    indistinct: tuple[int, ...]  # the positive ones (their positions in `index`) the trace cannot tell from 0


def standard_errors(loglik, best, index, progress=None, positive=None) -> Curvature:
    """(sqrt(diag(I⁻¹)), roughness, jitter, indistinct): I is the observed information −∇² log L at `best`, read
    from the quadratic fitted by least squares to log L on a central composite design around `best` — per parameter
    ±h/2 and ±h, and every pair's four corners at ±h/2 — whose step h for each parameter is chosen so that
    log L falls by 0.5–4 nats over it (about one to three standard errors). The curvature is thus read on
    the scale the data determine the parameter, above the small-scale jitter of the reductions, and from
    1 + 4n + 2n(n−1) values rather than three, so one bump does not pass for the curvature.
    `roughness`: the rms residual of that quadratic fit (nats) — how far log L is from the quadratic the
    standard errors assume on that scale (docs/contract.md: above ROUGHNESS_LIMIT they do not hold).
    `jitter`: the rms residual of a cubic fitted to the same values — what of that is not smooth (above
    JITTER_LIMIT; below it, log L is skewed there: FitResult.why_unreliable).
    `positive` (per free parameter): the step of a positive parameter stays below half its estimate, so the
    design never leaves the domain — an estimate near 0 (a noise scale the trace cannot tell from 0) gets the
    curvature there, not a −∞ log-likelihood that would cost every parameter its standard error. A positive
    parameter over whose ±half estimate log L falls by less than EDGE_DROP (an estimate the trace cannot
    tell from 0: `indistinct`), and one along which the quadratic does not curve down, have no standard error
    (NaN); the others' are read with them held at their estimates (`_variances`)."""
    best = np.asarray(best, dtype=np.float64)
    positive = [False] * len(index) if positive is None else list(positive)
    f0 = loglik(best)
    if progress is not None:
        progress(f0)
    steps, held = [], []
    for j, i in enumerate(index):
        cap = 0.5 * best[i] if positive[j] else math.inf
        h = min(max(0.05 * abs(best[i]), 1e-3), cap)
        for _ in range(16):
            drop = f0 - 0.5 * (
                _shifted_by(loglik, best, [i], h, progress) + _shifted_by(loglik, best, [i], -h, progress)
            )
            if drop < 0.5 and h < cap:
                h = min(2.0 * h, cap)
            elif drop > 4.0 or not math.isfinite(drop):
                h *= 0.5
            else:
                break
        steps.append(h)
        if h == cap and drop < EDGE_DROP:
            held.append(j)
    steps = np.array(steps)
    design = composite_design(len(index))
    values = np.array([f0] + [_shifted_by(loglik, best, index, 0.5 * d * steps, progress) for d in design[1:]])
    if not np.all(np.isfinite(values)):
        return Curvature([math.nan] * len(index), math.inf, math.inf, tuple(held))
    H, residual = quadratic_fit(0.5 * design * steps, values)
    se = [float(math.sqrt(v)) if v > 0 else math.nan for v in _variances(H, held)]
    return Curvature(se, residual, cubic_residual(0.5 * design * steps, values), tuple(held))


def _variances(H: np.ndarray, held=()) -> np.ndarray:
    """diag((−H)⁻¹) over the parameters not held and along which the quadratic curves down; NaN for the rest.
    The held ones are left out of the block that is inverted, and while some variance is not positive the
    parameter of least curvature among those is too: the remaining variances are conditional on their
    estimates."""
    keep = [k for k in range(H.shape[0]) if k not in held]
    out = np.full(H.shape[0], math.nan)
    while keep:
        try:
            var = np.diag(np.linalg.inv(-H[np.ix_(keep, keep)]))
        except np.linalg.LinAlgError:
            var = np.full(len(keep), math.nan)
        bad = [k for k, v in zip(keep, var) if not v > 0]
        if not bad:
            out[keep] = var
            break
        keep.remove(min(bad, key=lambda k: -H[k, k]))
    return out


def composite_design(n: int) -> np.ndarray:
    """The centre, ±1 and ±2 on every axis, and (±1, ±1) on every pair of axes: (1 + 4n + 2n(n−1), n)."""
    points = [np.zeros(n)]
    for a in range(n):
        for t in (-2.0, -1.0, 1.0, 2.0):
            points.append(np.eye(n)[a] * t)
    for a in range(n):
        for b in range(a):
            for sa in (-1.0, 1.0):
                for sb in (-1.0, 1.0):
                    points.append(np.eye(n)[a] * sa + np.eye(n)[b] * sb)
    return np.array(points)


def quadratic_fit(offsets: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, float]:
    """(H, rms residual) of the least-squares fit values ≈ c + gᵀd + ½ dᵀHd over the rows d of `offsets`."""
    n = offsets.shape[1]
    pairs = [(a, b) for a in range(n) for b in range(a + 1)]
    columns = [np.ones(len(offsets))] + [offsets[:, a] for a in range(n)]
    columns += [offsets[:, a] * offsets[:, b] * (0.5 if a == b else 1.0) for a, b in pairs]
    A = np.column_stack(columns)
    coef = np.linalg.lstsq(A, values, rcond=None)[0]
    H = np.empty((n, n))
    for (a, b), c in zip(pairs, coef[1 + n :]):
        H[a, b] = H[b, a] = c
    return H, float(np.sqrt(np.mean((values - A @ coef) ** 2)))


def cubic_residual(offsets: np.ndarray, values: np.ndarray) -> float:
    """rms residual of the least-squares full cubic in the rows of `offsets` (every monomial of degree ≤ 3):
    a smooth log L is one to within its fourth-order terms on the design's scale, skewed or not."""
    n = offsets.shape[1]
    A = np.column_stack(
        [
            np.prod(offsets[:, list(powers)], axis=1)
            for degree in range(4)
            for powers in itertools.combinations_with_replacement(range(n), degree)
        ]
    )
    coef = np.linalg.lstsq(A, values, rcond=None)[0]
    return float(np.sqrt(np.mean((values - A @ coef) ** 2)))


def _shifted_by(loglik, point, index, offsets, progress):
    p = np.array(point, dtype=np.float64)
    p[index] += offsets
    value = loglik(p)
    if progress is not None:
        progress(value)
    return value
