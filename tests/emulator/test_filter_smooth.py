"""Smooth refined (docs/semantics.md, "Filter"): each atom carries its bin spread through the transition, the
update falls back on the quadrature when its points are too few, and the variance is the binned density's.
Oracles: the binned density integrated numerically, the Kalman filter on the local-level model."""

import math

import numpy as np
import pytest

import uxemu as ux
from uxemu import run_filter, systems
from uxemu._density import bin_spreads, bins_rows
from uxemu.filter import REFOCUS_ESS, BayesLaplaceFilter, point_edges, standard_noise
from uxemu.kalman import kalman_filter
from uxemu.laws import Laplace


def local_level(q: float, prior_sd: float, T: int, seed: int, r: float = 1.0):
    """A local-level trace (x' = x + N(0, q²), z = x + N(0, r²)) and its model with a prior centred on z₀."""
    rng = np.random.default_rng(seed)
    x = np.cumsum(np.r_[0.0, rng.normal(0.0, q, T - 1)])
    z = x + rng.normal(0.0, r, T)
    model = systems.get("lg", prior=(float(z[0]), prior_sd), a=1.0, q=q, r=r)
    return model, ux.Trace(np.arange(T), np.zeros(T), z)


def test_bin_spreads_are_the_binned_density_s_own_variance():
    """Σ w·(x − m)² + Σ w·v is the variance of the value's TTR-binned density, integrated exactly over its bins."""
    v = ux.gaussian(1.0, 2.0, eta=16) * ux.uniform(0.5, 1.5, eta=16)
    edges, heights = (a[0] for a in bins_rows(v.x[None, :], v.w[None, :]))
    lo, hi = edges[:-1], edges[1:]
    mean = np.sum(heights * (hi**2 - lo**2) / 2.0)
    var = np.sum(heights * (hi**3 - lo**3) / 3.0) - mean * mean
    assert v.var() + np.sum(v.w * bin_spreads(v.x, v.w)) == pytest.approx(var, rel=1e-10)
    assert np.all(bin_spreads(np.array([2.0]), np.array([1.0])) == 0.0)
    # two atoms of equal mass: the split point halfway, each atom's bins reach a = b = 1/2 → v = 1/12
    np.testing.assert_allclose(bin_spreads(np.array([0.0, 1.0]), np.array([0.5, 0.5])), [1 / 12, 1 / 12])


@pytest.mark.parametrize("eta", [2, 8, 64])
def test_the_noise_atoms_are_standardised(eta):
    e = standard_noise(eta)
    assert abs(np.sum(e.w * e.x)) < 1e-15 and np.sum(e.w * e.x * e.x) == pytest.approx(1.0, abs=1e-14)


def test_smooth_is_refined_with_additive_gaussian_noise_only():
    assert BayesLaplaceFilter(systems.get("lg"), 8).smooth
    assert not BayesLaplaceFilter(systems.get("lg"), 8, "paper").smooth
    assert not BayesLaplaceFilter(systems.get("lg"), 8, "mixture").smooth
    laplace_noise = ux.StateSpaceModel(
        "lap",
        lambda x, w, k, u: x + w,
        Laplace(0.0, 1.0),
        ux.laws.Normal(0.0, 1.0),
        systems.get("lg").sampler,
        systems.get("lg").kernel,
        additive_noise=True,
    )
    assert not BayesLaplaceFilter(laplace_noise, 8).smooth


@pytest.mark.parametrize("q, prior_sd", [(10.0, 100.0), (1.0, 1.0), (1.0, 1e4)])
def test_follows_the_kalman_filter_where_refined_lost_it(q, prior_sd):
    """η = 16, 3 seeds × 200 steps (benchmarks/results/regimes.md): a precise sensor on a fast state (q/r = 10,
    where refined was 9–15 sd off) and q/r = 1, a prior r, 100 r or 1e4 r wide centred on the first reading: mean
    within 0.1 Kalman sd at every step, variance 0.8–1.25×. (q/r ≤ 0.1 misses these bounds: regimes.md.)"""
    for seed in range(3):
        model, tr = local_level(q, prior_sd, 200, seed)
        run = run_filter(model, tr, 16)
        k = kalman_filter(tr.z, 1.0, q, 1.0, float(tr.z[0]), prior_sd)
        err = np.abs(run.mean - k.mean) / np.sqrt(k.var)
        ratio = run.var / k.var
        assert err.max() < 0.1, (seed, err.max())
        assert 0.8 <= ratio.min() and ratio.max() <= 1.25, (seed, ratio.min(), ratio.max())


