"""Consistency (docs/semantics.md, "Consistency"): the running mean of the test ratios, and the status
INCONSISTENT while it exceeds NIS_LIMIT. Oracles: the recurrence by hand, the Kalman filter's normalised
innovations on the linear-Gaussian system (well specified and with three times the sensor noise in the data),
and the C core, bit for bit, where the statistic decides statuses on every kind of filter."""

import math

import numpy as np
import pytest

import uxemu as ux
from uxemu import joint_systems, native, run_filter, simulate, systems
from uxemu.filter import NIS_CAP, NIS_LIMIT, NIS_WEIGHT, nis_track
from uxemu.joint_cells import run_joint_cells
from uxemu.joint_filter import run_joint_filter
from uxemu.kalman import kalman_filter


def kalman_nis(model, z) -> np.ndarray:
    """The consistency mean of the Kalman filter's own ν²/S on z, step by step."""
    a, q, r = model.params
    k = kalman_filter(z, a, q, r, model.prior.mu, model.prior.sigma)
    prior_mean = np.r_[model.prior.mu, a * k.mean[:-1]]
    prior_var = np.r_[model.prior.sigma**2, a * a * k.var[:-1] + q * q]
    out, nis = np.empty(len(z)), 1.0
    for i, ratio in enumerate((z - prior_mean) ** 2 / (prior_var + r * r)):
        nis = out[i] = nis_track(nis, float(ratio))
    return out


def test_the_mean_weighs_each_ratio_caps_it_and_skips_a_step_without_one():
    assert nis_track(1.0, 3.0) == 1.0 + NIS_WEIGHT * 2.0
    assert nis_track(1.0, 1e6) == nis_track(1.0, NIS_CAP)  # one outlier moves it by at most (cap − mean)/16
    assert nis_track(2.5, math.nan) == 2.5
    assert nis_track(1.0, 6.0, 2) == nis_track(1.0, 3.0)  # per observation component
    nis = 1.0
    for _ in range(200):
        nis = nis_track(nis, 4.0)
    assert nis == pytest.approx(4.0, abs=1e-5)  # it forgets its start geometrically


def test_one_outlier_alone_does_not_make_a_filter_inconsistent():
    assert nis_track(1.0, NIS_CAP) < NIS_LIMIT


@pytest.mark.parametrize("seed", range(6))
def test_on_well_specified_data_it_is_the_kalman_filters_and_never_inconsistent(seed):
    """lg at its table parameters, η = 16, 300 steps: the mean follows the Kalman filter's (measured: within
    0.06) and no step says INCONSISTENT."""
    model = systems.get("lg")
    tr = simulate(model, 300, np.random.default_rng(seed))
    run = run_filter(model, tr, 16)
    assert np.abs(run.nis - kalman_nis(model, tr.z)).max() < 0.15
    assert not np.any(run.status == ux.Status.INCONSISTENT)


def test_with_three_times_the_sensor_noise_it_says_so_where_the_kalman_filter_would():
    """The readings' noise is 3 r, the model's r: the mean heads for 9. Every update whose Kalman mean is clearly
    above the limit (by 0.3) is INCONSISTENT or OUTLIER, and none whose Kalman mean is clearly below it."""
    model = systems.get("lg")
    tr = simulate(model, 200, np.random.default_rng(9))
    tr.z = tr.x + 3.0 * (tr.z - tr.x)
    run = run_filter(model, tr, 16)
    exact = kalman_nis(model, tr.z)
    flagged = np.isin(run.status, [ux.Status.INCONSISTENT, ux.Status.OUTLIER])
    assert np.all(flagged[exact > NIS_LIMIT + 0.3])
    assert not np.any((run.status == ux.Status.INCONSISTENT)[exact < NIS_LIMIT - 0.3])
    assert np.sum(run.status == ux.Status.INCONSISTENT) > 100


def stuck_pendulum(seed: int):
    """Pendulum readings that repeat one value for 30 steps from the half: a sensor stuck."""
    model = joint_systems.get("pendulum")
    _, z = joint_systems.simulate(model, 120, seed)
    z[60:90] = z[60]
    return model, z


