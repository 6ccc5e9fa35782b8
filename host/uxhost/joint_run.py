"""A joint system's steps against the reference joint filter: what uxhost.validate.compare, which checks
every dump, asks of a vector state's (streamed by uxhost.streaming and plotted by uxhost.plot as every
system's).

Validation re-runs the dump's configuration on the dump's own (k, u, z), predicting on every record but
the first, and holds a double build's every quantity to 1e-9 of the reference's own run: uxemu.joint_filter,
the Python reference (the C core agrees with it bit for bit on the host), or uxemu.joint_cells for mode
"cells", whose atoms are the cells' means and weights. A float build is run against
the host build of the same C code in float (libux_float.so through uxemu.native), its mean held to 1e-3:
a double reference is no reference for it, because the prior and the process noise are products of
independent quantized laws whose cells have equal spreads along both axes up to rounding, so the float
joint reduction may split a cell along the other axis than the double one and give other (equally
valid) atoms from the first step on. Measured on mps2-an386 (cvrange, η = 8, paper, 15 steps): the
float build of the host and the device agree to 3e-6 in the mean, atom for atom; the double reference
differs by 9 % at step 0. `--reference step` starts each Python reference step from the device's
previous posterior instead; `--exact` holds every quantity to 0. Relative differences per step (device a, reference b, reference standard
deviation σ_c of component c):

- mean and atom positions: |a − b| / max(|b_c mean|, σ_c), component by component;
- covariance: |a − b| / (σ_i σ_j);   atom weights: |a − b| / b;   log evidence: |a − b| / max(|b|, 1);
- a different atom count or status is an infinite difference.
"""

from __future__ import annotations

import math

import numpy as np

from .dump import DumpError
from .joint import JointDump, JointStep


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
    out["status"] = 0.0 if dev.status == ref_status else math.inf
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
            raise DumpError(
                f"the float build's reference is the host float build of the C core, which is "
                f"missing ({exc}): `make native` builds it"
            ) from None
        self.f = (
            nat.joint_cells(cfg.system_id, cfg.eta, cfg.params, list(cfg.priors))
            if cfg.mode == "cells"
            else nat.joint_filter(cfg.system_id, cfg.eta, cfg.mode, cfg.params, list(cfg.priors))
        )
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


def joint_differences(dump: JointDump, reference: str, native_lib=None):
    """(step record, its differences, the reference's log evidence) per step of a joint system's dump, against
    the reference's own run ('run'), its steps from the device's posteriors ('step') or the host float
    build's own run ('native'): uxhost.validate.compare's steps."""
    from uxemu.joint import JointValue
    from uxemu.joint_cells import JointCellsFilter
    from uxemu.joint_filter import JointFilter

    cfg = dump.header.config
    if reference == "step" and cfg.mode == "cells":
        raise DumpError(
            "--reference step: a cell filter's dump holds its cells' means and weights, not their covariances, "
            "so no step can start from the device's posterior; validate against the reference's own run"
        )
    if reference == "native":
        f = _NativeFloat(cfg, native_lib)
    elif cfg.mode == "cells":
        f = JointCellsFilter(cfg.model(), cfg.eta)
    else:
        f = JointFilter(cfg.model(), cfg.eta, cfg.mode)
    for i, s in enumerate(dump.steps):
        if i > 0:
            if reference == "step":  # start from the device's previous posterior
                prev = dump.steps[i - 1]
                f.posterior, f.staged = JointValue(prev.rows(), np.array(prev.atoms_w), cfg.eta), None
            f.predict(s.k, s.u)
        status = f.update(None if s.z is None else np.array(s.z))
        log_evidence = float(f.log_evidence)
        yield s, step_differences(s, f.posterior, f.mean(), f.cov(), int(status), log_evidence), log_evidence
