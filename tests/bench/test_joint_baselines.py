"""The joint baselines (benchmarks/c/src/joint_*.c through uxbench.joint_native, and the 2-D grid filter of
uxbench.baselines.joint_grid) against exact answers: the Kalman filter on a linear-Gaussian 2-D system, the
grid on a few nonlinear steps, and their own determinism."""

import numpy as np
import pytest
from scipy import stats

from uxemu import joint_systems
from uxbench import joint_metrics as jm
from uxbench.baselines.joint_grid import joint_grid_filter

import joint_linear


@pytest.fixture(scope="module")
def jlib(benchlib):
    from uxbench import joint_native

    return joint_native.load()


@pytest.fixture(scope="module")
def linear_trace():
    return joint_systems.simulate(joint_linear.twin(), 30, seed=7)


def test_the_joint_mirrors_match_the_librarys_layout(jlib):
    """joint_native mirrors ux_joint_model and ux_joint_model_code to run the models' C code from the
    baselines; load() checks them against the library's layout table (firmware/host/abi.c), as the
    core's binding checks its own."""
    from uxbench import joint_native
    from uxemu import native

    assert native.layout_mismatches(jlib.lib, joint_native.MIRRORS) == []

    class Shorter(joint_native.ModelStruct.__base__):
        _fields_ = joint_native.ModelStruct._fields_[:-1]  # ux_joint_model without its code pointer

    assert "ux_joint_model has 10 fields in C, 9 here" in native.layout_mismatches(
        jlib.lib, {"ux_joint_model": Shorter}
    )


