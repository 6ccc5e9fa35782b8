"""The first update's region and refocus (docs/semantics.md, "Filter"): a prior many times wider than the
observation noise no longer collapses the first posterior onto one or two prior atoms. Oracle: the
Kalman filter on the linear-Gaussian system."""

import math
from dataclasses import replace

import numpy as np
import pytest

import uxemu as ux
from uxemu import run_filter, simulate, systems
from uxemu.filter import REFOCUS_FLOOR, REGION_NODES, _bracket, density_nodes
from uxemu.kalman import kalman_filter


def lg_run(scale: float, eta: int, mode: str, seed: int, T: int = 3):
    a, q, r = systems.spec("lg").defaults
    model = systems.get("lg", prior=(0.0, scale * r))
    tr = simulate(model, T, np.random.default_rng(seed))
    return run_filter(model, tr, eta, mode), kalman_filter(tr.z, a, q, r, 0.0, scale * r)


@pytest.mark.parametrize("mode", ["refined", "mixture"])
@pytest.mark.parametrize("eta", [8, 16])
@pytest.mark.parametrize("scale", [30.0, 1000.0])
def test_a_diffuse_prior_is_refocused_onto_the_kalman_posterior(scale, eta, mode, weighed):
    for seed in range(6):
        run, k = lg_run(scale, eta, mode, seed)
        if scale == 1000.0:  # 64 atoms over ±2.5 prior sd are ~80 apart against a likelihood sd of 1
            assert run.status[0] == ux.Status.REFOCUSED
        # The first posterior (later steps carry η = 8's own error, benchmarks/results/diffuse_prior.md).
        assert abs(run.mean[0] - k.mean[0]) <= 0.1 * math.sqrt(k.var[0]), (seed, run.mean[0] - k.mean[0])
        assert abs(run.var[0] / k.var[0] - 1.0) <= 0.2, (seed, run.var[0] / k.var[0])
        assert np.all(run.status[1:] == ux.Status.OK)


@pytest.mark.parametrize("mode", ["refined", "mixture"])
def test_a_refocused_update_reports_the_exact_evidence(mode, weighed):
    """Its evidence is the region's log Z: the Kalman filter's log p(z_0) = log N(z_0; 0, s² + r²)."""
    run, k = lg_run(1000.0, 8, mode, seed=2, T=1)
    assert run.status[0] == ux.Status.REFOCUSED
    assert run.log_evidence[0] == run.density_log_evidence[0]
    assert abs(run.log_evidence[0] - k.log_evidence[0]) < 1e-6


def test_without_the_region_the_first_posterior_collapses():
    """What the rule fixes: the η²-atom update alone, on the same data, is far from the Kalman posterior."""
    a, q, r = systems.spec("lg").defaults
    model = systems.get("lg", prior=(0.0, 1000.0))
    z = simulate(model, 1, np.random.default_rng(2)).z
    f = ux.BayesLaplaceFilter(model, 8, "refined")
    own = ux.bayes_laplace(f.first_prior_atoms(), f.likelihood, float(z[0]), eta=8).posterior
    k = kalman_filter(z, a, q, r, 0.0, 1000.0)
    assert abs(own.mean() - k.mean[0]) > 1.0 * math.sqrt(k.var[0]) or own.var() < 0.2 * k.var[0]


@pytest.mark.parametrize("mode", ["refined", "mixture"])
def test_a_prior_as_wide_as_the_noise_is_not_refocused(mode):
    run, _ = lg_run(1.0, 8, mode, seed=0, T=1)
    assert run.status[0] == ux.Status.OK


def test_refined_posterior_is_the_updates_own_unless_refocused(weighed):
    """Not concentrated: the refined posterior is BayesLaplace's on the min(η², 64) prior atoms, bit for
    bit; only the density's support narrows to the region."""
    model = systems.get("lg")
    z = simulate(model, 1, np.random.default_rng(4)).z
    f = ux.BayesLaplaceFilter(model, 8, "refined")
    own = ux.bayes_laplace(f.first_prior_atoms(), f.likelihood, float(z[0]), eta=8).posterior
    assert f.step(0, float(z[0]), predict=False) == ux.Status.OK
    np.testing.assert_array_equal(f.posterior.x, own.x)
    np.testing.assert_array_equal(f.posterior.w, own.w)
    lo, hi = f.density.support()
    assert -20.0 <= lo < hi <= 20.0 and (lo, hi) == f.density.region  # within the prior's μ ± 10σ


def test_bracket_rule():
    x = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    # e = (e^-100, e^-1, 1, e^-50, 0): the second and third are kept (e^-50 < 2^-40); Σ e ≤ 2.
    region, concentrated, kept = _bracket(x, np.array([-100.0, -1.0, 0.0, -50.0, -np.inf]), -9.0, 9.0)
    assert region == (0.0, 3.0) and concentrated and kept == 2
    # The largest at an end: the support's end is the bound there; spread out, not concentrated.
    region, concentrated, kept = _bracket(x, np.array([0.0, -0.1, -0.2, -0.3, -np.inf]), -9.0, 9.0)
    assert region == (-9.0, 4.0) and not concentrated and kept == 4
    # Kept exactly at the floor, and nothing at all to bracket.
    region, _, kept = _bracket(x, np.array([-np.inf, math.log(REFOCUS_FLOOR), 0.0, -np.inf, -np.inf]), -9.0, 9.0)
    assert region[0] == 0.0 and kept == 2
    assert _bracket(x, np.full(5, -np.inf), -9.0, 9.0) is None


def test_paper_mode_keeps_the_papers_first_update():
    run, _ = lg_run(1000.0, 8, "paper", seed=0, T=1)
    assert run.status[0] == ux.Status.OK and run.densities[0].region is None


def test_mixture_mode_narrows_its_region_onto_a_narrow_likelihood():
    """gss far from 0: z = x²/20 pins x to a peak a few of the support's nodes wide. Every mixture-mode
    update's final region has at least REGION_NODES nodes at the floor, or could not be narrowed further;
    some updates did narrow (their region is a fraction of the mixture's support)."""
    model = systems.get("gss")
    tr = ux.traces.simulate_many(model, 1, 40, 2028)[0]
    run = run_filter(model, tr, 16, "mixture")
    narrowed = 0
    for d in run.densities[1:]:
        (lo, hi), _ = ux.filter.narrowed(d)  # its region, or with lumps the one it started from, narrowed
        t, _ = density_nodes(lo, hi)
        found = _bracket(t, d.log_numerator(t), lo, hi)
        assert found.kept >= REGION_NODES or found.region == (lo, hi)
        full_lo, full_hi = replace(d, region=None).support()
        narrowed += (hi - lo) < 0.5 * (full_hi - full_lo)
    assert narrowed >= 5, narrowed
