"""The C bootstrap PF (benchmarks/c/src/pf.c) and the whole-trace ux runner, through uxbench.pf_native."""

import numpy as np
import pytest

import uxemu as ux
from uxbench import metrics
from uxbench.baselines import bootstrap_filter, grid_filter
from uxemu import native

SYSTEMS = ux.systems.with_twin()


def traces(name, n, T, seed):
    return ux.simulate_many(ux.systems.get(name), n, T, seed)


@pytest.mark.parametrize("name", SYSTEMS)
def test_first_step_posterior_matches_exact_bayes(benchlib, name):
    """Step 0 weighs prior draws by the likelihood: with many particles its mean and variance must be
    the exact posterior's (grid filter) to within the Monte Carlo error — a wrong kernel, scale or
    inner-noise sum would move them by many standard errors."""
    model = ux.systems.get(name)
    for tr in traces(name, 3, 1, 11):
        g = grid_filter(model, tr, n_points=3001)
        run = benchlib.run_pf(model.system_id, tr.k, tr.u, tr.z, 40_000, seed=5, particles=False)
        se = np.sqrt(g.var[0] / run.ess[0])
        assert abs(run.mean[0] - g.mean[0]) < 5 * se, (run.mean[0], g.mean[0], se)
        assert run.var[0] == pytest.approx(g.var[0], rel=0.1)


@pytest.mark.parametrize("name,runs", [("sv", 30), ("gss", 30), ("cubic", 12)])
def test_rmse_over_seeds_matches_the_numpy_pf(benchlib, name, runs):
    """Same algorithm, different generators: the mean RMSE over seeds must agree within the noise."""
    model = ux.systems.get(name)
    diffs = []
    for t, tr in enumerate(traces(name, 3, 40, 3)):
        c = [
            metrics.rmse(
                benchlib.run_pf(model.system_id, tr.k, tr.u, tr.z, 100, seed=1000 * t + r, particles=False).mean, tr.x
            )
            for r in range(runs)
        ]
        p = [
            metrics.rmse(bootstrap_filter(model, tr, 100, np.random.default_rng([t, r])).mean, tr.x)
            for r in range(runs)
        ]
        diffs.append((np.mean(c) - np.mean(p), (np.var(c, ddof=1) + np.var(p, ddof=1)) / runs))
    d = sum(x for x, _ in diffs) / len(diffs)
    se = np.sqrt(sum(v for _, v in diffs)) / len(diffs)
    assert abs(d) < 4 * se + 1e-12, (d, se)


@pytest.mark.parametrize("name,tol", [("sv", 0.05), ("gss", 0.12), ("cubic", 0.05)])
def test_rmse_approaches_the_grid_filter(benchlib, name, tol):
    model = ux.systems.get(name)
    pf, grid = [], []
    for t, tr in enumerate(traces(name, 2, 30, 8)):
        grid.append(metrics.rmse(grid_filter(model, tr, n_points=1001).mean, tr.x))
        pf += [
            metrics.rmse(
                benchlib.run_pf(model.system_id, tr.k, tr.u, tr.z, 1000, seed=77 * t + r, particles=False).mean, tr.x
            )
            for r in range(4)
        ]
    assert np.mean(pf) == pytest.approx(np.mean(grid), rel=tol)


def test_seeded_runs_repeat_and_differ(benchlib):
    tr = traces("gss", 1, 30, 1)[0]
    a = benchlib.run_pf(2, tr.k, tr.u, tr.z, 50, seed=9)
    b = benchlib.run_pf(2, tr.k, tr.u, tr.z, 50, seed=9)
    c = benchlib.run_pf(2, tr.k, tr.u, tr.z, 50, seed=10)
    d = benchlib.run_pf(2, tr.k, tr.u, tr.z, 50, seed=9, particles=False)
    assert np.array_equal(a.x, b.x) and np.array_equal(a.w, b.w) and np.array_equal(a.mean, b.mean)
    assert not np.array_equal(a.mean, c.mean)
    assert np.array_equal(a.mean, d.mean) and d.x is None


def test_weighted_sets_are_consistent(benchlib):
    tr = traces("sv", 1, 20, 4)[0]
    run = benchlib.run_pf(1, tr.k, tr.u, tr.z, 64, seed=3)
    assert np.allclose(run.w.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert np.allclose((run.w * run.x).sum(axis=1), run.mean, rtol=1e-12, atol=1e-12)
    var = (run.w * (run.x - run.mean[:, None]) ** 2).sum(axis=1)
    assert np.allclose(var, run.var, rtol=1e-10)
    assert np.allclose(1.0 / (run.w**2).sum(axis=1), run.ess, rtol=1e-10)
    assert not run.fallback.any()


def test_all_zero_likelihood_keeps_equal_weights_and_flags(benchlib):
    """An observation no particle can explain (an infinite reading) is the fallback, not a NaN."""
    k, u, z = np.arange(3), np.zeros(3), np.array([0.4, np.inf, 0.4])
    run = benchlib.run_pf(3, k, u, z, 32, seed=1)
    assert run.fallback.tolist() == [False, True, False]
    assert np.allclose(run.w[1], 1 / 32) and np.isfinite(run.mean).all()


def test_bad_arguments_are_refused(benchlib):
    tr = traces("sv", 1, 5, 1)[0]
    with pytest.raises(native.NativeError):
        benchlib.run_pf(1, tr.k, tr.u, tr.z, 0, seed=1)
    with pytest.raises(native.NativeError):
        benchlib.run_pf(3, tr.k, tr.u, tr.z, 10, seed=1, inner_eta=3)
    with pytest.raises(native.NativeDomainError):
        benchlib.run_pf(1, tr.k, tr.u, tr.z, 10, seed=1, params=[0.98, 0.0, -0.2, 1.0])
    with pytest.raises(native.NativeError):  # Student-t priors cannot be sampled by the PF
        benchlib.run_pf(1, tr.k, tr.u, tr.z, 10, seed=1, prior=("student_t", 3.0, 0.0))


@pytest.mark.parametrize(
    "name,eta,mode,lik",
    [("sv", 8, "refined", "kernel"), ("gss", 16, "paper", "sampler"), ("cubic", 8, "refined", "sampler")],
)
def test_whole_trace_runner_is_the_filter(benchlib, name, eta, mode, lik):
    """One C call per trace gives bit for bit what the step-by-step binding gives."""
    nat = native.load()
    model = ux.systems.get(name)
    tr = traces(name, 1, 15, 2)[0]
    run = benchlib.run_ux(model.system_id, tr.k, tr.u, tr.z, eta, mode, lik)
    ref = nat.run_filter(model.system_id, tr.k, tr.u, tr.z, eta=eta, mode=mode, likelihood=lik)
    assert np.array_equal(run.mean, ref.mean) and np.array_equal(run.var, ref.var)
    for t, (x, w) in enumerate(ref.posteriors):
        rx, rw = run.atoms(t)
        assert np.array_equal(rx, x) and np.array_equal(rw, w)
    assert run.elapsed_ns > 0 and 0 < run.cpu_ns <= 2 * run.elapsed_ns
