"""Validation of a dump against the Python reference, and the accuracy metrics of its posteriors.

The reference runs the dump's own configuration (system, parameter vector, prior, η, mode, likelihood)
on the dump's own (k, u, z), with the same predict flags: no predict on the first record, predict on
every other one. The reference is the Python twin of the system (uxemu.systems); a system that exists
only in C is run by the host build of the same C code instead (libux.so through uxemu.native), which
still catches what differs between the device and the host: compiler, FPU, precision, link faults.
Two ways to run it:

- *run*: the reference filters the whole trace on its own, and every device posterior must match the
  reference's. The double build's contract (docs/semantics.md): 1e-9 relative on every dump.
- *step*: each reference step starts from the device's previous posterior, so each step checks the
  device's arithmetic alone. The default for the float build, whose own run drifts away from a double
  one for good reasons: a Gordon–Salmond–Smith posterior is bimodal, and a float rounding can tip a
  long run into the other mode.

Relative difference, per quantity and step (device value a, reference value b, reference posterior
standard deviation σ):

- mean and atom positions: |a − b| / max(|b|, σ). A location near zero has no relative scale of its own;
  the posterior's spread is the natural one (a mean of 1e-12 that is off by 1e-15 is a perfect answer).
- law: W1(device atoms, reference atoms) / max(|reference mean|, σ): the distance between the two laws,
  on the same scale as the mean.
- variance: |a − b| / b.   atom weights: |a − b| / b (weights are positive).
- log evidence (log p(z_k | z_0..k−1)): |a − b| / max(|b|, 1), in nats where |b| < 1; equal infinities
  (a fallback's −∞) are no difference. A version 1 dump has none: not compared.
- a different atom count or status is an infinite difference: the laws no longer correspond atom by atom.

Which quantities must be within which tolerance depends on the build (DOUBLE, FLOAT):

- double: every quantity (and the atom count) within 1e-9 of the reference's own run;
- float: the mean within 1e-3 and the law within 1e-2, one step at a time; the variance and the atoms are
  reported only. Float sums cannot see a mass below 2^-24 of its cell's total, and float positions can
  coincide where double ones do not, so a far atom of weight ~1e-8 merges into its neighbour or a split
  falls the other way: the atom count changes, the variance (which such an atom can dominate when the
  posterior is narrow) may differ by 100 %, and in paper mode, where the predictive is reduced before the
  update, the law moves by a fraction of the quantization error. TTR preserves the mean, so the mean
  stays at rounding level through all of this.
  Measured, one step at a time, on mps2-an386 (3 systems × η 4/16/64 × both likelihoods × both modes × 2
  seeds × 50 steps): mean ≤ 4e-5 everywhere; law ≤ 2e-4, except one split that fell the other way in
  paper mode (cubic, η=16) at 3.6e-3. The tolerances leave an order of magnitude above the worst case.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .config import ModelConfig
from .dump import Dump, DumpError, Header, StepRecord

QUANTITIES = ("mean", "var", "law", "atoms_x", "atoms_w", "log_evidence")
JOINT_QUANTITIES = ("mean", "cov", "atoms_x", "atoms_w", "log_evidence")  # a vector state's (uxhost.joint_run)
LABELS = {
    "mean": "mean",
    "var": "variance",
    "cov": "covariance",
    "law": "law (W1)",
    "atoms_x": "atom positions",
    "atoms_w": "atom weights",
    "log_evidence": "log evidence",
    "status": "status",
    "count": "atom count",
}


@dataclass(frozen=True)
class Policy:
    tolerance: dict  # quantity -> largest relative difference allowed; the status must always match
    reference: str  # 'run', 'step' or 'native' (the host float build's own run)

    def with_rtol(self, rtol: float) -> "Policy":
        """The same quantities, all held to `rtol`."""
        return Policy(dict.fromkeys(self.tolerance, rtol), self.reference)

    def describe(self) -> str:
        values = set(self.tolerance.values())
        if len(values) == 1:
            return f"{values.pop():g}"
        return "(" + ", ".join(f"{LABELS[q]} {t:g}" for q, t in self.tolerance.items()) + ")"


DOUBLE_RTOL = 1e-9
DOUBLE = Policy(dict.fromkeys(("count",) + QUANTITIES, DOUBLE_RTOL), "run")
FLOAT_RTOL = 1e-3
FLOAT = Policy({"mean": FLOAT_RTOL, "law": 10 * FLOAT_RTOL}, "step")
# --exact: the posterior itself (atom count, positions, weights) and the log evidence equal bit for bit to the
# reference's own run, a float dump's to the host float build's (libux_float.so): every target computes the
# same bits (docs/semantics.md). The mean and variance follow from the atoms and are reported only.
EXACT = Policy(dict.fromkeys(("count", "atoms_x", "atoms_w", "log_evidence"), 0.0), "run")
# A vector state's (uxhost.joint_run says why a float build's reference is the host float build).
JOINT_DOUBLE = Policy(dict.fromkeys(("count",) + JOINT_QUANTITIES, DOUBLE_RTOL), "run")
JOINT_FLOAT = Policy({"mean": FLOAT_RTOL}, "native")
JOINT_EXACT = Policy(dict.fromkeys(("count",) + JOINT_QUANTITIES, 0.0), "run")
# The most specific failure first: a moved atom also moves the mean and the law.
FAILURE_ORDER = ("status", "count", "atoms_x", "atoms_w", "mean", "cov", "var", "law", "log_evidence")
REFERENCES = {
    "run": "the reference's own run of the trace",
    "step": "one reference step from each previous device posterior",
    "native": "the host float build's own run of the trace",
}


def default_policy(header: Header) -> Policy:
    return DOUBLE if header.real_bytes >= 8 else FLOAT


def is_joint(dump) -> bool:
    """Whether a dump is a vector-state system's run (uxhost.joint.JointDump)."""
    from .joint import JointDump

    return isinstance(dump, JointDump)


