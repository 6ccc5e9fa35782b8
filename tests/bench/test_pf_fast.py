"""The tuned C bootstrap PF (benchmarks/c/src/pf_fast.c) against the plain one (pf.c) and the grid filter."""

import numpy as np
import pytest

import uxemu as ux
from uxbench import metrics
from uxbench.baselines import grid_filter
from uxemu import kalman, laws, native

SYSTEMS = ("sv", "gss", "cubic", "lg")


def traces(name, n, T, seed):
    return ux.simulate_many(ux.systems.get(name), n, T, seed)


@pytest.mark.parametrize("name", SYSTEMS)
def test_each_system_runs_and_is_supported(benchlib, name):
    model = ux.systems.get(name)
    assert benchlib.pf_fast_supports(model.system_id)
    tr = traces(name, 1, 40, 2)[0]
    run = benchlib.run_pf_fast(model.system_id, tr.k, tr.u, tr.z, 50, seed=4)
    assert run.mean.shape == run.var.shape == run.ess.shape == (40,) and run.x.shape == run.w.shape == (40, 50)
    assert np.isfinite(run.mean).all() and (run.var >= 0).all() and not run.fallback.any()
    assert ((run.ess >= 1 - 1e-9) & (run.ess <= 50 + 1e-9)).all() and np.isfinite(run.log_evidence).all()
    assert run.cpu_ns > 0


def test_seeded_runs_repeat_and_differ(benchlib):
    tr = traces("gss", 1, 30, 1)[0]
    a = benchlib.run_pf_fast(2, tr.k, tr.u, tr.z, 50, seed=9)
    b = benchlib.run_pf_fast(2, tr.k, tr.u, tr.z, 50, seed=9)
    c = benchlib.run_pf_fast(2, tr.k, tr.u, tr.z, 50, seed=10)
    d = benchlib.run_pf_fast(2, tr.k, tr.u, tr.z, 50, seed=9, particles=False)
    assert np.array_equal(a.x, b.x) and np.array_equal(a.w, b.w) and np.array_equal(a.mean, b.mean)
    assert np.array_equal(a.log_evidence, b.log_evidence)
    assert not np.array_equal(a.mean, c.mean)
    assert np.array_equal(a.mean, d.mean) and d.x is None


