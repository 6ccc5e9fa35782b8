"""The innovation gate (docs/semantics.md, "Innovation gate"): an observation improbable under the prediction
gets status OUTLIER and, when asked, is treated as missing. Oracles: the Kalman filter's innovation variance
on the linear-Gaussian system, the moments of the prior atoms themselves, and the filter's own step without
observation."""

import math

import numpy as np
import pytest

import uxemu as ux
from uxemu import run_filter, simulate, systems
from uxemu.bayes import FAMILY_VARIANCE, KernelLikelihood
from uxemu.filter import OUTLIER_GATE, BayesLaplaceFilter
from uxemu.kalman import kalman_filter


def lg_trace(T: int, seed: int, outlier_at: int | None = None, by: float = 1e4):
    """A trace of the table's lg system; one reading `by`·r off at `outlier_at`."""
    model = systems.get("lg")
    tr = simulate(model, T, np.random.default_rng(seed))
    if outlier_at is not None:
        tr.z[outlier_at] += by * model.params[2]
    return model, tr


def test_the_ratio_is_the_innovation_over_the_prior_atoms_predictive_variance():
    """ν²/S with S the atoms' variance of loc plus the outer family's variance times E scale², by hand."""
    x = np.array([-1.0, 0.5, 2.0, 3.5])
    w = np.array([0.1, 0.4, 0.3, 0.2])
    for family in ("gaussian", "laplace", "uniform"):
        lik = KernelLikelihood(family, lambda t: (2.0 * t, 0.5 + 0.1 * t * t))
        loc, scale = 2.0 * x, 0.5 + 0.1 * x * x
        mean = np.sum(w * loc)
        var = np.sum(w * (loc - mean) ** 2) + FAMILY_VARIANCE[family] * np.sum(w * scale * scale)
        got = lik.innovation_ratio(x, w, np.array([7.0, -3.0]))
        assert got == pytest.approx(max((7.0 - mean) ** 2, (-3.0 - mean) ** 2) / var, rel=1e-12)


def test_on_well_specified_data_the_ratio_follows_the_kalman_innovation():
    """lg at its table parameters, η = 16: the normalised innovation |ν|/√S is the Kalman filter's to a tenth
    of a standard deviation at every step (measured: 0.06), and no reading of 300 fails the gate."""
    model, tr = lg_trace(300, seed=4)
    a, q, r = model.params
    run = run_filter(model, tr, 16)
    k = kalman_filter(tr.z, a, q, r, model.prior.mu, model.prior.sigma)
    prior_mean = np.r_[model.prior.mu, a * k.mean[:-1]]
    prior_var = np.r_[model.prior.sigma**2, a * a * k.var[:-1] + q * q]
    nis = (tr.z - prior_mean) ** 2 / (prior_var + r * r)
    assert np.abs(np.sqrt(run.test_ratio) - np.sqrt(nis)).max() < 0.1
    assert not np.any(run.status == ux.Status.OUTLIER)


@pytest.mark.parametrize("mode", ["refined", "paper", "mixture"])
def test_a_reading_far_off_is_an_outlier_and_only_it(mode):
    model, tr = lg_trace(80, seed=1, outlier_at=40)
    run = run_filter(model, tr, 8, mode, gate_outliers=True)
    assert run.status[40] == ux.Status.OUTLIER
    assert run.test_ratio[40] > 1e6
    assert np.all(np.delete(run.status, 40) == ux.Status.OK)


@pytest.mark.parametrize("mode", ["refined", "paper", "mixture"])
@pytest.mark.parametrize("at", [0, 40])
def test_a_gated_outlier_is_a_step_without_observation(mode, at):
    """Gating leaves exactly what a missing reading leaves, bit for bit, at the first update too."""
    model, tr = lg_trace(60, seed=3, outlier_at=at)
    gated = run_filter(model, tr, 8, mode, gate_outliers=True)
    missing = tr.z.copy()
    missing[at] = np.nan
    skipped = run_filter(model, ux.Trace(tr.k, tr.u, missing), 8, mode)
    assert gated.status[at] == ux.Status.OUTLIER and skipped.status[at] == ux.Status.NO_EVIDENCE
    assert np.array_equal(gated.mean, skipped.mean) and np.array_equal(gated.var, skipped.var)
    assert gated.log_likelihood == skipped.log_likelihood


def test_an_ungated_outlier_is_weighed_and_flagged():
    model, tr = lg_trace(60, seed=3, outlier_at=30, by=50.0)
    flagged = run_filter(model, tr, 8)
    off = run_filter(model, tr, 8, gate=math.inf)
    assert flagged.status[30] == ux.Status.OUTLIER and off.status[30] == ux.Status.OK
    assert np.array_equal(flagged.mean, off.mean)  # the gate alone changes no posterior
    assert flagged.test_ratio[30] == off.test_ratio[30] > OUTLIER_GATE**2


def test_the_gate_is_a_parameter():
    model, tr = lg_trace(40, seed=0, outlier_at=20, by=6.0)
    ratio = run_filter(model, tr, 8).test_ratio[20]
    assert run_filter(model, tr, 8, gate=math.sqrt(ratio) * 0.99).status[20] == ux.Status.OUTLIER
    assert run_filter(model, tr, 8, gate=math.sqrt(ratio) * 1.01).status[20] == ux.Status.OK
    for bad in (0.0, -1.0, math.nan):
        with pytest.raises(ValueError, match="innovation gate"):
            BayesLaplaceFilter(model, 8, gate=bad)


def test_without_observation_or_with_the_sampler_form_no_ratio_is_taken():
    model, tr = lg_trace(20, seed=0, outlier_at=10)
    tr.z[5] = np.nan
    run = run_filter(model, tr, 8, likelihood="sampler")
    assert np.isnan(run.test_ratio).all() and not np.any(run.status == ux.Status.OUTLIER)
    assert np.isnan(run_filter(model, tr, 8).test_ratio[5])


