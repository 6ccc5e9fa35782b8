"""The Kalman-type baselines (benchmarks/c/src/kf.c through uxbench.pf_native.run_kf): exact on a
linear-Gaussian model, equal to the numpy reference (uxbench.baselines.kalman) on the registered
systems, deterministic, and honest about SV's zero gain."""

import math

import numpy as np
import pytest

import uxemu as ux
from uxbench.baselines import kalman
from uxemu import native

CASES = [  # a, σ_w, σ_v, prior mean, prior std
    (0.9, 0.5, 0.8, 0.0, 1.0),
    (-0.5, 2.0, 0.1, 2.0, 3.0),
    (1.05, 0.2, 2.0, -1.0, 0.5),
]


def exact_kalman(a, sw, sv, m, P, z):
    """The scalar Kalman filter of x' = a·x + w, z = x + v, step 0 updating the prior."""
    means, variances = [], []
    for t, zt in enumerate(z):
        if t:
            m, P = a * m, a * a * P + sw * sw
        K = P / (P + sv * sv)
        m, P = m + K * (zt - m), (1.0 - K) * P
        means.append(m)
        variances.append(P)
    return np.array(means), np.array(variances)


def lg_trace(case, T, seed):
    a, sw, sv, pm, ps = case
    rng = np.random.default_rng(seed)
    x = np.empty(T)
    x[0] = pm + ps * rng.standard_normal()
    for t in range(1, T):
        x[t] = a * x[t - 1] + sw * rng.standard_normal()
    return np.arange(T, dtype=np.uint32), np.zeros(T), x + sv * rng.standard_normal(T)


@pytest.mark.parametrize("method", ["ekf", "ukf"])
@pytest.mark.parametrize("case", CASES)
def test_linear_gaussian_is_the_kalman_filter(benchlib, case, method):
    """On a linear-Gaussian model both filters are the Kalman filter: the differences' truncation error is 0
    and the unscented transform is exact for linear maps; what is left is rounding (~1e-13)."""
    a, sw, sv, pm, ps = case
    k, u, z = lg_trace(case, 40, 3)
    lg = ux.systems.spec("lg").id  # x' = a·x + w, z = x + v: parameters a, q, r
    run = benchlib.run_kf(lg, k, u, z, method, params=[a, sw, sv], prior=("gaussian", pm, ps))
    m, P = exact_kalman(a, sw, sv, pm, ps * ps, z)
    assert np.all(np.abs(run.mean - m) <= 1e-12 * np.maximum(np.abs(m), 1.0)), np.max(np.abs(run.mean - m))
    assert np.all(np.abs(run.var - P) <= 1e-12 * P), np.max(np.abs(run.var - P) / P)
    assert not run.skipped.any()


def test_log_y2_ekf_on_sv_is_the_kalman_filter_of_log_y2(benchlib):
    """On SV, log y² = x + log σ_ε² + log ε²: linear in x, so the log y² EKF is the Kalman filter of that
    linear model with noise mean ψ(½) + log 2 and variance π²/2."""
    phi, c, s_eta, s_eps = 0.95, 0.3, 0.25, 0.7
    model = ux.systems.get("sv", phi=phi, c=c, sigma_eta=s_eta, sigma_eps=s_eps)
    tr = ux.simulate_many(model, 1, 40, 12)[0]
    run = benchlib.run_kf(1, tr.k, tr.u, tr.z, "ekf_logsq", params=[phi, c, s_eta, s_eps])
    m, P, R = model.prior.mean(), model.prior.var(), math.pi**2 / 2
    offset = math.log(s_eps**2) - np.euler_gamma - math.log(2.0)
    for t, zt in enumerate(tr.z):
        if t:
            m, P = phi * m + c * (1 - phi), phi * phi * P + s_eta**2
        K = P / (P + R)
        m, P = m + K * (math.log(zt * zt) - offset - m), (1 - K) * P
        assert run.mean[t] == pytest.approx(m, rel=1e-12, abs=1e-12)
        assert run.var[t] == pytest.approx(P, rel=1e-12)


@pytest.mark.parametrize("name", ["sv", "gss", "cubic"])
def test_c_equals_the_numpy_reference(benchlib, name):
    model = ux.systems.get(name)
    methods = ["ekf", "ukf"] + (["ekf_logsq"] if name == "sv" else [])
    for tr in ux.simulate_many(model, 2, 12, 21):
        for method in methods:
            run = benchlib.run_kf(model.system_id, tr.k, tr.u, tr.z, method)
            ref = kalman.kalman_filter(model, tr, method)
            assert np.allclose(run.mean, ref.mean, rtol=1e-9, atol=1e-9), (method, run.mean - ref.mean)
            assert np.allclose(run.var, ref.var, rtol=1e-9, atol=0), (method, run.var / ref.var - 1)
            assert np.array_equal(run.skipped, ref.skipped)


@pytest.mark.parametrize("name", ["sv", "gss", "cubic"])
def test_runs_are_bit_identical(benchlib, name):
    model = ux.systems.get(name)
    tr = ux.simulate_many(model, 1, 30, 4)[0]
    for method in ["ekf", "ukf"] + (["ekf_logsq"] if name == "sv" else []):
        a = benchlib.run_kf(model.system_id, tr.k, tr.u, tr.z, method)
        b = benchlib.run_kf(model.system_id, tr.k, tr.u, tr.z, method)
        assert np.array_equal(a.mean, b.mean) and np.array_equal(a.var, b.var)


@pytest.mark.parametrize("method", ["ekf", "ukf"])
def test_generic_filters_never_learn_from_sv_data(benchlib, method):
    """SV's observation has mean 0 whatever x is, so a generic EKF or UKF has gain 0: its means are the
    prior's, propagated, for any data (the known weakness the log y² row exists for)."""
    model = ux.systems.get("sv")
    a, b = ux.simulate_many(model, 2, 20, 8)
    ra = benchlib.run_kf(1, a.k, a.u, a.z, method)
    rb = benchlib.run_kf(1, a.k, a.u, b.z, method)
    assert np.array_equal(ra.mean, rb.mean) and np.array_equal(ra.var, rb.var)
    assert ra.mean[0] == model.prior.mean() and ra.var[0] == model.prior.var()


def test_a_non_finite_observation_skips_the_update(benchlib):
    k, u, z = np.arange(3, dtype=np.uint32), np.zeros(3), np.array([0.4, np.inf, 0.4])
    for method in ("ekf", "ukf"):
        run = benchlib.run_kf(2, k, u, z, method)
        assert run.skipped.tolist() == [False, True, False] and np.isfinite(run.mean).all()


def test_bad_arguments_are_refused(benchlib):
    tr = ux.simulate_many(ux.systems.get("gss"), 1, 5, 1)[0]
    with pytest.raises(native.NativeError):  # GSS observes x²/20: log y² does not fit
        benchlib.run_kf(2, tr.k, tr.u, tr.z, "ekf_logsq")
    with pytest.raises(native.NativeError):  # cubic: Laplace family with an inner noise
        benchlib.run_kf(3, tr.k, tr.u, tr.z, "ekf_logsq")
    with pytest.raises(native.NativeDomainError):
        benchlib.run_kf(1, tr.k, tr.u, tr.z, "ekf", params=[0.98, 0.0, -0.2, 1.0])
    with pytest.raises(native.NativeError):  # a prior that is no valid law (this Student-t has scale 0)
        benchlib.run_kf(1, tr.k, tr.u, tr.z, "ukf", prior=("student_t", 2.0, 0.0))
