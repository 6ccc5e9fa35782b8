"""The joint atom filter's innovation gate (docs/semantics.md, "Joint filter"): its test ratio against the weighed
points' predictive approaches the Kalman filter's normalised innovation as η grows on a linear-Gaussian model;
OUTLIER where it exceeds gate²; a gated reading is the step without it, bit for bit; gate = ∞ never flags."""

import math

import numpy as np
import pytest
from test_joint_cells import kalman_nis, linear_trace
from test_joint_filter import cv_linear

from uxemu import joint_systems, systems
from uxemu.bayes import Status
from uxemu.filter import BayesLaplaceFilter
from uxemu.joint_cells import JointCellsFilter
from uxemu.joint_filter import JointFilter, run_joint_filter


@pytest.mark.parametrize("eta, within", [(16, 0.5), (32, 0.2)])
def test_the_ratio_approaches_the_kalman_filters_normalised_innovation(eta, within):
    """Before a reading moved 8 units, |ν|/√S of the refined atom filter is the Kalman filter's to `within` sd at
    every step (the atoms' predictive is the Gaussian's quantized); the moved reading is OUTLIER."""
    model = cv_linear()
    z = linear_trace(model, 60, seed=13)
    z[30, 0] += 8.0
    run = run_joint_filter(model, z, eta, "refined")
    nis = kalman_nis(model, z)
    assert np.max(np.abs(np.sqrt(run.test_ratio[:30]) - np.sqrt(nis[:30]))) < within
    assert run.status[30] == Status.OUTLIER and np.all(run.status[:30] == Status.OK)


@pytest.mark.parametrize("mode", ["refined", "paper"])
def test_gating_an_outlier_is_the_step_without_it(mode):
    model = joint_systems.get("pendulum")
    x, z = joint_systems.simulate(model, 20, seed=2)
    z[10] = z[10] + 30.0 * np.asarray(model.loc_scale(x[[10]])[1])[0]
    missing = z.copy()
    missing[10] = np.nan
    gated, without = run_joint_filter(model, z, 8, mode, gate_outliers=True), run_joint_filter(model, missing, 8, mode)
    assert gated.status[10] == Status.OUTLIER and gated.log_evidence[10] == 0.0
    np.testing.assert_array_equal(gated.mean, without.mean)
    np.testing.assert_array_equal(gated.cov, without.cov)
    np.testing.assert_array_equal(gated.log_evidence, without.log_evidence)
    flagged, off = run_joint_filter(model, z, 8, mode), run_joint_filter(model, z, 8, mode, gate=math.inf)
    assert flagged.status[10] == Status.OUTLIER and Status.OUTLIER not in set(off.status.tolist())
    np.testing.assert_array_equal(flagged.mean, off.mean)
    assert math.isnan(without.test_ratio[10])


def test_several_evidence_points_take_the_largest_ratio():
    model = cv_linear()
    f, g = JointFilter(model, 16), JointFilter(model, 16)
    near, far = np.array([[0.1]]), np.array([[40.0]])
    assert f.update(near) == Status.OK
    assert g.update(np.vstack([near, far])) == Status.OUTLIER
    h = JointFilter(model, 16)
    h.update(far)
    assert g.test_ratio == h.test_ratio


@pytest.mark.parametrize("gate", [0.0, -1.0, math.nan])
@pytest.mark.parametrize("filter_class", [JointFilter, JointCellsFilter, BayesLaplaceFilter])
def test_a_gate_that_is_not_positive_is_refused_in_the_same_words(filter_class, gate):
    model = systems.get("lg") if filter_class is BayesLaplaceFilter else joint_systems.get("pendulum")
    with pytest.raises(ValueError, match=r"^the innovation gate must be > 0 standard deviations \(inf: off\), got"):
        filter_class(model, eta=8, gate=gate)
    assert filter_class(model, eta=8, gate=math.inf).gate == math.inf
