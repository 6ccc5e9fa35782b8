"""Mixture mode (docs/semantics.md, "Filter"): refined, except that where the posterior has a quadrature
density its atoms are TTR of that density's piecewise-linear interpolant and its evidence is its log Z."""

import dataclasses
import math

import numpy as np
import pytest

import uxemu as ux
from uxemu import run_filter, simulate, systems
from uxemu.joint_filter import JointFilter
from uxemu.kalman import kalman_filter
from uxemu.laws import Normal

SCALAR = ("sv", "gss", "cubic", "lg")


def trace(name: str, T: int = 30, seed: int = 5):
    return simulate(systems.get(name), T, np.random.default_rng(seed))


@pytest.mark.parametrize("name", SCALAR)
def test_every_evidence_is_its_densitys_log_z(name):
    run = run_filter(systems.get(name), trace(name), 8, "mixture")
    assert all(d.form != "bins" for d in run.densities)
    np.testing.assert_array_equal(run.log_evidence, run.density_log_evidence)
    assert run.log_likelihood == ux.filter.sum_in_order(run.density_log_evidence)


@pytest.mark.parametrize("name", SCALAR)
def test_first_update_is_the_refined_filters_density(name):
    """The first update weighs the same prior law in both modes; mixture mode's evidence is exactly what
    the refined filter's density reports, not the refined filter's own η²-point evidence."""
    tr = trace(name, T=1)
    mix, ref = run_filter(systems.get(name), tr, 8, "mixture"), run_filter(systems.get(name), tr, 8, "refined")
    assert mix.log_evidence[0] == ref.density_log_evidence[0]
    assert mix.log_evidence[0] != ref.log_evidence[0]


@pytest.mark.parametrize("name", SCALAR)
def test_posterior_keeps_the_interpolants_mean(name):
    """TTR preserves the mean: the η atoms have the mean of the piecewise-linear density through the 129
    nodes, integrated here interval by interval, and of the lumps beside them."""
    f = ux.BayesLaplaceFilter(systems.get(name), 8, "mixture")
    tr = trace(name, T=6)
    for k in range(len(tr)):
        f.step(int(tr.k[k]), float(tr.z[k]))
        q = f.density.quadrature()
        t, e, h = q.t, q.e, q.h
        lumps = np.array([[lump.at, np.exp(lump.log_mass - q.top)] for lump in q.lumps]).reshape(-1, 2)
        moments = h * (t[:-1] * (2 * e[:-1] + e[1:]) + t[1:] * (e[:-1] + 2 * e[1:])) / 6
        mass = (h * (e[:-1] + e[1:]) / 2).sum() + lumps[:, 1].sum()
        nodes_mean = float((moments.sum() + (lumps[:, 0] * lumps[:, 1]).sum()) / mass)
        assert abs(f.posterior.mean() - nodes_mean) <= 1e-12 * (abs(nodes_mean) + np.sqrt(f.posterior.var()))
        assert len(f.posterior) <= 8 and abs(f.posterior.w.sum() - 1.0) < 1e-15


def test_bins_density_leaves_the_refined_update():
    """More evidence points than η: the density is the bins, and mixture mode is refined mode exactly (without
    the smooth path: the model without its additive-noise declaration)."""
    model = dataclasses.replace(systems.get("sv"), additive_noise=False)
    fs = {mode: ux.BayesLaplaceFilter(model, 4, mode) for mode in ("refined", "mixture")}
    z = np.linspace(-1.0, 1.0, 9)
    for k in range(4):
        for f in fs.values():
            f.step(k, (z + 0.1 * k, np.full(z.size, 1.0 / z.size)))
        assert fs["mixture"].density.form == "bins"
        np.testing.assert_array_equal(fs["mixture"].posterior.x, fs["refined"].posterior.x)
        assert fs["mixture"].log_evidence == fs["refined"].log_evidence


