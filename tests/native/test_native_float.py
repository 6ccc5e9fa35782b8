"""The float build (UX_REAL_FLOAT, for cores with a single-precision FPU) against the double reference.

Tolerances, and why:
- float32 rounds at ε ≈ 6e-8. A constructor's positions are conditional means G(a, b)/P(a, b) whose
  partial moment G is a difference of nearly equal terms, and each level's edges are the previous level's
  means, so errors compound down the tree: measured ≤ 5e-6 of the value's scale at η ≤ 64; we allow 1e-5.
  Masses are differences of cdf values; the cdf's argument (t − μ)/s (for the lognormal (log t − μ)/σ) is
  rounded at ε·|t|/s, which an off-centre law (|μ| > s) amplifies, and the edge errors above move mass
  between neighbours: measured ≤ 1.7e-4·(1 + |μ|/s) of the largest mass over 400 random laws; we allow
  3e-4·(1 + |μ|/s). (The float build's uniform law uses the factored (hi − lo)(hi + lo), see law.c.)
- A lift reduces η² points with TTR; a point within float rounding of a cell mean can fall on the other
  side of the split, which moves mass between neighbouring cells but never changes the mean. Means are
  compared at 1e-5 of the scale. The variance the reduction keeps does change with such a flip (a whole
  subtree is partitioned differently; measured up to 0.3 %), so variances are compared at 2 %.
- Filters: SV and cubic contract perturbations; measured per-step differences stay below 3e-4 of the
  posterior std over 50 steps at η ≤ 64, and we allow 3e-3. GSS is bimodal with a sharp likelihood, so a
  flipped split can move part of a mode: per-step mean differences reached ~5 % of the posterior std on
  rare steps while the trace RMSE agreed to 0.2 %. For GSS we require the RMSE within 1 % and every
  step's mean within 0.25·max(std, 1) — loose enough for float rounding, far tighter than a wrong filter
  (a bug that loses a mode moves the mean by the mode separation, ~10 state units).
"""

import numpy as np
import pytest

import uxemu as ux
from uxemu import systems, traces
from test_native_ttr_lift import random_value
from agree import TWIN_IDS

CASES = 200


def test_constructors(nat_f, rng):
    for case in range(CASES):
        eta = int(2 ** rng.integers(0, 7))
        mu, s = rng.uniform(-5, 5), rng.uniform(0.1, 3)
        for name, args in [
            ("gaussian", (mu, s)),
            ("laplace", (mu, s)),
            ("uniform", (mu, mu + s)),
            ("exponential", (s,)),
            ("student_t", (2 + s, mu, s)),
            ("lognormal", (mu / 5, s / 3)),
        ]:
            got, ref = getattr(nat_f, name)(*args, eta=eta), getattr(ux, name)(*args, eta=eta)
            assert len(got.x) == len(ref.x), f"{name} case {case}"
            scale = np.max(np.abs(ref.x)) + np.sqrt(ref.var())
            assert np.max(np.abs(got.x - ref.x)) <= 1e-5 * scale, f"{name} case {case} positions"
            loc, sc = {
                "gaussian": (mu, s),
                "laplace": (mu, s),
                "uniform": (mu, s),
                "student_t": (mu, s),
                "lognormal": (mu / 5, s / 3),
            }.get(name, (0.0, 1.0))
            amplify = 1 + abs(loc) / sc
            assert np.max(np.abs(got.w - ref.w)) <= 3e-4 * amplify * np.max(ref.w), f"{name} case {case} masses"


@pytest.mark.parametrize("name", ["add", "mul", "sub", "exp", "cos"])
def test_operations_keep_mean_and_spread(nat_f, rng, name):
    for case in range(CASES):
        ra, rb = random_value(rng), random_value(rng)
        if name in ("add", "mul", "sub"):
            ref = {"add": ra + rb, "mul": ra * rb, "sub": ra - rb}[name]
            got = getattr(nat_f, name)(nat_f.from_reference(ra), nat_f.from_reference(rb))
        else:
            ref = getattr(ux, name)(ra)
            got = getattr(nat_f, name)(nat_f.from_reference(ra))
        scale = np.max(np.abs(ref.x)) + np.sqrt(ref.var())
        assert abs(np.sum(got.w * got.x) - ref.mean()) <= 1e-5 * scale, f"{name} case {case} mean"
        gv = np.sum(got.w * (got.x - np.sum(got.w * got.x)) ** 2)
        assert abs(gv - ref.var()) <= 2e-2 * max(ref.var(), 1e-6 * scale**2), f"{name} case {case} var"


@pytest.mark.parametrize("lik", ["kernel", "sampler"])
@pytest.mark.parametrize("mode", ["refined", "paper", "mixture"])
@pytest.mark.parametrize("sid", TWIN_IDS)
def test_filters(nat_f, sid, mode, lik):
    model = systems.get(sid)
    tr = traces.simulate(model, 50 if lik == "kernel" else 20, np.random.default_rng(40 + sid))
    for eta in (8, 16, 32, 64) if lik == "kernel" else (8, 16):
        ref = ux.run_filter(model, tr, eta, mode, lik)
        got = nat_f.run_filter(sid, tr.k, tr.u, tr.z, eta, mode, lik, atoms=False)
        sd = np.sqrt(ref.var)
        what = f"system {sid} η={eta} {mode} {lik}"
        if sid == 2:
            rmse_ref = np.sqrt(np.mean((ref.mean - tr.x) ** 2))
            rmse_got = np.sqrt(np.mean((got.mean - tr.x) ** 2))
            # Mixture mode with the sampler form weighs the 129 nodes with TTR-binned densities, which jump
            # as single precision moves a node across a bin edge: 1.4 % at η = 8 on this trace.
            tol = 0.02 if (mode, lik) == ("mixture", "sampler") else 0.01
            assert abs(rmse_got - rmse_ref) <= tol * rmse_ref, what
            assert np.all(np.abs(got.mean - ref.mean) <= 0.25 * np.maximum(sd, 1.0)), what
        else:
            # Single precision can put a point on the other side of a cell mean that double precision
            # puts it on (a split decided by one rounding): such a step may move by up to 1 % of the
            # spread, and the filter comes back within a few steps. On lg at η = 8 with the sampler form
            # one such split (step 10) moves the mean by up to 1.6 %, and the two runs stay more than 3e-3
            # apart on 6 of the 20 steps (measured; η = 16 agrees to 1e-6 on every step).
            err_mean = np.abs(got.mean - ref.mean) / sd
            err_sd = np.abs(np.sqrt(got.var) - sd) / sd
            flipped = (systems.spec("lg").id, "sampler", 8) == (sid, lik, eta)
            largest, share = (2e-2, 0.3) if flipped else (1e-2, 0.05)
            assert np.all(err_mean <= largest) and np.all(err_sd <= largest), what
            assert np.mean(err_mean > 3e-3) <= share and np.mean(err_sd > 3e-3) <= share, what


def test_float_build_is_deterministic(nat_f):
    tr = traces.simulate(systems.get(3), 15, np.random.default_rng(1))
    a = nat_f.run_filter(3, tr.k, tr.u, tr.z, 16, "refined", "kernel")
    b = nat_f.run_filter(3, tr.k, tr.u, tr.z, 16, "refined", "kernel")
    assert a.mean.tobytes() == b.mean.tobytes()
    assert all(x.tobytes() == y.tobytes() for (x, _), (y, _) in zip(a.posteriors, b.posteriors))
