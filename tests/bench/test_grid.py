"""The point-mass grid filter: agreement with the Kalman filter, range rule, additivity check, fallback."""

import math

import numpy as np
import pytest
from scipy import stats

import uxemu as ux
from uxbench.baselines.grid import grid_filter, tail_quantiles
from uxemu import kalman as lg_kalman
from uxemu.laws import Exponential, Normal, Uniform
from uxemu.model import Kernel, Sampler, StateSpaceModel

A, Q, R, M0, S0 = 0.9, 0.5, 0.7, 1.0, 2.0


def linear_gaussian(a=A, q=Q, r=R, m0=M0, s0=S0, family="gaussian"):
    """x' = a·x + u + w, w ~ N(0, q²);  z = x + v, v ~ N(0, r²);  x_0 ~ N(m0, s0²)."""
    return StateSpaceModel(
        name="linear-gaussian",
        transition=lambda x, w, k, u: a * x + u + w,
        process_noise=Normal(0.0, q),
        prior=Normal(m0, s0),
        sampler=Sampler(lambda x, v: x + v, (Normal(0.0, r),)),
        kernel=Kernel(family, lambda x: (x, r + 0.0 * x)),
    )


def kalman(z, u=None, a=A, q=Q, r=R, m0=M0, s0=S0):
    """Closed-form posterior means and variances; the first observation is of the initial state."""
    u = np.zeros(len(z)) if u is None else u
    m, P = m0, s0 * s0
    means, variances = [], []
    for i, zi in enumerate(z):
        if i > 0:
            m, P = a * m + u[i], a * a * P + q * q
        K = P / (P + r * r)
        m, P = m + K * (zi - m), (1.0 - K) * P
        means.append(m)
        variances.append(P)
    return np.array(means), np.array(variances)


def test_grid_filter_matches_kalman_on_a_linear_gaussian_model():
    # With the tails cut at 1e-12 and a spacing ~σ/150, sums of Gaussians over the uniform grid are
    # accurate far beyond 1e-9 (the trapezoid rule is spectrally accurate for such integrands), so
    # what remains is rounding over 1501-term sums and 60 steps: 1e-9 relative is a real bound.
    m = linear_gaussian()
    rng = np.random.default_rng(7)
    tr = ux.simulate(m, 60, rng, u=rng.normal(0.0, 1.0, 60))
    run = grid_filter(m, tr)
    km, kv = kalman(tr.z, tr.u)
    assert run.fallbacks == 0
    np.testing.assert_allclose(run.mean, km, rtol=0, atol=1e-9 * math.sqrt(kv.max()))
    np.testing.assert_allclose(run.var, kv, rtol=1e-9)


def test_grid_evidence_is_the_kalman_likelihood_on_lg():
    # The evidence of each step is a Riemann sum of a Gaussian product over the grid: exact to ~1e-9 nats.
    m = ux.systems.get("lg")
    tr = ux.simulate(m, 60, np.random.default_rng(8))
    exact = lg_kalman.for_model(m, tr.z)
    run = grid_filter(m, tr)
    np.testing.assert_allclose(run.log_evidence, exact.log_evidence, rtol=0, atol=1e-8)


def test_coarse_grid_is_measurably_off_so_the_kalman_check_can_fail():
    m = linear_gaussian()
    tr = ux.simulate(m, 20, np.random.default_rng(3))
    km, kv = kalman(tr.z)
    run = grid_filter(m, tr, n_points=15)
    assert np.abs(run.var / kv - 1.0).max() > 1e-4


def test_grid_density_reads_back_the_gaussian_posterior():
    m = linear_gaussian()
    tr = ux.simulate(m, 10, np.random.default_rng(5))
    run = grid_filter(m, tr)
    km, kv = kalman(tr.z)
    i = 9
    sd, h = math.sqrt(kv[i]), run.spacing(i)
    peak = stats.norm.pdf(0.0, 0.0, sd)
    # Linear interpolation between nodes errs by at most h²/8 · max|f''| = h²/8 · peak/σ².
    bound = h * h / 8.0 * peak / kv[i] + 1e-9
    for t in (km[i], km[i] + 0.37 * sd, km[i] + sd, km[i] - 2.2 * sd):
        assert abs(run.pdf(i, t) - stats.norm.pdf(t, km[i], sd)) <= bound
    assert run.pdf(i, run.nodes[i, 0] - 1.0) == 0.0
    assert np.trapezoid(run.pdf(i, run.nodes[i]), run.nodes[i]) == pytest.approx(1.0, rel=1e-6)


def test_range_rule_spans_the_tails_of_prior_and_predictive():
    m = linear_gaussian()
    tr = ux.simulate(m, 5, np.random.default_rng(11))
    run = grid_filter(m, tr, tail=1e-12)
    q = stats.norm.isf(1e-12)
    assert run.nodes[0, 0] == pytest.approx(M0 - q * S0, rel=1e-9)
    assert run.nodes[0, -1] == pytest.approx(M0 + q * S0, rel=1e-9)
    # Later grids: the image of the kept nodes widened by the process noise's tail quantiles.
    w = run.weights[0]
    kept = (np.cumsum(w) >= 1e-12) & (np.cumsum(w[::-1])[::-1] >= 1e-12)
    xs = run.nodes[0][kept]
    assert run.nodes[1, 0] == pytest.approx(A * xs.min() - q * Q, rel=1e-9)
    assert run.nodes[1, -1] == pytest.approx(A * xs.max() + q * Q, rel=1e-9)


def test_tail_quantiles_agree_with_scipy_and_respect_the_support():
    lo, hi = tail_quantiles(Normal(2.0, 3.0), 1e-9)
    assert lo == pytest.approx(stats.norm.ppf(1e-9, 2.0, 3.0), rel=1e-10)
    assert hi == pytest.approx(stats.norm.isf(1e-9, 2.0, 3.0), rel=1e-10)
    assert tail_quantiles(Uniform(-1.0, 4.0), 1e-12) == pytest.approx((-1.0, 4.0), abs=1e-11)
    lo, hi = tail_quantiles(Exponential(0.5), 1e-6)
    assert lo == pytest.approx(5e-7, rel=1e-6)
    assert hi == pytest.approx(-math.log(1e-6) * 0.5, rel=1e-9)


def test_non_additive_process_noise_is_refused():
    base = linear_gaussian()
    mult = StateSpaceModel(
        name="multiplicative",
        transition=lambda x, w, k, u: x * (1.0 + w),
        process_noise=base.process_noise,
        prior=base.prior,
        sampler=base.sampler,
        kernel=base.kernel,
    )
    tr = ux.simulate(mult, 4, np.random.default_rng(1))
    with pytest.raises(ValueError, match="additive"):
        grid_filter(mult, tr)


def test_impossible_observation_keeps_the_predictive_and_is_reported():
    m = linear_gaussian(family="uniform")  # likelihood zero beyond half a scale from z
    tr = ux.Trace(np.arange(3), np.zeros(3), np.array([1.0, 1.2, 1e6]))
    run = grid_filter(m, tr)
    assert run.fallback.tolist() == [False, False, True]
    assert run.mean[2] == pytest.approx(A * run.mean[1], rel=1e-9)
    assert run.var[2] == pytest.approx(A * A * run.var[1] + Q * Q, rel=1e-6)


def test_bad_arguments_are_refused():
    m = linear_gaussian()
    tr = ux.simulate(m, 3, np.random.default_rng(1))
    with pytest.raises(ValueError):
        grid_filter(m, tr, n_points=2)
    with pytest.raises(ValueError):
        grid_filter(m, tr, tail=0.0)