def test_missing_observation_is_a_refined_step():
    tr = trace("gss", T=8)
    tr.z[[0, 4]] = np.nan
    run = run_filter(systems.get("gss"), tr, 8, "mixture")
    assert list(np.flatnonzero(run.status == ux.Status.NO_EVIDENCE)) == [0, 4]
    assert run.log_evidence[0] == 0 and run.log_evidence[4] == 0


def test_linear_gaussian_log_likelihood_follows_kalman():
    """The closed form: log L within 1e-3 nats per step of the Kalman filter's at η = 16 (measured
    ≤ 6.1e-4 on these traces; refined mode ≤ 1.0e-3)."""
    model = systems.get("lg")
    A, Q, R = systems.spec("lg").defaults
    m0, s0 = model.prior.location_scale()
    for seed in range(3):
        tr = simulate(model, 200, np.random.default_rng(100 + seed))
        k = kalman_filter(tr.z, A, Q, R, m0, s0)
        run = run_filter(model, tr, 16, "mixture")
        assert abs(run.log_likelihood - k.log_likelihood) / len(tr) < 1e-3


def test_diffuse_prior_follows_kalman():
    """A prior 8× the observation noise: over 20 traces × 50 steps at η = 8 the worst mean error is 0.039
    Kalman sd in mixture mode (weighed atoms and the density's quadrature) and 0.00037 in refined mode, whose
    updates of this linear-Gaussian sensor are the linear update (docs/semantics.md; 0.16 when it weighed them)."""
    A, Q, R = systems.spec("lg").defaults
    model = systems.get("lg", prior=(0.0, 8.0 * R))
    worst = {}
    for mode in ("refined", "mixture"):
        errs = []
        for seed in range(20):
            tr = simulate(model, 50, np.random.default_rng(seed))
            k = kalman_filter(tr.z, A, Q, R, 0.0, 8.0 * R)
            errs.append(np.max(np.abs(run_filter(model, tr, 8, mode).mean - k.mean) / np.sqrt(k.var)))
        worst[mode] = max(errs)
    assert worst["mixture"] < 0.1 and worst["refined"] < 0.01


def test_joint_filter_refuses_mixture_mode():
    from uxemu import joint_systems

    with pytest.raises(ValueError, match="joint filter"):
        JointFilter(joint_systems.get("pendulum"), 8, "mixture")


def test_first_posterior_of_a_diffuse_prior_has_kalmans_variance():
    """A prior 8× the observation noise spreads the 128 intervals at 1.25 noise sd: the linear interpolant
    alone would add h²/6 (variance 1.26× Kalman's at η = 64); with it taken out, 0.998×."""
    A, Q, R = systems.spec("lg").defaults
    model = systems.get("lg", prior=(0.0, 8.0 * R))
    for seed in range(3):
        tr = simulate(model, 1, np.random.default_rng(seed))
        k = kalman_filter(tr.z, A, Q, R, 0.0, 8.0 * R)
        run = run_filter(model, tr, 64, "mixture")
        assert abs(run.var[0] / k.var[0] - 1) < 0.01
        assert abs(run.mean[0] - k.mean[0]) < 0.01 * np.sqrt(k.var[0])