@pytest.mark.parametrize("method", ["ekf", "ukf"])
def test_ekf_and_ukf_are_the_kalman_filter_on_a_linear_gaussian_system(jlib, linear_trace, method):
    _, z = linear_trace
    model = joint_linear.CModel()
    run = jlib.run_kf(model.ptr, z, method, log_evidence=True)
    plain = jlib.run_kf(model.ptr, z, method)
    assert plain.log_evidence is None and plain.nis is None  # computed only when asked
    log_evidence, nis = [], []
    mean, cov = joint_linear.kalman(z, log_evidence, nis)
    assert not run.skipped.any()
    np.testing.assert_allclose(run.mean, mean, rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(run.cov, cov, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(run.log_evidence, log_evidence, rtol=1e-9, atol=1e-12)  # what a fit climbs
    np.testing.assert_allclose(run.nis, nis, rtol=1e-9, atol=1e-12)  # what a gate tests


def test_a_missing_reading_adds_nothing_to_the_kalman_log_likelihood(jlib, linear_trace):
    z = np.array(linear_trace[1], dtype=np.float64).reshape(-1, 1)
    z[5] = np.nan
    model = joint_linear.CModel()  # alive while C calls its functions
    run = jlib.run_kf(model.ptr, z, "ukf", log_evidence=True)
    assert run.skipped[5] and run.log_evidence[5] == 0.0 and np.isnan(run.nis[5])
    assert np.isfinite(run.log_evidence).all() and (run.log_evidence[~run.skipped] != 0).all()


def test_the_grid_filter_is_the_kalman_filter_on_a_linear_gaussian_system(linear_trace):
    x, z = linear_trace
    run = joint_grid_filter(joint_linear.twin(), z, points=128, truth=x)
    mean, cov = joint_linear.kalman(z)
    sd = np.sqrt(np.diagonal(cov, axis1=1, axis2=2))
    assert np.max(np.abs(run.mean - mean) / sd) < 0.02  # measured 0.011 at N = 128, 0.00075 at 256
    assert np.max(np.abs(run.cov - cov)) < 3e-3 * np.max(cov)  # measured 1.3e-3
    # Its density at the truth is the Gaussian's once the process noise spans a few grid cells (the first
    # steps' grids are far coarser than the noise: joint_grid's docstring).
    exact = [jm.gaussian_logpdf(mean[t], cov[t], x[t]) for t in range(len(z))]
    np.testing.assert_allclose(run.logpdf[5:], exact[5:], atol=0.05)


@pytest.mark.parametrize("tuned", [False, True])
def test_the_pf_with_many_particles_converges_to_the_grid(jlib, tuned):
    name = "pendulum"
    model = joint_systems.get(name)
    x, z = joint_systems.simulate(model, 4, seed=11)
    grid = joint_grid_filter(model, z, points=256)
    pf = jlib.run_pf(name, z, 200_000, seed=5, particles=False, tuned=tuned)
    sd = np.sqrt(np.diagonal(grid.cov, axis1=1, axis2=2))
    err = np.abs(pf.mean - grid.mean) / (sd / np.sqrt(pf.ess)[:, None])
    assert err.max() < 5.0  # Monte Carlo error in its own standard errors
    np.testing.assert_allclose(pf.cov, grid.cov, rtol=0.05, atol=1e-3 * sd.max() ** 2)


@pytest.mark.parametrize("name", ["pendulum", "cvrange"])
def test_runs_are_deterministic(jlib, name):
    x, z = joint_systems.simulate(joint_systems.get(name), 20, seed=3)
    a, b = jlib.run_pf(name, z, 300, seed=9), jlib.run_pf(name, z, 300, seed=9)
    assert np.array_equal(a.x, b.x) and np.array_equal(a.w, b.w) and np.array_equal(a.mean, b.mean)
    assert not np.array_equal(a.x, jlib.run_pf(name, z, 300, seed=10).x)
    for method in ("ekf", "ukf"):
        assert np.array_equal(jlib.run_kf(name, z, method).cov, jlib.run_kf(name, z, method).cov)
    u1, u2 = jlib.run_ux(name, z, 16), jlib.run_ux(name, z, 16)
    assert np.array_equal(u1.x, u2.x) and np.array_equal(u1.w, u2.w) and np.array_equal(u1.cov, u2.cov)
    assert ((u1.count >= 1) & (u1.count <= 16)).all() and np.allclose(u1.w.sum(axis=1), 1.0)
    # the runner's mean is its atoms' mean
    np.testing.assert_allclose(u1.mean, np.einsum("tk,tkd->td", u1.w, u1.x), rtol=1e-12, atol=1e-12)


# (particles, steps, trace seed, mean tolerance in posterior sd, log-evidence tolerance in nats) per system.
# reentry's posterior is narrow (30 m range noise, 6.5 m of altitude noise a step) and its log drag static but
# for a slow drift, which impoverishes any PF: at 20,000 particles two seeds of the plain one differ by 0.26 sd
# on 15 steps, and on trace 6's 30 steps by 3 sd even at 200,000. On trace 7 at 200,000 two plain seeds
# differ by 0.14 sd and 0.10 nats; a scale height 10 % off moves the tuned PF by 14 sd, dt 5 % by 8 sd, r 30 %
# by 1.2 nats.
PF_CASES = {name: (20_000, 15, 6, 0.1, 0.1) for name in joint_systems.names()} | {
    "reentry": (200_000, 30, 7, 0.25, 0.25)
}


@pytest.mark.parametrize("name", joint_systems.names())
def test_the_tuned_pf_is_the_same_filter(jlib, name):
    """joint_pf_fast.c against joint_pf.c: the same log evidence on every step (two seeds of the plain filter
    differ by up to 0.04 nats at 20,000 particles on the other systems; a wrong dynamics or likelihood term by
    far more), the same posterior means to a fraction of the posterior sd; deterministic for a seed."""
    n, steps, seed, mean_tol, evidence_tol = PF_CASES[name]
    model = joint_systems.get(name)
    x, z = joint_systems.simulate(model, steps, seed=seed)
    plain = jlib.run_pf(name, z, n, seed=1, particles=False)
    tuned = jlib.run_pf(name, z, n, seed=2, particles=False, tuned=True)
    sd = np.sqrt(np.diagonal(plain.cov, axis1=1, axis2=2))
    assert (np.abs(tuned.mean - plain.mean) / sd).max() < mean_tol
    assert np.abs(tuned.log_evidence - plain.log_evidence).max() < evidence_tol
    again = jlib.run_pf(name, z, 300, seed=2, tuned=True)
    assert np.array_equal(again.x, jlib.run_pf(name, z, 300, seed=2, tuned=True).x)


def test_the_tuned_pf_refuses_a_prior_it_has_no_loop_for(jlib):
    from uxemu.native import NativeError

    with pytest.raises(NativeError):  # its prior is drawn by ziggurat normals only
        jlib.run_pf(
            "cvrange", np.zeros((3, 1)), 10, 1, prior=[("laplace", 0.0, 1.0), ("gaussian", 0.0, 1.0)], tuned=True
        )


def test_the_kde_is_scipys_weighted_gaussian_kde():
    rng = np.random.default_rng(1)
    x, w = rng.normal(size=(200, 2)) @ np.array([[1.0, 0.3], [0.0, 0.5]]), rng.uniform(size=200)
    t = np.array([0.4, -0.2])
    ref = stats.gaussian_kde(x.T, weights=w).logpdf(t[:, None])[0]
    assert jm.kde_logpdf(x, w, t) == pytest.approx(ref, rel=1e-10)


@pytest.mark.parametrize("prev", [False, True])
def test_the_ux_density_integrates_to_one(prev):
    model = joint_systems.get("cvrange")
    x, z = joint_systems.simulate(model, 2, seed=4)
    atoms = (x[0] + np.array([[0.0, 0.0], [0.05, -0.02], [-0.04, 0.03]]), np.array([0.5, 0.3, 0.2]))
    Q = model.process_cov()
    centre = model.transition(atoms[0], np.zeros((3, 2)), 1, 0.0).mean(axis=0) if prev else x[0]
    span = 8 * np.sqrt(np.diag(Q)) + 0.1 if prev else np.array([8.0, 4.0])
    a, b = (np.linspace(c - s, c + s, 401) for c, s in zip(centre, span))
    pts = np.stack(np.meshgrid(a, b, indexing="ij"), axis=-1).reshape(-1, 2)
    dens = np.exp(jm.ux_logpdf(model, z[1], pts, atoms if prev else None, 1))
    assert dens.sum() * (a[1] - a[0]) * (b[1] - b[0]) == pytest.approx(1.0, abs=2e-3)


def test_bad_input_is_refused_with_a_clear_error(jlib):
    with pytest.raises(ValueError, match="unknown joint system"):
        jlib.run_pf("nope", np.zeros((3, 1)), 10, 1)
    with pytest.raises(ValueError, match="unknown method"):
        jlib.run_kf("cvrange", np.zeros((3, 1)), "pf")
    with pytest.raises(ValueError, match="power of two"):
        jlib.run_ux("cvrange", np.zeros((3, 1)), 3)