@pytest.mark.parametrize("name", SYSTEMS)
def test_weighted_sets_are_consistent(benchlib, name):
    model = ux.systems.get(name)
    tr = traces(name, 1, 20, 4)[0]
    run = benchlib.run_pf_fast(model.system_id, tr.k, tr.u, tr.z, 64, seed=3)
    assert np.allclose(run.w.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.allclose((run.w * run.x).sum(axis=1), run.mean, rtol=1e-10, atol=1e-10)
    var = (run.w * (run.x - run.mean[:, None]) ** 2).sum(axis=1)
    assert np.allclose(var, run.var, rtol=1e-8, atol=1e-14)
    assert np.allclose(1.0 / (run.w**2).sum(axis=1), run.ess, rtol=1e-10)


@pytest.mark.parametrize("name", SYSTEMS)
def test_first_step_posterior_matches_exact_bayes(benchlib, name):
    """Step 0 weighs prior draws (ziggurat normals) by the likelihood: mean and variance must be the grid
    filter's within the Monte Carlo error — a wrong normal, kernel or dropped constant would show here."""
    model = ux.systems.get(name)
    for tr in traces(name, 3, 1, 11):
        g = grid_filter(model, tr, n_points=3001)
        run = benchlib.run_pf_fast(model.system_id, tr.k, tr.u, tr.z, 40_000, seed=5, particles=False)
        se = np.sqrt(g.var[0] / run.ess[0])
        assert abs(run.mean[0] - g.mean[0]) < 5 * se, (run.mean[0], g.mean[0], se)
        assert run.var[0] == pytest.approx(g.var[0], rel=0.1)


def test_lg_matches_the_kalman_filter(benchlib):
    """On the linear-Gaussian system the exact posterior is Kalman's: propagation and the normal's
    variance are checked over several steps, and the evidence estimate against the exact one."""
    model = ux.systems.get("lg")
    tr = traces("lg", 1, 15, 3)[0]
    kf = kalman.for_model(model, tr.z)
    run = benchlib.run_pf_fast(model.system_id, tr.k, tr.u, tr.z, 200_000, seed=1, particles=False)
    se = np.sqrt(kf.var / run.ess)
    assert np.all(np.abs(run.mean - kf.mean) < 5 * se), (run.mean - kf.mean) / se
    assert run.var == pytest.approx(kf.var, rel=0.03)
    assert np.sum(run.log_evidence) == pytest.approx(kf.log_likelihood, abs=0.05)


@pytest.mark.parametrize("name", SYSTEMS)
def test_rmse_over_20_traces_matches_the_plain_pf(benchlib, name):
    """Same filter, different generators (and cubic's inner noise sampled instead of integrated): on 20
    traces the mean RMSE at 100 particles must agree with pf.c's within 4 standard errors of the paired
    difference."""
    model = ux.systems.get(name)
    diffs = []
    for t, tr in enumerate(traces(name, 20, 60, 21)):
        for r in range(3):
            old = benchlib.run_pf(model.system_id, tr.k, tr.u, tr.z, 100, seed=1000 * t + r, particles=False)
            new = benchlib.run_pf_fast(model.system_id, tr.k, tr.u, tr.z, 100, seed=1000 * t + r + 500, particles=False)
            diffs.append(metrics.rmse(new.mean, tr.x) - metrics.rmse(old.mean, tr.x))
    d, se = np.mean(diffs), np.std(diffs, ddof=1) / np.sqrt(len(diffs))
    assert abs(d) < 4 * se + 1e-12, (d, se)


@pytest.mark.parametrize("name,tol", [("sv", 0.05), ("gss", 0.12), ("cubic", 0.05), ("lg", 0.03)])
def test_rmse_approaches_the_grid_filter(benchlib, name, tol):
    model = ux.systems.get(name)
    pf, grid = [], []
    for t, tr in enumerate(traces(name, 2, 30, 8)):
        grid.append(metrics.rmse(grid_filter(model, tr, n_points=1001).mean, tr.x))
        pf += [
            metrics.rmse(
                benchlib.run_pf_fast(model.system_id, tr.k, tr.u, tr.z, 1000, seed=77 * t + r, particles=False).mean,
                tr.x,
            )
            for r in range(4)
        ]
    assert np.mean(pf) == pytest.approx(np.mean(grid), rel=tol)


def test_all_zero_likelihood_keeps_equal_weights_and_flags(benchlib):
    """An observation no particle can explain (an infinite reading) is the fallback, not a NaN."""
    k, u, z = np.arange(3), np.zeros(3), np.array([0.4, np.inf, 0.4])
    run = benchlib.run_pf_fast(3, k, u, z, 32, seed=1)
    assert run.fallback.tolist() == [False, True, False]
    assert np.allclose(run.w[1], 1 / 32) and np.isfinite(run.mean).all()


def test_bad_arguments_are_refused(benchlib):
    tr = traces("sv", 1, 5, 1)[0]
    with pytest.raises(native.NativeError):
        benchlib.run_pf_fast(1, tr.k, tr.u, tr.z, 0, seed=1)
    with pytest.raises(native.NativeDomainError):
        benchlib.run_pf_fast(1, tr.k, tr.u, tr.z, 10, seed=1, params=[0.98, 0.0, -0.2, 1.0])
    with pytest.raises(native.NativeError):  # Student-t priors cannot be sampled
        benchlib.run_pf_fast(1, tr.k, tr.u, tr.z, 10, seed=1, prior=("student_t", 3.0, 0.0))


def test_non_gaussian_prior_is_sampled(benchlib):
    """A Laplace prior goes through the shared sampler: step 0 must still match exact Bayes."""
    model = ux.systems.get("lg")
    for tr in traces("lg", 3, 1, 5):
        g = grid_filter(model, tr, n_points=3001, prior=laws.Laplace(0.5, 1.0))
        run = benchlib.run_pf_fast(
            model.system_id, tr.k, tr.u, tr.z, 40_000, seed=2, particles=False, prior=("laplace", 0.5, 1.0)
        )
        se = np.sqrt(g.var[0] / run.ess[0])
        assert abs(run.mean[0] - g.mean[0]) < 5 * se, (run.mean[0], g.mean[0], se)
        assert run.var[0] == pytest.approx(g.var[0], rel=0.1)