def test_components_carry_the_cells_spread_through_the_transition():
    """Mixture mode: each posterior atom stands for a cell of the law; the next predictive component is
    N(f(x_i, 0), σ² + τ_i²), τ_i the cell's spread carried through f — on lg (f = a·x) τ_i = a·√v_i. The
    smooth refined filter's carry its kernel belief's spreads the same way, and that belief (atoms shrunk
    about their mean, spreads grown) has the posterior's mean and variance."""
    a, q, _ = systems.spec("lg").defaults
    tr = trace("lg", T=3)
    f = ux.BayesLaplaceFilter(systems.get("lg"), 8, "mixture")
    f.step(0, float(tr.z[0]), predict=False)
    spreads = f._spreads.copy()
    assert spreads.shape == f.posterior.x.shape and np.all(spreads > 0)
    f.predict(1)
    _, _, scales = f._pending
    np.testing.assert_allclose(scales, np.sqrt(q * q + a * a * spreads), rtol=1e-12)
    g = ux.BayesLaplaceFilter(systems.get("lg"), 8, "refined")
    g.step(0, float(tr.z[0]), predict=False)
    g._info = 0.0  # as after an update that took nothing from the variance: the kernel in full
    belief, v = g._kernel_belief()
    w = g.posterior.w
    assert np.all(v > 0) and np.any(belief.x != g.posterior.x)  # the kernel moved variance into the spreads
    mean = np.sum(w * belief.x)
    assert mean == pytest.approx(g.posterior.mean(), rel=1e-12)
    assert np.sum(w * (belief.x - mean) ** 2) + np.sum(w * v) == pytest.approx(g.variance(), rel=1e-12)
    g.predict(1)
    np.testing.assert_allclose(g._pending[0], a * belief.x, rtol=1e-12)
    np.testing.assert_allclose(g._pending[2], np.sqrt(q * q + a * a * v), rtol=1e-12)


def test_a_cell_goes_through_f_as_its_two_points():
    """A cell of mean x and variance v goes through f as x ± √v: on f(x) = x² its centre is x² + v, the mean
    of f over any law with that mean and variance (f at the mean, x², sits below every image of a cell
    around 0), and its scale sqrt(σ² + (2·x·√v)²)."""
    sigma, mu = 0.5, 0.25
    model = ux.StateSpaceModel(
        "square",
        lambda x, w, k, u: x * x + w,
        Normal(mu, sigma),
        Normal(0.0, 1.0),
        ux.Sampler(lambda x, v: x + v, (Normal(0.0, 1.0),)),
        ux.Kernel("gaussian", lambda x: (x, 1.0 + 0.0 * x)),
        additive_noise=True,
    )
    x, v = np.array([-1.5, -0.1, 0.0, 2.0]), np.array([0.3, 4.0, 0.01, 0.0])
    belief = ux.Value(x, np.full(4, 0.25), 4)
    centres, _, scales = ux.filter.mixture_components(model, belief, 1, 0.0, spreads=v)
    np.testing.assert_allclose(centres, x * x + v + mu, rtol=1e-12)
    np.testing.assert_allclose(scales, np.sqrt(sigma * sigma + 4 * x * x * v), rtol=1e-12)
    plain, _, unit = ux.filter.mixture_components(model, belief, 1, 0.0)
    np.testing.assert_array_equal(plain, x * x + mu)
    assert np.all(unit == sigma)


@pytest.mark.parametrize("name", SCALAR)
def test_atoms_and_spreads_hold_the_nodes_variance(name):
    """The atoms (less the interpolation's h²/6) and their cells' spreads together carry the variance of
    the quadrature's nodes and lumps: what the next predictive mixture inherits."""
    f = ux.BayesLaplaceFilter(systems.get(name), 8, "mixture")
    tr = trace(name, T=4)
    for i in range(len(tr.z)):
        f.step(int(tr.k[i]), float(tr.z[i]), float(tr.u[i]), predict=i > 0)
        q = f.density.quadrature()
        c = np.ones_like(q.e)
        c[0] = c[-1] = 0.5
        g = np.concatenate([c * q.e, [np.exp(lump.log_mass - q.top) / q.h for lump in q.lumps]])
        t = np.concatenate([q.t, [lump.at for lump in q.lumps]])
        within = np.concatenate([np.zeros(q.t.size), [lump.spread for lump in q.lumps]])
        p = g / g.sum()
        nodes_var = np.dot(p, (t - np.dot(p, t)) ** 2 + within)
        x, w = f.posterior.x, f.posterior.w
        total = np.dot(w, (x - np.dot(w, x)) ** 2) + np.dot(w, f._spreads)
        assert abs(total - nodes_var) <= 1e-9 * nodes_var, (name, i, total, nodes_var)


