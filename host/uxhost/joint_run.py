"""A joint system's run (streamed to a device by uxhost.streaming and plotted by uxhost.plot, as every
system's) validated against the reference joint filter.

Validation re-runs the dump's configuration on the dump's own (k, u, z), predicting on every record but
the first, and holds a double build's every quantity to 1e-9 of the reference's own run: uxemu.joint_filter,
the Python reference (the C core agrees with it bit for bit on the host). A float build is run against
the host build of the same C code in float (libux_float.so through uxemu.native), its mean held to 1e-3:
a double reference is no reference for it, because the prior and the process noise are products of
independent quantized laws whose cells have equal spreads along both axes up to rounding, so the float
joint reduction may split a cell along the other axis than the double one and give other (equally
valid) atoms from the first step on. Measured on mps2-an386 (cvrange, η = 8, paper, 15 steps): the
float build of the host and the device agree to 3e-6 in the mean, atom for atom; the double reference
differs by 9 % at step 0. `--reference step` starts each Python reference step from the device's
previous posterior instead. Relative differences per step (device a, reference b, reference standard
deviation σ_c of component c):

- mean and atom positions: |a − b| / max(|b_c mean|, σ_c), component by component;
- covariance: |a − b| / (σ_i σ_j);   atom weights: |a − b| / b;   log evidence: |a − b| / max(|b|, 1);
- a different atom count or status is an infinite difference.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field

import numpy as np

from .dump import DumpError
from .errors import UserError
from .joint import JointDump, JointStep

QUANTITIES = ("mean", "cov", "atoms_x", "atoms_w", "log_evidence")
DOUBLE = ({q: 1e-9 for q in ("count",) + QUANTITIES}, "run")
FLOAT = ({"mean": 1e-3}, "native")
# --exact: every quantity equal bit for bit to the reference's own run; a float build's is the host float
# build of the same C code (both use the core's own elementary functions, ux/uxm.h).
EXACT = {
    8: (dict.fromkeys(("count",) + QUANTITIES, 0.0), "run"),
    4: (dict.fromkeys(("count",) + QUANTITIES, 0.0), "native"),
}


# --------------------------------------------------------------------------------------------------
# Validation


@dataclass
class JointComparison:
    worst: dict  # quantity -> (largest relative difference, step index)
    tolerance: dict
    reference: str
    first_bad: int | None = None  # first step outside the tolerance
    reasons: list[str] = field(default_factory=list)
    first: tuple | None = None  # (k, quantity, difference, tolerance) of that step's first bad quantity

    @property
    def ok(self) -> bool:
        return self.first_bad is None

    def describe(self) -> str:
        """The tolerance as a report names it: one number, or each held quantity's."""
        tol = sorted(set(self.tolerance.values()))
        return (
            f"{tol[0]:g}" if len(tol) == 1 else "(" + ", ".join(f"{q} {t:g}" for q, t in self.tolerance.items()) + ")"
        )


def _rel(a, b, scale) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if a.shape != b.shape:
        return math.inf
    with np.errstate(all="ignore"):
        d = np.abs(a - b) / scale
    d = np.where(a == b, 0.0, d)  # equal values (infinities included) differ by nothing
    return float(np.nanmax(d)) if d.size else 0.0


def step_differences(dev: JointStep, ref_post, ref_mean, ref_cov, ref_status, ref_log_evidence) -> dict:
    sigma = np.sqrt(np.maximum(np.diag(ref_cov), 0.0))
    loc = np.maximum(np.abs(ref_mean), sigma)
    out = {
        "mean": _rel(dev.mean, ref_mean, loc),
        "cov": _rel(np.array(dev.cov).reshape(ref_cov.shape), ref_cov, np.outer(sigma, sigma)),
        "log_evidence": _rel(dev.log_evidence, ref_log_evidence, max(abs(ref_log_evidence), 1.0)),
    }
    same = len(dev.atoms_w) == len(ref_post.w) and dev.status == ref_status
    out["count"] = 0.0 if same else math.inf
    out["atoms_x"] = _rel(dev.rows(), ref_post.x, loc) if same else math.inf
    out["atoms_w"] = _rel(dev.atoms_w, ref_post.w, ref_post.w) if same else math.inf
    return out