def near_static_outlier():
    """A near-static local level (q/r = 0.01, a = 1), 200 steps, the reading at k = 100 1e4 r off: the model,
    the trace and its Kalman filter."""
    model = systems.get("lg", q=0.01, a=1.0)
    tr = simulate(model, 200, np.random.default_rng(5))
    z = np.array(tr.z)
    z[100] += 1e4
    exact = kalman_filter(z, 1.0, 0.01, 1.0, model.prior.mu, model.prior.sigma)
    return model, ux.Trace(tr.k, tr.u, z), exact


def assert_the_core_agrees(model, trace, run, mode: str):
    """The C core's run of the same trace at η = 16: the same statuses and means, bit for bit (when built)."""
    from uxemu import native

    if not native.available():
        return
    nat = native.load().run_filter(
        model.system_id,
        trace.k,
        trace.u,
        trace.z,
        eta=16,
        mode=mode,
        params=model.params,
        prior=("gaussian", model.prior.mu, model.prior.sigma),
    )
    np.testing.assert_array_equal(nat.status, run.status)
    np.testing.assert_array_equal(nat.mean, run.mean)


def test_a_posterior_left_behind_by_an_outlier_says_so_until_the_model_catches_up(weighed):
    """docs/semantics.md, "Departure": after a reading 1e4 r off on a near-static local level the model's own
    (Kalman) posterior jumps hundreds of its sd, which the filter does not follow: every later step whose
    status would be OK and whose mean is more than 0.5 Kalman sd from the Kalman filter's is DEPARTED, and
    with the linear update it follows the Kalman filter instead (no departure)."""
    model, trace, exact = near_static_outlier()
    run = run_filter(model, trace, 16)
    off = np.abs(run.mean - exact.mean) / np.sqrt(exact.var) > 0.5
    assert run.status[100] == ux.Status.OUTLIER
    assert np.all(run.status[101:110] == ux.Status.DEPARTED)
    assert not np.any(off & (run.status == ux.Status.OK))  # never OK while off
    assert not np.any(run.status[:100] == ux.Status.DEPARTED)


def test_the_linear_update_follows_an_outlier_as_the_kalman_filter_does():
    """The trace above with the linear update (the default): within 0.01 Kalman sd at every step, the outlier
    reported, nothing DEPARTED, and the C core the same bit for bit."""
    model, trace, exact = near_static_outlier()
    run = run_filter(model, trace, 16)
    assert np.max(np.abs(run.mean - exact.mean) / np.sqrt(exact.var)) < 0.01
    assert run.status[100] == ux.Status.OUTLIER and not np.any(run.status == ux.Status.DEPARTED)
    assert_the_core_agrees(model, trace, run, "refined")


def test_departure_after_an_outlier_is_the_same_in_c():
    """A reading 1e3 off on cubic, whose kernel is not linear: the weighed path's outlier and departure statuses
    and means, C against the reference bit for bit."""
    from uxemu import native

    if not native.available():
        pytest.skip("the native library is not built")
    model = systems.get("cubic")
    tr = simulate(model, 80, np.random.default_rng(6))
    z = np.array(tr.z)
    z[40] += 1e3 * model.params[4]
    trace = ux.Trace(tr.k, tr.u, z)
    run = run_filter(model, trace, 16)
    nat = native.load().run_filter(model.system_id, trace.k, trace.u, trace.z, eta=16)
    assert run.status[40] == ux.Status.OUTLIER
    np.testing.assert_array_equal(nat.status, run.status)
    np.testing.assert_array_equal(nat.mean, run.mean)


@pytest.mark.parametrize("name", ["sv", "lg", "cubic"])
def test_no_departure_on_the_models_own_data(name):
    """A filter on its model's own data has no outlier it cannot follow: no DEPARTED step in 10 × 200."""
    model = systems.get(name)
    for seed in range(10):
        run = run_filter(model, simulate(model, 200, np.random.default_rng(100 + seed)), 16)
        assert not np.any(run.status == ux.Status.DEPARTED), seed


def test_mixture_mode_says_departed_where_it_could_not_follow_an_outlier():
    """Mixture mode keeps a departure too (docs/semantics.md, "Departure"): on the trace above it does not follow
    the outlier (no linear update there) and stays hundreds of Kalman sd off to the end; every one of those steps
    says DEPARTED (or OUTLIER, INCONSISTENT), none OK, none before the outlier; C the same bit for bit."""
    model, trace, exact = near_static_outlier()
    run = run_filter(model, trace, 16, mode="mixture")
    off = np.abs(run.mean - exact.mean) / np.sqrt(exact.var) > 0.5
    assert run.status[100] == ux.Status.OUTLIER and off[101:].all()
    assert np.all(run.status[101:110] == ux.Status.DEPARTED)
    assert not np.any(off & (run.status == ux.Status.OK))
    assert not np.any(run.status[:100] == ux.Status.DEPARTED)
    assert_the_core_agrees(model, trace, run, "mixture")


@pytest.mark.parametrize("name", ["sv", "lg", "cubic"])
def test_no_departure_in_mixture_mode_on_the_models_own_data(name):
    """As for refined mode, in mixture mode (the C core: the same bits, a tenth of the time)."""
    from uxemu import native

    if not native.available():
        pytest.skip("the native library is not built")
    model = systems.get(name)
    for seed in range(10):
        tr = simulate(model, 200, np.random.default_rng(100 + seed))
        run = native.load().run_filter(model.system_id, tr.k, tr.u, tr.z, eta=16, mode="mixture")
        assert not np.any(run.status == ux.Status.DEPARTED), seed