def test_a_diffuse_prior_tracks_the_kalman_filter_at_eta_8():
    """The issue's target on lg with a prior 8× the observation noise: at η = 8 every step's mean within
    0.1 Kalman sd and its variance within 20 % (benchmarks/results/diffuse_prior.md: 20 traces)."""
    a, q, r = systems.spec("lg").defaults
    model = systems.get("lg", prior=(0.0, 8.0 * r))
    for seed in range(4):
        tr = simulate(model, 50, np.random.default_rng(seed))
        run = run_filter(model, tr, 8, "mixture")
        k = kalman_filter(tr.z, a, q, r, 0.0, 8.0 * r)
        assert np.max(np.abs(run.mean - k.mean) / np.sqrt(k.var)) <= 0.1, seed
        assert np.max(np.abs(run.var / k.var - 1.0)) <= 0.2, seed


def _square_model(sigma: float, mu: float):
    return ux.StateSpaceModel(
        "square",
        lambda x, w, k, u: x * x + w,
        Normal(mu, sigma),
        Normal(0.0, 1.0),
        ux.Sampler(lambda x, v: x + v, (Normal(0.0, 1.0),)),
        ux.Kernel("gaussian", lambda x: (x, 1.0 + 0.0 * x)),
        additive_noise=True,
    )


def test_a_bent_cell_splits_into_its_two_points():
    """Smooth refined from η = 4: a cell whose images x ± √v lie more than σ apart, with f(x) more than CELL_BEND of their
    half-distance off their midpoint, is two components f(x ± √v) + μ of scale σ and half the weight each —
    the same mean and variance as the one Gaussian it replaces; every other cell stays one component."""
    sigma, mu = 0.5, 0.25
    model = _square_model(sigma, mu)
    x, v = np.array([-1.5, -0.1, 2.0]), np.array([0.3, 4.0, 0.0])  # bent; |τ| = 0.4 ≤ σ; no spread
    belief = ux.Value(x, np.array([0.5, 0.25, 0.25]), 4)
    c, w, s, split = ux.filter.cell_components(model, belief, 1, 0.0, spreads=v, split=True)
    r = math.sqrt(0.3)
    np.testing.assert_array_equal(split, [True, True, False, False])
    np.testing.assert_array_equal(c[:2], [(-1.5 - r) ** 2 + mu, (-1.5 + r) ** 2 + mu])
    np.testing.assert_array_equal(w, [0.25, 0.25, 0.25, 0.25])
    np.testing.assert_array_equal(s[:2], [sigma, sigma])
    one_c, _, one_s = ux.filter.mixture_components(model, belief, 1, 0.0, spreads=v)  # mixture mode: no split
    mean = (c[0] + c[1]) / 2
    assert mean == pytest.approx(one_c[0], rel=1e-15)
    assert sigma**2 + ((c[1] - c[0]) / 2) ** 2 == pytest.approx(one_s[0] ** 2, rel=1e-14)
    np.testing.assert_array_equal(c[2:], one_c[1:])
    np.testing.assert_array_equal(s[2:], one_s[1:])


def test_a_line_never_splits_a_cell():
    """A linear transition bends nothing, however wide the cell against σ: the near-static local level keeps
    one component per atom."""
    model = systems.get("lg", q=1e-3)
    belief = ux.Value(np.array([-3.0, 0.0, 4.0]), np.array([0.25, 0.5, 0.25]), 4)
    c, _, _, split = ux.filter.cell_components(model, belief, 1, 0.0, spreads=np.array([1.0, 2.0, 3.0]), split=True)
    assert c.size == 3 and not split.any()


def test_half_noise_merges_sibling_pairs():
    """A split cell's noise atoms: the η atoms' sibling pairs merged, standardised to mean 0, variance 1."""
    full = ux.filter.standard_noise(16)
    half = ux.filter.half_noise(full)
    assert half.x.size == 8 and half.eta == 8
    np.testing.assert_allclose(half.w, full.w[0::2] + full.w[1::2], rtol=0, atol=0)
    assert np.sum(half.w * half.x) == pytest.approx(0.0, abs=1e-15)
    assert np.sum(half.w * half.x**2) == pytest.approx(1.0, rel=1e-14)
    assert np.all(np.diff(half.x) > 0)