class _NativeFloat:
    """The host float build of the device's C code, driven like uxemu.joint_filter.JointFilter."""

    def __init__(self, cfg, native_lib=None):
        from uxemu import native

        try:
            nat = native.Native(native_lib, True) if native_lib else native.load(True)
        except FileNotFoundError as exc:
            raise UserError(
                f"the float build's reference is the host float build of the C core, which is "
                f"missing ({exc}): `make native` builds it"
            ) from None
        self.f = nat.joint_filter(cfg.system_id, cfg.eta, cfg.mode, cfg.params, list(cfg.priors))
        self.log_evidence = 0.0

    def predict(self, k, u):
        self.f.predict(k, u)

    def update(self, z):
        status = self.f.update(z)
        self.posterior, self.log_evidence = self.f.posterior(), self.f.log_evidence()
        return status

    def mean(self):
        return self.f.mean()

    def cov(self):
        return self.f.cov()


def compare(
    dump: JointDump, rtol: float | None = None, reference: str | None = None, native_lib=None, exact: bool = False
) -> JointComparison:
    """Every step of `dump` against the reference joint filter of its configuration (`exact`: bit for bit)."""
    from uxemu.joint import JointValue
    from uxemu.joint_filter import JointFilter

    if exact and (rtol is not None or reference is not None):
        raise DumpError("--exact compares every bit of the reference's own run: no --rtol or --reference with it")
    double = dump.header.real_bytes >= 8
    tolerance, default_reference = EXACT[8 if double else 4] if exact else DOUBLE if double else FLOAT
    if rtol is not None:
        tolerance = dict.fromkeys(tolerance, rtol)
    reference = reference or default_reference
    cfg = dump.header.config
    f = _NativeFloat(cfg, native_lib) if reference == "native" else JointFilter(cfg.model(), cfg.eta, cfg.mode)
    cmp = JointComparison({q: (0.0, 0) for q in ("count",) + QUANTITIES}, tolerance, reference)
    for i, s in enumerate(dump.steps):
        if i > 0:
            if reference == "step":  # start from the device's previous posterior
                prev = dump.steps[i - 1]
                f.posterior, f.staged = JointValue(prev.rows(), np.array(prev.atoms_w), cfg.eta), None
            f.predict(s.k, s.u)
        status = f.update(None if s.z is None else np.array(s.z))
        diffs = step_differences(s, f.posterior, f.mean(), f.cov(), int(status), float(f.log_evidence))
        for q, d in diffs.items():
            if d > cmp.worst[q][0]:
                cmp.worst[q] = (d, i)
            if cmp.first_bad is None and q in tolerance and d > tolerance[q]:
                cmp.first_bad, cmp.first = i, (s.k, q, d, tolerance[q])
                cmp.reasons.append(f"step k={s.k}: {q} differs by {d:.3g} (tolerance {tolerance[q]:g})")
    return cmp


ENGINES = {
    "run": "uxemu.joint_filter, its own run",
    "step": "uxemu.joint_filter, each step from the device's " "previous posterior",
    "native": "the host float build of the C core (libux_float.so), its own run",
}


def report(
    dump: JointDump, name: str, rtol=None, reference=None, truth=None, native_lib=None, out=None, exact=False
) -> JointComparison:
    """Compares and prints the report in the layout of a scalar system's (commands/validate.py report)."""
    out = sys.stdout if out is None else out
    h, cfg = dump.header, dump.header.config
    cmp = compare(dump, rtol, reference, native_lib, exact)
    source = f"board {h.board}, firmware {h.firmware_version}" if h.board else "made by the reference"
    print(
        f"{name}: {len(dump)} steps of {cfg.system} (dim {cfg.dim}), η={cfg.eta}, {cfg.mode}, kernel likelihood "
        f"({source}, {h.real_bytes}-byte reals)",
        file=out,
    )
    if dump.missing:
        print(f"  {dump.missing} step(s) without observation (predict only, status NO_EVIDENCE)", file=out)
    print(f"  largest relative difference to {ENGINES[cmp.reference]}:", file=out)
    for q, (d, i) in cmp.worst.items():
        held = "" if q in cmp.tolerance else "   (reported, not held to the tolerance)"
        k = dump.steps[i].k if dump.steps else 0
        print(f"    {q:<15} {d:.3e}  (step k={k}){held}", file=out)
    if cmp.ok and exact:
        print("  every mean, covariance, atom, weight and log evidence equal bit for bit on every step: OK", file=out)
    elif cmp.ok:
        print(f"  within tolerance {cmp.describe()} on every step: OK", file=out)
    else:
        k, q, d, tol = cmp.first
        print(f"  FAILED: step k={k} is the first outside tolerance {tol:g} ({q}: {d:.3e})", file=out)
    truth = dump.truth if truth is None else truth
    if truth is not None and len(truth) == len(dump):
        mean = np.array([s.mean for s in dump.steps])
        rmse = np.sqrt(np.mean((mean - truth) ** 2, axis=0))
        print("  against the true state: RMSE " + ", ".join(f"x{c} {v:.4g}" for c, v in enumerate(rmse)), file=out)
    return cmp