def test_a_near_static_state_keeps_its_variance():
    """q/r = 0.01 over 200 steps at η = 32: the belief does not degenerate onto fixed atoms (refined's variance fell
    to a few per cent of the Kalman filter's there): every step within 0.5 sd, variance 0.5–2×."""
    for seed in range(3):
        model, tr = local_level(0.01, 1.0, 200, seed)
        run = run_filter(model, tr, 32)
        k = kalman_filter(tr.z, 1.0, 0.01, 1.0, float(tr.z[0]), 1.0)
        assert np.max(np.abs(run.mean - k.mean) / np.sqrt(k.var)) < 0.5
        assert 0.5 <= np.min(run.var / k.var) and np.max(run.var / k.var) <= 2.0


def test_too_few_points_take_the_quadrature_and_say_so_only_at_the_first_update(weighed):
    """q/r = 10: the η² points are far apart for a likelihood of width r, so every update builds its posterior from
    the quadrature: its evidence is the density's log Z; the first reports REFOCUSED, the others OK."""
    model, tr = local_level(10.0, 100.0, 30, 4)
    run = run_filter(model, tr, 8)
    assert run.status[0] == ux.Status.REFOCUSED and np.all(run.status[1:] == ux.Status.OK)
    np.testing.assert_array_equal(run.log_evidence[1:], run.density_log_evidence[1:])
    model, tr = local_level(1.0, 1.0, 30, 4)  # points enough: the update's own evidence
    f = BayesLaplaceFilter(model, 16)
    f.step(0, float(tr.z[0]), predict=False)
    atoms = f.predict(1)
    res = ux.bayes_laplace(atoms, f.likelihood, float(tr.z[1]), eta=16)
    assert res.ess >= REFOCUS_ESS * 16
    f.update(atoms, float(tr.z[1]))
    assert f.log_evidence == res.log_evidence


def test_run_filter_takes_a_plain_array_of_observations():
    """A 1-D array is a trace with k = 0, 1, … and u = 0: the same bits as the Trace spelled out."""
    model = systems.get("lg")
    z = np.array([0.3, -0.1, np.nan, 0.4])
    spelled = ux.run_filter(model, ux.Trace(np.arange(4), np.zeros(4), z), 8)
    plain = ux.run_filter(model, z, 8)
    np.testing.assert_array_equal(plain.mean, spelled.mean)
    np.testing.assert_array_equal(plain.var, spelled.var)
    with pytest.raises(ValueError, match="1-D"):
        ux.run_filter(model, np.zeros((3, 2)), 8)


def test_point_edges_sum_ties_in_order_and_index_first_occurrences():
    """The open edge's ends (ux/filter.c point_edges): per side the outermost position, the next one inward, the
    weight at the outermost summed in order over its ties, and the first index of each; ±∞ inward and index 0
    when every point sits at one position."""
    x = np.array([0.5, -2.0, 3.0, -2.0, 3.0, 1.0, -1.0])
    w = np.array([0.1, 0.2, 0.05, 0.3, 0.15, 0.1, 0.1])
    e = point_edges(x, w)
    assert e.edge == (-2.0, 3.0) and e.inner == (-1.0, 1.0)
    assert e.weight == (0.2 + 0.3, 0.05 + 0.15) and e.total == sum(w.tolist())
    assert e.at == (1, 6, 2, 5) and e.has_inner
    one = point_edges(np.full(3, 4.0), np.full(3, 1 / 3))
    assert one.inner == (math.inf, -math.inf) and one.at == (0, 0, 0, 0) and not one.has_inner
