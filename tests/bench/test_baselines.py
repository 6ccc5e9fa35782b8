"""Sampling baselines: bootstrap PF against Kalman, resampling laws, importance sampling, plain MC."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_grid import M0, R, S0, kalman, linear_gaussian

import uxemu as ux
from uxbench.baselines import bootstrap_filter, draw, importance_posterior, propagate, resampling
from uxemu.laws import Normal

N_PF = 2000


@pytest.mark.parametrize("scheme", ["systematic", "multinomial"])
def test_particle_filter_tracks_kalman(scheme):
    # Monte Carlo tolerance: the error of the PF mean is ~ sqrt(P/N) inflated by resampling and weight
    # degeneracy. In units z = (mean − kalman) / sqrt(P/N), the RMS over 50 steps was at most 3.6
    # (systematic) and 2.1 (multinomial) over 30 seeds; 5 leaves room without hiding a real bias
    # (a filter that ignored the observations, for instance, is off by z > 100 on this trace).
    m = linear_gaussian()
    tr = ux.simulate(m, 50, np.random.default_rng(7))
    km, kv = kalman(tr.z)
    run = bootstrap_filter(m, tr, N_PF, np.random.default_rng(1), resample=scheme)
    z_mean = (run.mean - km) / np.sqrt(kv / N_PF)
    z_var = (run.var / kv - 1.0) / math.sqrt(2.0 / N_PF)
    assert math.sqrt(np.mean(z_mean**2)) < 5.0
    assert math.sqrt(np.mean(z_var**2)) < 5.0
    assert run.particles.shape == run.weights.shape == (50, N_PF)
    np.testing.assert_allclose(run.weights.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(run.mean, (run.weights * run.particles).sum(axis=1), rtol=1e-12, atol=1e-12)


def test_ignoring_observations_breaks_the_kalman_tolerance():
    # The tolerance above must be able to fail: a flat likelihood (r huge) is a wrong filter here.
    m, flat = linear_gaussian(), linear_gaussian(r=1e6)
    tr = ux.simulate(m, 50, np.random.default_rng(7))
    km, kv = kalman(tr.z)
    run = bootstrap_filter(flat, tr, N_PF, np.random.default_rng(1))
    assert math.sqrt(np.mean(((run.mean - km) / np.sqrt(kv / N_PF)) ** 2)) > 5.0


def test_particle_filter_is_deterministic_given_the_seed_and_varies_with_it():
    m = ux.systems.get("gss")
    tr = ux.simulate_many(m, 1, 30, seed=3)[0]
    a = bootstrap_filter(m, tr, 200, np.random.default_rng(42))
    b = bootstrap_filter(m, tr, 200, np.random.default_rng(42))
    c = bootstrap_filter(m, tr, 200, np.random.default_rng(43))
    assert np.array_equal(a.particles, b.particles) and np.array_equal(a.weights, b.weights)
    assert np.array_equal(a.mean, b.mean)
    assert not np.array_equal(a.mean, c.mean)


def test_first_step_only_weighs_the_prior_draws():
    m = linear_gaussian()
    tr = ux.simulate(m, 3, np.random.default_rng(2))
    run = bootstrap_filter(m, tr, 50, np.random.default_rng(9))
    x0 = Normal(M0, S0).sample(np.random.default_rng(9), 50)
    np.testing.assert_array_equal(run.particles[0], x0)
    logw = -0.5 * ((tr.z[0] - x0) / R) ** 2
    np.testing.assert_allclose(run.weights[0], np.exp(logw - logw.max()) / np.exp(logw - logw.max()).sum(), rtol=1e-12)


def test_impossible_observation_keeps_the_predicted_particles_with_equal_weights():
    m = linear_gaussian(family="uniform")
    tr = ux.Trace(np.arange(2), np.zeros(2), np.array([1.0, 1e6]))
    run = bootstrap_filter(m, tr, 100, np.random.default_rng(0))
    assert run.fallback.tolist() == [False, True] and run.fallbacks == 1
    np.testing.assert_array_equal(run.weights[1], np.full(100, 0.01))
    assert run.ess[1] == pytest.approx(100.0)


def test_bad_arguments_are_refused():
    m = linear_gaussian()
    tr = ux.simulate(m, 2, np.random.default_rng(0))
    with pytest.raises(TypeError):
        bootstrap_filter(m, tr, 10, 123)
    with pytest.raises(ValueError):
        bootstrap_filter(m, tr, 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="resampling"):
        bootstrap_filter(m, tr, 10, np.random.default_rng(0), resample="stratified-ish")


# -- resampling --------------------------------------------------------------------------------------
weights = st.lists(st.floats(0.0, 1.0), min_size=1, max_size=40).filter(lambda v: sum(v) > 1e-3)


@settings(deadline=None)  # no timing in tests: a loaded machine must not fail it
@given(weights, st.integers(0, 2**32 - 1))
def test_systematic_copy_counts_are_floor_or_ceil_of_n_w(raw, seed):
    w = np.array(raw) / sum(raw)
    idx = resampling.systematic(w, np.random.default_rng(seed))
    counts = np.bincount(idx, minlength=w.size)
    nw = w.size * w
    assert idx.size == w.size and counts.sum() == w.size
    assert np.all((counts >= np.floor(nw - 1e-9)) & (counts <= np.ceil(nw + 1e-9)))
    assert np.all(counts[w == 0] == 0)


@pytest.mark.parametrize("scheme", ["systematic", "multinomial"])
def test_resampling_preserves_the_weights_in_expectation(scheme):
    # Mean copy count over R draws against N·w, within 5 standard errors (multinomial variance
    # N·w(1 − w) per draw; systematic is never more variable than that).
    w = np.array([0.5, 0.2, 0.15, 0.1, 0.04, 0.01, 0.0])
    N, R = w.size, 4000
    rng = np.random.default_rng(17)
    fn = resampling.get(scheme)
    counts = np.array([np.bincount(fn(w, rng), minlength=N) for _ in range(R)])
    se = np.sqrt(N * w * (1 - w) / R) + 1e-12
    assert np.all(np.abs(counts.mean(axis=0) - N * w) <= 5 * se)
    assert counts[:, -1].max() == 0
    assert np.all(np.diff(fn(w, rng)) >= 0)


def test_multinomial_counts_vary_beyond_floor_and_ceil():
    # The two schemes are really different: multinomial can leave a heavy particle with no copy.
    w = np.full(8, 1 / 8)
    rng = np.random.default_rng(0)
    counts = [np.bincount(resampling.multinomial(w, rng), minlength=8) for _ in range(50)]
    assert any((c != 1).any() for c in counts)
    assert all((np.bincount(resampling.systematic(w, rng), minlength=8) == 1).all() for _ in range(50))


# -- importance sampling and plain Monte Carlo -------------------------------------------------------
def conjugate(z, om, m, mu0=M0, s0=S0, r=R):
    """Posterior of x ~ N(mu0, s0²) after z_k observed with weights ω_k, m times, z | x ~ N(x, r²)."""
    prec = 1 / s0**2 + m * sum(om) / r**2
    mean = (mu0 / s0**2 + m * sum(o * zk for zk, o in zip(z, om)) / r**2) / prec
    return mean, 1 / prec


@pytest.mark.parametrize("evidence, m", [(0.4, 1), (0.4, 3), ((np.array([0.1, 0.9]), np.array([0.25, 0.75])), 2)])
def test_importance_posterior_matches_the_conjugate_gaussian(evidence, m):
    model = linear_gaussian()
    ws = importance_posterior(model.prior, model.log_likelihood, evidence, 40000, np.random.default_rng(5), m=m)
    z, om = (evidence, (1.0,)) if np.ndim(evidence) == 0 else evidence
    mean, var = conjugate(np.atleast_1d(z), om, m)
    # Self-normalised IS: the error of the mean is ~ sqrt(var / ESS); 5 of those is the bound.
    se = math.sqrt(var / ws.ess())
    assert abs(ws.mean() - mean) < 5 * se
    assert abs(ws.var() / var - 1) < 5 * math.sqrt(2 / ws.ess())
    assert not ws.fallback and ws.w.sum() == pytest.approx(1.0)


def test_importance_posterior_of_a_value_prior_and_its_fallback():
    model = linear_gaussian(family="uniform")
    prior = ux.gaussian(M0, S0, eta=16)
    ws = importance_posterior(prior, model.log_likelihood, 1.0, 500, np.random.default_rng(0))
    assert set(np.unique(ws.x)) <= set(prior.x)
    dead = importance_posterior(prior, model.log_likelihood, 1e6, 500, np.random.default_rng(0))
    assert dead.fallback and np.allclose(dead.w, 1 / 500)
    with pytest.raises(ValueError):
        importance_posterior(prior, model.log_likelihood, float("nan"), 10, np.random.default_rng(0))
    with pytest.raises(ValueError):
        importance_posterior(prior, model.log_likelihood, 1.0, 10, np.random.default_rng(0), m=0)


def test_propagate_is_plain_monte_carlo_in_argument_order():
    a, b = Normal(1.0, 2.0), ux.uniform(-1.0, 1.0, eta=8)
    f = lambda x, y: x * x + np.exp(y)  # noqa: E731
    got = propagate(f, [a, b], 1000, np.random.default_rng(3))
    rng = np.random.default_rng(3)
    xa = a.sample(rng, 1000)
    xb = b.sample(1000, rng)
    np.testing.assert_array_equal(got, f(xa, xb))
    big = propagate(lambda x, y: x + y, [Normal(1.0, 2.0), Normal(-3.0, 1.5)], 200000, np.random.default_rng(4))
    assert abs(big.mean() + 2.0) < 5 * 2.5 / math.sqrt(200000)
    assert abs(big.var() / 6.25 - 1.0) < 5 * math.sqrt(2 / 200000)
    assert propagate(lambda x: 3.0, [a], 5, np.random.default_rng(0)).tolist() == [3.0] * 5
    with pytest.raises(TypeError):
        propagate(f, [], 5, np.random.default_rng(0))
    with pytest.raises(TypeError):
        draw(a, 5, None)
