"""Smooth refined mode's predictive tails on GSS against the exact grid filter (docs/semantics.md, "Filter"): a
cell the transition saturates splits, and an update whose likelihood has a mode past its weighed points builds
its posterior from the quadrature. C and the reference take both the same way, bit for bit."""

import numpy as np
import pytest

from uxbench import regime_metrics as metrics
from uxbench.baselines.grid import grid_filter
from uxemu import filter as uf
from uxemu import native, systems
from uxemu.traces import simulate

# gss traces (default_rng(seed), 200 steps) whose refined runs at η = 16, 32 and 64 had 0, 2, 1 / 2, 4, 1 /
# 0, 1, 1 silently wrong steps before saturating cells split and the edge was probed; 0 at each since.
CLEAN_SEEDS = (5002, 5003, 5004)


@pytest.fixture(scope="module")
def nat():
    if not native.available():
        pytest.skip("native library not built")
    return native.load()


@pytest.mark.parametrize("seed", CLEAN_SEEDS)
@pytest.mark.parametrize("eta", [16, 32, 64])
def test_no_gss_step_is_silently_wrong(nat, seed, eta):
    """Every step whose status is OK has its mean within 0.5 exact sd and its variance 0.5–2× the exact one
    (the regime map's 'wrong')."""
    model = systems.get("gss")
    tr = simulate(model, 200, np.random.default_rng(seed))
    exact = grid_filter(model, tr, n_points=1001, tail=1e-15)
    run = nat.run_filter(model.system_id, tr.k, tr.u, tr.z, eta=eta, mode="refined", atoms=False)
    wrong = metrics.wrong_steps(run.mean, run.var, exact.mean, exact.var)
    assert not metrics.silent_steps(wrong, run.status).any()


def test_a_saturating_cell_splits():
    """gss near x = 0, where f = x/2 + 25x/(1 + x²) + 8cos(1.2k) is odd about its inflection: the images of
    x ± r straddle f(x) evenly (the centre test sees no bend), but f at x ± 2r falls far short of the line
    through them — one Gaussian of scale τ ≈ 10 would reach states f never sends the cell to."""
    model = systems.get("gss")
    x, r, k = np.array([0.05]), np.array([0.47]), 79
    zero = np.zeros(1)
    up, down = model.transition(x + r, zero, k, 0.0), model.transition(x - r, zero, k, 0.0)
    mid, tau = (up + down) * 0.5, (up - down) * 0.5
    centre = model.transition(x, zero, k, 0.0)
    assert abs(centre - mid)[0] <= uf.CELL_BEND * abs(tau)[0]  # the centre alone: no bend
    assert uf.bends(model, x, r, mid, tau, 3.0, k, 0.0).all()
    assert not uf.bends(model, x, r, mid, tau, abs(tau)[0], k, 0.0).any()  # not wide: never split


def test_c_probes_past_the_edge_as_the_reference_does(nat, monkeypatch):
    """A 60-step gss trace where the probes past the edge take the quadrature once (η = 16): C's means,
    variances, statuses and log L equal the reference's bit for bit."""
    fired = []
    probe = uf.BayesLaplaceFilter._mass_beyond

    def counted(self, *args):
        out = probe(self, *args)
        fired.append(out)
        return out

    monkeypatch.setattr(uf.BayesLaplaceFilter, "_mass_beyond", counted)
    model = systems.get("gss")
    tr = simulate(model, 60, np.random.default_rng(5003))
    ref = uf.BayesLaplaceFilter(model, 16, "refined").run(tr)
    assert sum(fired) == 1
    got = nat.run_filter(model.system_id, tr.k, tr.u, tr.z, eta=16, mode="refined", atoms=False)
    assert np.array_equal(got.mean, ref.mean) and np.array_equal(got.var, ref.var)
    assert np.array_equal(got.status, ref.status) and float(got.log_likelihood) == float(ref.log_likelihood)


def test_no_probe_below_its_eta(monkeypatch):
    """At η < EDGE_PROBES_ETA the probes are not taken: on this trace they would change the run at η = 8."""
    model = systems.get("gss")
    tr = simulate(model, 60, np.random.default_rng(5001))
    default = uf.BayesLaplaceFilter(model, 8, "refined").run(tr)
    monkeypatch.setattr(uf, "EDGE_PROBES_ETA", 8)
    probed = uf.BayesLaplaceFilter(model, 8, "refined").run(tr)
    assert not np.array_equal(default.mean, probed.mean)
