"""The reference cell filter (uxemu.joint_cells): on a linear-Gaussian model it is the Kalman filter at every η
(nothing bends, nothing splits); the bend sees cross terms; splits, exchanges and merges keep the belief's mean and covariance; cells stay at most η,
weights sum to 1 and every covariance is positive definite; bad input is refused."""

import dataclasses
import math
import itertools

import numpy as np
import pytest
from test_joint_filter import cv_linear, kalman

from uxemu import joint_systems
from uxemu.bayes import Status
from uxemu.filter import NIS_LIMIT, nis_track
from uxemu.joint_cells import JointCellsFilter, cholesky, run_joint_cells
from uxemu.laws import LogNormal, Normal


def linear_trace(model, steps: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x, z = model.sample_prior(rng, 1), []
    for k in range(steps):
        if k > 0:
            x = model.sample_transition(x, k, 0.0, rng)
        z.append(model.sample_observation(x, rng)[0])
    return np.array(z)


def test_one_cell_is_the_kalman_filter():
    """η = 1 never splits: the unscented transform is exact for linear maps, so each step is Kalman's."""
    model = cv_linear()
    z = linear_trace(model, 60, seed=11)
    run = run_joint_cells(model, z, eta=1)
    km, kc, kev = kalman(model, z)
    np.testing.assert_allclose(run.mean, km, rtol=0, atol=1e-9)
    np.testing.assert_allclose(run.cov, kc, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(run.log_evidence, kev, rtol=0, atol=1e-9)


@pytest.mark.parametrize("eta", [2, 8, 64])
def test_a_linear_model_never_splits_so_every_eta_is_the_kalman_filter(eta):
    """Nothing bends over a cell of a linear-Gaussian model (UX_CELLS_BEND): no split, so no split's shape error —
    one cell, bit for bit the run at η = 1."""
    model = cv_linear()
    z = linear_trace(model, 60, seed=12)
    run, one = run_joint_cells(model, z, eta=eta), run_joint_cells(model, z, eta=1)
    assert all(w.size == 1 for w, _, _ in run.posteriors)
    np.testing.assert_array_equal(run.mean, one.mean)
    np.testing.assert_array_equal(run.cov, one.cov)


def test_the_bend_sees_cross_terms():
    """bearings' sensor y/x at a prior centred on y = 0 is flat along each axis of the prior's cell and bends
    only across them: the corners' term makes the first update split."""
    model = joint_systems.get("bearings")
    f = JointCellsFilter(model, eta=16)
    assert f.m[0, 1] == 0.0
    _, z = joint_systems.simulate(model, 1, seed=2)
    f.update(z[0])
    assert f.cells()[0].size == 16


def moments(f):
    return f.mean(), f.cov()


@pytest.mark.parametrize("name", joint_systems.names())
def test_split_exchange_and_merge_keep_the_beliefs_moments(name):
    model = joint_systems.get(name)
    _, z = joint_systems.simulate(model, 12, seed=4)
    f = JointCellsFilter(model, eta=16)
    for k in range(12):
        if k > 0:
            f.predict(k)
        before = moments(f)
        f.split()
        after = moments(f)
        scale = np.sqrt(np.diag(before[1]))
        np.testing.assert_allclose(after[0] / scale, before[0] / scale, rtol=0, atol=1e-12)
        np.testing.assert_allclose(after[1] / np.outer(scale, scale), before[1] / np.outer(scale, scale), atol=1e-12)
        f.update(z[k])
        before = moments(f)
        f.merge()
        np.testing.assert_allclose(moments(f)[0] / scale, before[0] / scale, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", joint_systems.names())
@pytest.mark.parametrize("eta", [1, 4, 64])
def test_cells_stay_valid(name, eta):
    """At most η cells, weights positive and summing to 1, every covariance positive definite, every step."""
    model = joint_systems.get(name)
    _, z = joint_systems.simulate(model, 30, seed=eta)
    f = JointCellsFilter(model, eta=eta)
    for k in range(30):
        if k > 0:
            f.predict(k)
        assert f.update(z[k]) == Status.OK
        w, m, P = f.cells()
        assert 1 <= w.size <= eta
        assert np.all(w > 0) and abs(w.sum() - 1) < 1e-12
        assert cholesky(P)[1].all()


def test_the_first_update_splits_the_prior_to_eta_cells():
    model = joint_systems.get("pendulum")
    _, z = joint_systems.simulate(model, 1, seed=1)
    f = JointCellsFilter(model, eta=16)
    assert f.cells()[0].size == 1
    f.update(z[0])
    assert f.cells()[0].size == 16


def test_an_observation_no_cell_can_explain_falls_back_and_keeps_the_belief():
    model = joint_systems.get("cvrange")
    f = JointCellsFilter(model, eta=8)
    mean, cov = moments(f)
    assert f.update(np.array([1e200])) == Status.FALLBACK
    assert f.log_likelihood == -math.inf
    np.testing.assert_allclose(f.mean(), mean, atol=1e-12)
    np.testing.assert_allclose(f.cov(), cov, rtol=1e-12)


def test_a_step_without_observation_changes_nothing():
    model = joint_systems.get("cvrange")
    f = JointCellsFilter(model, eta=8)
    f.update(np.array([3.0]))
    f.predict(1)
    cells = f.cells()
    assert f.update(None) == Status.NO_EVIDENCE and f.log_evidence == 0.0
    for a, b in zip(cells, f.cells()):
        np.testing.assert_array_equal(a, b)


def test_bad_input_is_refused():
    model = joint_systems.get("pendulum")
    f = JointCellsFilter(model, eta=8)
    with pytest.raises(ValueError, match="one observation per update"):
        f.update(np.array([[0.1], [0.2]]))
    with pytest.raises(ValueError, match="one observation per update"):
        f.update(np.array([0.1]), m=2)
    with pytest.raises(ValueError):
        f.update(np.array([math.nan]))
    assert f.cells()[0].size == 1  # nothing changed
    with pytest.raises(ValueError, match="power of two"):
        JointCellsFilter(model, eta=12)
    with pytest.raises(ValueError, match="additively"):
        JointCellsFilter(dataclasses.replace(model, additive_noise=False), eta=8)
    with pytest.raises(ValueError, match="mean and a variance"):
        JointCellsFilter(model, eta=8, prior=(LogNormal(0.0, 1.0), model.prior[1]))


def test_cells_near_the_largest_real_stay_finite():
    """A model whose numbers approach the largest double (pendulum with g = 6.5e150, q = 3.5e30, a fuzzing
    find): a split or merge whose result would overflow is not made, so every cell stays finite (before the
    guard, the second update merged two cells into one of infinite spread and fell back onto it)."""
    model = joint_systems.get("pendulum", g=6.546781264569233e150, q=3.529673470536386e30)
    f = JointCellsFilter(model, eta=4)
    f.predict(1, 1.8e-130)
    statuses = [f.update(np.array([3.486828033985999e30])), f.update(np.array([5e-324]))]
    assert set(statuses) <= {Status.OK, Status.OUTLIER, Status.FALLBACK}
    w, m, P = f.cells()
    assert np.isfinite(m).all() and np.isfinite(P).all() and abs(w.sum() - 1) < 1e-12


def test_a_prior_whose_variance_overflows_is_refused():
    model = joint_systems.get("pendulum")
    with pytest.raises(ValueError, match="overflows"):
        JointCellsFilter(model, eta=4, prior=(Normal(0.0, 1e200), model.prior[1]))


def kalman_nis(model, z) -> np.ndarray:
    """The Kalman filter's normalised innovation squared ν²/S per step, from its log evidence and S (the predicted
    position variance plus r²)."""
    means, covs, ev = kalman(model, z)
    A = model.transition(np.eye(model.dim), np.zeros((model.dim, model.dim_noise)), 0, 0.0).T
    r = model.loc_scale(np.zeros((1, model.dim)))[1][0, 0]
    predicted = [np.diag([law.var() for law in model.prior])] + [A @ P @ A.T + model.process_cov() for P in covs[:-1]]
    S = np.array([P[0, 0] + r * r for P in predicted])
    return -2.0 * ev - np.log(2.0 * math.pi * S)


@pytest.mark.parametrize("eta", [1, 8])
def test_the_test_ratio_is_the_kalman_filters_normalised_innovation(eta):
    """On a linear-Gaussian model the cells' predictive of z is the Kalman filter's, so the gate's ratio is its
    ν²/S, and a step is OUTLIER exactly where that exceeds 5² (a reading moved 8 units: it and the next), and
    INCONSISTENT exactly where, else, the running mean of the Kalman ratios exceeds NIS_LIMIT ("Consistency")."""
    model = cv_linear()
    z = linear_trace(model, 60, seed=13)
    z[30, 0] += 8.0
    run = run_joint_cells(model, z, eta=eta)
    nis = kalman_nis(model, z)
    np.testing.assert_allclose(run.test_ratio, nis, rtol=1e-9, atol=1e-12)
    assert nis[30] > 25 and np.sum(nis > 25) < 5
    mean = np.array(list(itertools.accumulate(nis, nis_track, initial=1.0))[1:])
    expected = np.where(nis > 25, Status.OUTLIER, np.where(mean > NIS_LIMIT, Status.INCONSISTENT, Status.OK))
    np.testing.assert_array_equal(run.status, expected)
    assert np.any(expected == Status.INCONSISTENT)


def test_gating_an_outlier_is_the_step_without_it():
    """With gate_outliers a reading that fails the gate is not weighed: on a linear model (nothing splits) the run
    is the one with that reading missing, bit for bit, and its log evidence 0; gate = ∞ never says OUTLIER, and
    without gating the status is all the gate changes (where the gate passes a reading the statuses agree:
    weighing the reading 50 units off leaves the steps after it INCONSISTENT, gate or not)."""
    model = cv_linear()
    z = linear_trace(model, 40, seed=14)
    z[20, 0] += 50.0
    missing = z.copy()
    missing[20, 0] = np.nan
    gated, without = run_joint_cells(model, z, 8, gate_outliers=True), run_joint_cells(model, missing, 8)
    assert gated.status[20] == Status.OUTLIER and gated.log_evidence[20] == 0.0
    np.testing.assert_array_equal(gated.mean, without.mean)
    np.testing.assert_array_equal(gated.cov, without.cov)
    flagged, off = run_joint_cells(model, z, 8), run_joint_cells(model, z, 8, gate=math.inf)
    assert flagged.status[20] == Status.OUTLIER and not np.any(off.status == Status.OUTLIER)
    passed = flagged.status != Status.OUTLIER
    np.testing.assert_array_equal(flagged.status[passed], off.status[passed])
    np.testing.assert_array_equal(flagged.mean, off.mean)
    np.testing.assert_array_equal(flagged.log_evidence, off.log_evidence)
    assert math.isnan(without.test_ratio[20])


@pytest.mark.parametrize("gate", [0.0, -1.0, math.nan])
def test_a_gate_that_is_not_positive_is_refused(gate):
    with pytest.raises(ValueError, match="gate must be > 0"):
        JointCellsFilter(joint_systems.get("pendulum"), eta=8, gate=gate)


def test_a_linear_model_keeps_no_departure():
    """The departure is the share of an outlier's move the kernel did not follow: on a linear-Gaussian model the
    cells are the Kalman filter, whose posterior is the model's whatever the reading, so nothing is kept (to
    rounding) and no step is DEPARTED."""
    model = cv_linear()
    z = linear_trace(model, 40, seed=14)
    z[20, 0] += 50.0
    f = JointCellsFilter(model, eta=8)
    statuses = []
    for k in range(40):
        if k > 0:
            f.predict(k)
        statuses.append(f.update(z[k]))
        assert np.all(np.abs(f.departure) < 1e-9 * np.sqrt(np.diag(f.cov())))
    assert statuses[20] == Status.OUTLIER and Status.DEPARTED not in statuses


def pendulum_with_outlier(steps: int = 80, at: int = 20):
    model = joint_systems.get("pendulum")
    x, z = joint_systems.simulate(model, steps, seed=3)
    z[at] = z[at] + 20.0 * np.asarray(model.loc_scale(x[[at]])[1])[0]
    return model, z


def test_an_outlier_the_cells_overshoot_leaves_a_departure_that_fades():
    """A pendulum reading 20 noise sd off (sin θ saturates, the cells' linear update does not): the departure is
    kept from that step, the later steps say DEPARTED while it exceeds half an sd in the belief's covariance, and
    the data wear it down until the status is OK again."""
    model, z = pendulum_with_outlier()
    f = JointCellsFilter(model, eta=16)
    statuses, lengths = [], []
    for k in range(len(z)):
        if k > 0:
            f.predict(k)
        statuses.append(f.update(z[k]))
        d = f.departure
        lengths.append(float(d @ np.linalg.solve(f.cov(), d)))
    assert statuses[20] == Status.OUTLIER and all(s == Status.OK for s in statuses[:20])
    assert lengths[19] == 0.0 and lengths[20] > 0.25
    departed = [k for k, s in enumerate(statuses) if s == Status.DEPARTED]
    assert departed and departed[0] == 21 and statuses[-1] == Status.OK
    assert all((lengths[k] > 0.25) == (statuses[k] == Status.DEPARTED) for k in range(21, len(z)))


def test_a_gated_outlier_leaves_no_departure():
    """With gate_outliers the reading is not weighed: the cells did not move, so there is nothing to depart from."""
    model, z = pendulum_with_outlier()
    f = JointCellsFilter(model, eta=16, gate_outliers=True)
    for k in range(len(z)):
        if k > 0:
            f.predict(k)
        assert f.update(z[k]) != Status.DEPARTED
        assert not f.departure.any()