def policy_for(dump, rtol: float | None, reference: str | None, exact: bool) -> Policy:
    """The build's policy (--exact's, else the default), with --rtol and --reference applied."""
    if exact and (rtol is not None or reference is not None):
        raise DumpError("--exact compares every bit of the reference's own run: no --rtol or --reference with it")
    double = dump.header.real_bytes >= 8
    if is_joint(dump):
        policy = JOINT_EXACT if exact else JOINT_DOUBLE if double else JOINT_FLOAT
        if not double:  # a float build's own run is the host float build's (uxhost.joint_run)
            policy = Policy(policy.tolerance, "native")
    else:
        policy = EXACT if exact else default_policy(dump.header)
    if rtol is not None:
        policy = policy.with_rtol(rtol)
    if reference is not None:
        policy = Policy(policy.tolerance, reference)
    return policy


# --------------------------------------------------------------------------------------------------
# The reference


def reference_filter(config: ModelConfig, native_lib=None, float_build: bool = False, host_build: bool = False):
    """The filter that stands for the device: the Python twin, or the host build of the system's C code
    (`native_lib`, default: uxemu.native's library of the given precision) for a system with no twin or
    when `host_build` asks for it (an exact check of a float build)."""
    if config.has_twin() and not host_build:
        from uxemu import BayesLaplaceFilter

        return BayesLaplaceFilter(config.model(), config.eta, config.mode, config.likelihood, prior=config.prior_law())
    return NativeReference(config, native_lib, float_build)