@pytest.mark.parametrize("which", ["cells", "atoms"])
def test_the_joint_filters_keep_it_per_observation_component_as_the_core_does(which):
    """Stuck pendulum readings: C = reference bit for bit on the mean and the statuses, and some steps say
    INCONSISTENT."""
    if not native.available():
        pytest.skip("the native core is not built (make native)")
    nat = native.load()
    model, z = stuck_pendulum(4)
    if which == "cells":
        ref, got = run_joint_cells(model, z, 16), nat.run_joint_cells(model.system_id, z, 16)
    else:
        ref, got = run_joint_filter(model, z, 16), nat.run_joint_filter(model.system_id, z, 16)
    np.testing.assert_array_equal(got.nis, ref.nis)
    np.testing.assert_array_equal(got.status, ref.status)
    assert np.any(ref.status == ux.Status.INCONSISTENT)


def test_the_cells_on_their_own_pendulum_data_are_never_inconsistent():
    model = joint_systems.get("pendulum")
    for seed in range(4):
        _, z = joint_systems.simulate(model, 150, 500 + seed)
        run = run_joint_cells(model, z, 16)
        assert not np.any(run.status == ux.Status.INCONSISTENT), seed
        assert np.nanmax(run.nis) < 2.0


def noisy_lg(seed: int = 9):
    """lg readings with 1.7 times the model's sensor noise: a mean test ratio near 2.5."""
    model = systems.get("lg")
    tr = simulate(model, 120, np.random.default_rng(seed))
    tr.z = tr.x + 1.7 * (tr.z - tr.x)
    return model, tr


@pytest.mark.parametrize("limit", [2.0, math.inf])
def test_the_limit_is_a_parameter_and_the_core_takes_it_too(limit):
    """nis_limit = ∞ turns the status off (the mean is kept), a lower limit flags more; the C core's
    ux_filter_set_consistency gives the same statuses, bit for bit."""
    model, tr = noisy_lg()
    default, run = run_filter(model, tr, 16), run_filter(model, tr, 16, nis_limit=limit)
    flagged = lambda r: int(np.sum(r.status == ux.Status.INCONSISTENT))  # noqa: E731
    np.testing.assert_array_equal(run.nis, default.nis)
    assert flagged(run) == 0 if math.isinf(limit) else flagged(run) > flagged(default) > 0
    if not native.available():
        pytest.skip("the native core is not built (make native)")
    got = native.load().run_filter(model.system_id, tr.k, tr.u, tr.z, 16, nis_limit=limit)
    np.testing.assert_array_equal(got.status, run.status)


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan])
def test_a_limit_that_is_not_positive_is_refused(bad):
    model = systems.get("lg")
    with pytest.raises(ValueError, match="consistency limit"):
        run_filter(model, [0.1, 0.2], 8, nis_limit=bad)
    with pytest.raises(ValueError, match="consistency limit"):
        run_joint_cells(joint_systems.get("pendulum"), np.zeros((3, 1)), 4, nis_limit=bad)
    if native.available():
        f = native.load().filter(model.system_id, 8)
        with pytest.raises(native.NativeError):
            f.set_consistency(bad)


def test_the_joint_filters_take_the_limit_as_the_core_does():
    if not native.available():
        pytest.skip("the native core is not built (make native)")
    nat = native.load()
    model, z = stuck_pendulum(4)
    for limit in (2.0, math.inf):
        ref = run_joint_cells(model, z, 16, nis_limit=limit)
        got = nat.run_joint_cells(model.system_id, z, 16, nis_limit=limit)
        np.testing.assert_array_equal(got.status, ref.status)
        ref = run_joint_filter(model, z, 8, nis_limit=limit)
        got = nat.run_joint_filter(model.system_id, z, 8, nis_limit=limit)
        np.testing.assert_array_equal(got.status, ref.status)
    assert not np.any(ref.status == ux.Status.INCONSISTENT)