def _mixture_moments(c, w, s):
    total = w.sum()
    mean = np.dot(w, c) / total
    return mean, (np.dot(w, (c - mean) ** 2) + np.dot(w, s * s)) / total


def test_widened_components_keep_the_mixtures_mean_and_variance():
    """Mixture mode's comb: every scale raised to its comb width, the centres shrunk by what that adds."""
    rng = np.random.default_rng(36)
    for _ in range(200):
        n = int(rng.integers(2, 65))
        c, w = np.sort(rng.normal(0.0, 1.0, n)), rng.dirichlet(np.ones(n))
        s, h = rng.uniform(1e-4, 0.05, n), float(rng.uniform(0.01, 0.3))
        wc, ww, ws = ux.filter.widened_components((c, w, s), h)
        mean, var = _mixture_moments(c, w, s)
        got_mean, got_var = _mixture_moments(wc, ww, ws)
        assert abs(got_mean - mean) <= 1e-12 * (abs(mean) + math.sqrt(var))
        assert abs(got_var - var) <= 1e-12 * var
        assert np.all(ws >= s) and np.array_equal(ww, w)
        total = w.sum()
        want = ux.filter.comb_widths(c, h, ux.filter.comb_mean_gap(c, w, s, total, np.dot(w, c) / total))
        capped = np.dot(w, np.maximum(s, want) ** 2 - s * s) > ux.filter.KERNEL_CAP * np.dot(w, (c - mean) ** 2)
        assert capped or np.all(ws >= want * (1 - 1e-15))


def test_comb_widths_read_the_node_spacing_and_the_nearer_centre():
    """Half the distance to the nearer neighbour, at most half the mean spacing, at least COMB_SPAN·h."""
    c = np.array([0.0, 1.0, 2.0, 3.0, 10.0])  # nearer gaps 1, 1, 1, 1, 7; mean spacing 2.5
    np.testing.assert_array_equal(ux.filter.comb_widths(c, 0.1, 2.5), [0.5, 0.5, 0.5, 0.5, 1.25])
    np.testing.assert_array_equal(ux.filter.comb_widths(c, 0.8, 2.5), [0.8, 0.8, 0.8, 0.8, 1.25])
    np.testing.assert_array_equal(ux.filter.comb_widths(c, 0.1, 0.0), np.full(5, 0.1))


def test_a_bimodal_mixture_widens_to_the_nodes_alone():
    """Between two modes the centres' spacing is the gap between them: no spacing term there."""
    w, s = np.array([0.16, 0.34, 0.34, 0.16]), np.full(4, 0.01)  # the cells of a Gaussian: coefficient 0.44
    one = np.array([-1.5, -0.5, 0.5, 1.5])
    two = np.array([-20.5, -19.5, 19.5, 20.5])
    assert ux.filter.comb_mean_gap(one, w, s, 1.0, 0.0) == 1.0
    assert ux.filter.comb_mean_gap(two, w, s, 1.0, 0.0) == 0.0
    assert ux.filter.comb_mean_gap(one[:1], w[:1], s[:1], 0.16, -1.5) == 0.0


def test_components_that_span_the_nodes_and_their_spacing_are_left():
    c, w = np.array([-1.0, 0.0, 1.0]), np.full(3, 1.0 / 3.0)
    assert ux.filter.widened_components((c, w, np.full(3, 0.5)), 0.1) is None
    assert ux.filter.widened_components((c, w, np.full(3, 0.4)), 0.1) is not None  # below half their spacing
    assert ux.filter.widened_components((np.zeros(3), w, np.full(3, 0.01)), 0.1) is None  # no variance to move