class NativeReference:
    """The host build of the device's own C code, driven like the reference's BayesLaplaceFilter."""

    def __init__(self, config: ModelConfig, native_lib=None, float_build: bool = False):
        from uxemu import native

        try:
            nat = native.Native(native_lib, float_build) if native_lib else native.load(float_build)
        except FileNotFoundError as exc:
            raise DumpError(f"system {config.system} exists only in C, and its host build is missing: {exc}") from None
        model = nat.lib.ux_model_find(config.system_id)
        if not model or model.contents.name.decode() != config.system:
            raise DumpError(
                f"the host library {nat.path} has no system {config.system} with id {config.system_id}: "
                "pass --native-lib with the host build of the firmware's own tree"
            )
        self.eta = config.eta
        self.filter = nat.filter(
            config.system_id,
            config.eta,
            config.mode,
            config.likelihood,
            config.params,
            (config.prior_kind, config.prior_a, config.prior_b),
        )

    def step(self, k: int, z: float | None, u: float = 0.0, predict: bool = True) -> int:
        if predict:
            self.filter.predict(k, u)
        return self.filter.update(None if z is None else [z])

    @property
    def log_evidence(self) -> float:
        return self.filter.log_evidence()

    def variance(self) -> float:
        return self.filter.var()

    @property
    def posterior(self):
        from uxemu import Value

        v = self.filter.posterior()
        return Value(np.asarray(v.x, dtype=np.float64), np.asarray(v.w, dtype=np.float64), self.eta)


def reference_posteriors(
    config: ModelConfig, k, u, z, given=None, native_lib=None, float_build: bool = False, host_build: bool = False
):
    """(status, posterior Value, log evidence, variance) per step, exactly as a device is driven: predict on
    all but the first. The variance is the filter's (smooth refined: its binned density's, docs/semantics.md).

    With `given` (the device's step records), each step starts from the device's previous posterior
    instead of the reference's own: a one-step check of the device's arithmetic, free of the drift
    that a long run accumulates where rounding differs (the float build)."""
    from uxemu import Value
    from uxemu.filter import observation

    filt = reference_filter(config, native_lib, float_build, host_build)
    if given is not None and isinstance(filt, NativeReference):
        raise DumpError(
            f"system {config.system} exists only in C: a step-by-step check needs its Python twin; "
            "use --reference run"
        )
    for i in range(len(z)):
        if given is not None and i > 0:
            prev = given[i - 1]
            filt.set_posterior(Value(np.asarray(prev.atoms_x), np.asarray(prev.atoms_w), config.eta), prev.var)
        status = filt.step(int(k[i]), observation(z[i]), float(u[i]), predict=i > 0)
        yield int(status), filt.posterior, float(filt.log_evidence), float(filt.variance())


def reference_dump(config: ModelConfig, trace, trace_path: str | None = None) -> Dump:
    """The dump the reference itself produces for a trace (no device, no cycles)."""
    header = Header(config, real_bytes=8, cycle_source="none", trace=trace_path, trace_steps=len(trace))
    dump = Dump(header)
    for i, (status, post, log_evidence, var) in enumerate(reference_posteriors(config, trace.k, trace.u, trace.z)):
        x = None if trace.x is None else float(trace.x[i])
        dump.steps.append(
            StepRecord(
                int(trace.k[i]),
                float(trace.u[i]),
                float(trace.z[i]),
                x,
                status,
                post.mean(),
                var,
                tuple(map(float, post.x)),
                tuple(map(float, post.w)),
                log_evidence=log_evidence,
            )
        )
    return dump


# --------------------------------------------------------------------------------------------------
# Comparison


def step_differences(
    rec: StepRecord, status: int, ref, log_evidence: float | None = None, var: float | None = None
) -> dict[str, float]:
    """Relative differences of one device step against the reference posterior `ref` (a Value), the
    reference's log evidence (None: the dump has none to compare, a version 1 dump) and the reference filter's
    variance (None: the atoms')."""
    b_mean, b_var = ref.mean(), ref.var() if var is None else var
    scale = max(math.sqrt(max(b_var, 0.0)), np.finfo(float).tiny)
    out = {
        "status": 0.0 if rec.status == status else math.inf,
        "mean": abs(rec.mean - b_mean) / max(abs(b_mean), scale),
        "var": abs(rec.var - b_var) / b_var if b_var > 0 else (0.0 if rec.var == b_var else math.inf),
    }
    ax, aw = np.asarray(rec.atoms_x), np.asarray(rec.atoms_w)
    out["law"] = _law_distance(ax, aw, ref.x, ref.w) / max(abs(b_mean), scale)
    if ax.size != ref.x.size:
        out["count"] = out["atoms_x"] = out["atoms_w"] = math.inf
    else:
        out["count"] = 0.0
        with np.errstate(all="ignore"):
            out["atoms_x"] = float(np.max(np.abs(ax - ref.x) / np.maximum(np.abs(ref.x), scale)))
            out["atoms_w"] = float(np.max(np.abs(aw - ref.w) / ref.w))
    out["log_evidence"] = 0.0 if log_evidence is None else _log_evidence_difference(rec.log_evidence, log_evidence)
    for key in QUANTITIES:
        if math.isnan(out[key]):
            out[key] = math.inf  # a NaN from the device is as far off as it gets
    return out


