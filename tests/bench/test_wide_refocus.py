"""Refocusing at large η (docs/semantics.md, "Filter", update): at η = 64 the η² weighed points crowd the main mode
and pass 2η effective points while a mirror of about 1 % of the mass falls between them; below 4η the update
takes the quadrature, which weighs both. gss with a sensor 20× more precise, against the exact grid filter."""

import numpy as np
import pytest

from uxbench import regime_metrics as metrics
from uxbench.baselines.grid import grid_filter
from uxemu import filter as uf
from uxemu import native, systems
from uxemu.traces import Trace, simulate

PRECISE = systems.get("gss", sigma_n=0.05)
# Seed 5001 of the nonlinear_traces study, its first 84 steps: at η = 64 with 2η these three steps were silently
# wrong (variance 0.071, 0.012, 0.031× the exact one: the mirror lost).
SEED, STEPS = 5001, (33, 78, 83)


@pytest.fixture(scope="module")
def trace_and_exact():
    tr = simulate(PRECISE, 200, np.random.default_rng(SEED))
    tr = Trace(tr.k[: max(STEPS) + 1], tr.u[: max(STEPS) + 1], tr.z[: max(STEPS) + 1], tr.x[: max(STEPS) + 1])
    return tr, grid_filter(PRECISE, tr, n_points=4001, tail=1e-15)


def silent_at_steps(tr, exact) -> np.ndarray:
    run = uf.BayesLaplaceFilter(PRECISE, 64, "refined").run(tr)
    steps = list(STEPS)
    wrong = metrics.wrong_steps(run.mean[steps], run.var[steps], exact.mean[steps], exact.var[steps])
    return metrics.silent_steps(wrong, run.status[steps])


def test_at_eta_64_the_mirror_between_the_points_is_weighed(trace_and_exact):
    assert not silent_at_steps(*trace_and_exact).any()


def test_with_twice_eta_alone_those_steps_are_silently_wrong(trace_and_exact, monkeypatch):
    monkeypatch.setattr(uf, "REFOCUS_WIDE_ETA", 128)
    assert silent_at_steps(*trace_and_exact).all()


@pytest.mark.parametrize("eta", [16, 32, 64])
def test_c_refocuses_as_the_reference_does(trace_and_exact, eta):
    nat = native.load() if native.available() else pytest.skip("native library not built")
    tr, _ = trace_and_exact
    ref = uf.BayesLaplaceFilter(PRECISE, eta, "refined").run(tr)
    got = nat.run_filter(PRECISE.system_id, tr.k, tr.u, tr.z, eta=eta, mode="refined", params=PRECISE.params)
    assert np.array_equal(got.mean, ref.mean) and np.array_equal(got.var, ref.var)
    assert np.array_equal(got.status, ref.status) and float(got.log_likelihood) == float(ref.log_likelihood)