def _log_evidence_difference(a: float, b: float) -> float:
    if a == b:  # also equal infinities: both updates fell back
        return 0.0
    return abs(a - b) / max(abs(b), 1.0)  # NaN (a device's NaN) becomes inf below


def _law_distance(ax, aw, bx, bw) -> float:
    from uxemu import metrics

    if not (np.isfinite(ax).all() and np.isfinite(aw).all()) or not aw.sum() > 0 or (aw < 0).any():
        return math.inf
    return metrics.w1_atoms(ax, aw, bx, bw)


@dataclass
class Comparison:
    policy: Policy
    quantities: tuple = QUANTITIES  # what is compared and reported (a vector state's: JOINT_QUANTITIES)
    steps: int = 0
    max_rel: dict[str, float] = field(default_factory=dict)
    worst_k: dict[str, int | None] = field(default_factory=dict)
    first_bad: tuple[int, str, float, float] | None = None  # (k, quantity, relative difference, tolerance)
    log_likelihood: float | None = None  # log p(z_0..T−1): the dump's log evidence summed (None: not recorded)
    reference_log_likelihood: float | None = None  # the same sum of the reference's

    def __post_init__(self):
        self.max_rel = self.max_rel or dict.fromkeys(self.quantities, 0.0)
        self.worst_k = self.worst_k or dict.fromkeys(self.quantities)

    @property
    def ok(self) -> bool:
        return self.first_bad is None

    @property
    def largest(self) -> float:
        """The largest difference among the quantities the policy holds to its tolerance."""
        return max((v for q, v in self.max_rel.items() if q in self.policy.tolerance), default=0.0)

    def tally(self, k: int, diffs: dict, log_evidence: float | None, reference_log_evidence: float | None) -> None:
        """One step's differences: the largest so far, the first outside its tolerance, the log evidence."""
        self.steps += 1
        if self.log_likelihood is not None:
            self.log_likelihood += log_evidence
            self.reference_log_likelihood += reference_log_evidence
        for q in self.quantities:
            if diffs[q] > self.max_rel[q] or self.worst_k[q] is None:
                self.max_rel[q], self.worst_k[q] = diffs[q], k
        if self.first_bad is None:
            limits = {"status": 0.0, **self.policy.tolerance}
            for q in (q for q in FAILURE_ORDER if q in limits):
                if not diffs[q] <= limits[q]:
                    self.first_bad = (k, q, diffs[q], limits[q])
                    break


def compare(
    dump, rtol: float | None = None, reference: str | None = None, native_lib=None, exact: bool = False
) -> Comparison:
    """Every step of the dump (a scalar or a vector state's) against the reference; `rtol` and `reference`
    ('run' or 'step') override the build's policy; `native_lib` is the host build that runs a system with no
    Python twin (or a float build's reference); `exact` holds the posterior to equality of every bit."""
    if not dump.steps:
        raise DumpError("the dump has no step records: nothing to validate")
    policy = policy_for(dump, rtol, reference, exact)
    recorded = not all(math.isnan(s.log_evidence) for s in dump.steps)  # a version 1 dump has none
    if is_joint(dump):
        from .joint_run import joint_differences

        cmp, steps = Comparison(policy, JOINT_QUANTITIES), joint_differences(dump, policy.reference, native_lib)
    else:
        cmp, steps = Comparison(policy), _scalar_differences(dump, policy, native_lib, exact, recorded)
    if recorded:
        cmp.log_likelihood = cmp.reference_log_likelihood = 0.0
    try:
        for rec, diffs, reference_log_evidence in steps:
            cmp.tally(rec.k, diffs, rec.log_evidence, reference_log_evidence)
    except ValueError as exc:  # the reference refuses the configuration or an observation
        raise DumpError(f"the reference cannot run this dump's configuration: {exc}") from None
    return cmp


def _scalar_differences(dump: Dump, policy: Policy, native_lib, exact: bool, recorded: bool):
    """(step record, its differences, the reference's log evidence) per step of a scalar system's dump."""
    float_build = dump.header.real_bytes < 8
    k, u, z = dump.column("k"), dump.column("u"), dump.column("z")
    given = dump.steps if policy.reference == "step" else None
    posteriors = reference_posteriors(
        dump.header.config, k, u, z, given, native_lib, float_build=float_build, host_build=exact and float_build
    )
    for rec, (status, ref, log_evidence, var) in zip(dump.steps, posteriors):
        yield rec, step_differences(rec, status, ref, log_evidence if recorded else None, var), log_evidence


def trace_of_dump(dump, trace_path, z_col: str | None = None):
    """The trace `trace_path` names (a scalar one's observations from `z_col`, default z), read with the
    dump's dimensions and checked to be the one the dump was made from (check_trace)."""
    from .traces import load_trace

    if is_joint(dump):
        cfg = dump.header.config
        trace = load_trace(trace_path, dim_obs=cfg.dim_obs, dim=cfg.dim)
    else:
        trace = load_trace(trace_path) if z_col is None else load_trace(trace_path, z_col)
    check_trace(dump, trace, trace_path)
    return trace


def check_trace(dump: Dump, trace, trace_path) -> None:
    """The trace must be the one the dump was made from: same k, u and z on every recorded step."""
    if len(trace) < len(dump):
        raise DumpError(f"{trace_path} has {len(trace)} rows but the dump has {len(dump)} steps")
    for i, rec in enumerate(dump.steps):
        if (rec.k, rec.u) != (int(trace.k[i]), float(trace.u[i])) or not _same_reading(rec.z, trace.z[i]):
            raise DumpError(
                f"{trace_path}: row {i + 1} (k={int(trace.k[i])}) does not match the dump's step "
                f"k={rec.k}: not the trace this dump was made from"
            )


def _same_reading(recorded, row) -> bool:
    """A dump's z (a number, a vector, or None / NaN for no observation) against the trace's row."""
    b = np.asarray(row, dtype=np.float64)
    a = np.full(b.shape, np.nan) if recorded is None else np.asarray(recorded, dtype=np.float64)
    return a.shape == b.shape and bool(np.all((a == b) | (np.isnan(a) & np.isnan(b))))


# --------------------------------------------------------------------------------------------------
# Accuracy against the truth

# One definition of each metric for the whole project: uxemu.metrics (RMSE of the means; NLL with the
# TTR-binned density, log p clamped at its LOG_PDF_FLOOR where the density is 0; exact CRPS of the atoms).


@dataclass
class Accuracy:
    rmse: float
    nll: float
    crps: float
    floored: int  # steps whose log density at the truth was clamped to the floor
    log_pdf_floor: float


def accuracy(dump: Dump, truth: np.ndarray) -> Accuracy:
    """RMSE, NLL and CRPS of the device's posteriors against the true state."""
    from uxemu import Value, metrics

    truth = np.asarray(truth[: len(dump)], dtype=np.float64)
    logp, crps = [], []
    for rec, y in zip(dump.steps, truth):
        value = Value(np.asarray(rec.atoms_x), np.asarray(rec.atoms_w), dump.header.config.eta)
        logp.append(metrics.log_pdf_value(value, float(y)))
        crps.append(metrics.crps_atoms(rec.atoms_x, rec.atoms_w, float(y)))
    nll = metrics.nll(logp)
    return Accuracy(
        metrics.rmse(dump.column("mean"), truth), nll.mean, float(np.mean(crps)), nll.floor_hits, metrics.LOG_PDF_FLOOR
    )
