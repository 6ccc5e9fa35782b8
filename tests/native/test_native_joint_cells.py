"""The cell filter, C core vs reference: on every joint system at η = 1 … 64 the C filter (ux/joint_cells.h)
reproduces uxemu.joint_cells bit for bit in the double build — cells, means, covariances, statuses, log evidence
and log-densities — including steps without observation; the float build agrees to float rounding; bad input is
refused and changes nothing; the workspace is what the macro promises."""

import math

import numpy as np
import pytest

from uxemu import joint_systems
from uxemu.joint_cells import JointCellsFilter, run_joint_cells
from uxemu.native import NativeDomainError, NativeError

SYSTEMS = joint_systems.names()


def trace(name: str, steps: int, seed: int, missing=()):
    model = joint_systems.get(name)
    x, z = joint_systems.simulate(model, steps, seed)
    z[list(missing)] = np.nan
    return model, x, z


@pytest.mark.parametrize("name", SYSTEMS)
@pytest.mark.parametrize(
    "eta, steps, exchange", [(1, 30, True), (4, 40, True), (16, 40, True), (64, 15, True), (16, 40, False)]
)
def test_cells_match_the_reference_bit_for_bit(nat, name, eta, steps, exchange):
    model, _, z = trace(name, steps, seed=eta + steps, missing=(3, 4))
    ref = run_joint_cells(model, z, eta, exchange=exchange)
    run = nat.run_joint_cells(model.system_id, z, eta, exchange=exchange)
    assert_same_run(run, ref)


def assert_same_run(run, ref):
    np.testing.assert_array_equal(run.status, ref.status)
    np.testing.assert_array_equal(run.test_ratio, ref.test_ratio)
    np.testing.assert_array_equal(run.nis, ref.nis)
    np.testing.assert_array_equal(run.log_evidence, ref.log_evidence)
    for k, (r, c) in enumerate(zip(ref.posteriors, run.posteriors)):
        for a, b, what in zip(r, c, ("weights", "means", "covariances")):
            np.testing.assert_array_equal(b, a, err_msg=f"step {k} {what}")
    np.testing.assert_array_equal(run.mean, ref.mean)
    np.testing.assert_array_equal(run.cov, ref.cov)


@pytest.mark.parametrize("name", SYSTEMS)
@pytest.mark.parametrize("gate_outliers", [False, True])
def test_the_innovation_gate_matches_the_reference_bit_for_bit(nat, name, gate_outliers):
    """Readings moved far off (and a gate of 3 sd, so that the ratio decides on some ordinary steps too): the
    statuses (OUTLIER where the ratio exceeds gate²), test ratios and, gated or not, the cells are the reference's."""
    model, x, z = trace(name, 40, seed=21, missing=(5,))
    z[[12, 25]] = z[[12, 25]] + 15.0 * np.asarray(model.loc_scale(x[[12, 25]])[1])  # 15 noise sd off
    ref = run_joint_cells(model, z, 16, gate=3.0, gate_outliers=gate_outliers)
    run = nat.run_joint_cells(model.system_id, z, 16, gate=3.0, gate_outliers=gate_outliers)
    assert_same_run(run, ref)
    outlier = np.asarray(ref.status) == 4  # Status.OUTLIER
    assert outlier[12] and outlier[25]
    np.testing.assert_array_equal(outlier, ref.test_ratio > 9.0)


@pytest.mark.parametrize("name", SYSTEMS)
def test_the_departure_matches_the_reference_bit_for_bit(nat, name):
    """Two readings 15 noise sd off: after each, the departure the cells keep (and so every DEPARTED status) is the
    reference's at every step, predicts included."""
    model, x, z = trace(name, 40, seed=21, missing=(5,))
    z[[12, 25]] = z[[12, 25]] + 15.0 * np.asarray(model.loc_scale(x[[12, 25]])[1])
    ref, c = JointCellsFilter(model, eta=16), nat.joint_cells(model.system_id, 16)
    for k in range(40):
        if k > 0:
            ref.predict(k)
            c.predict(k)
            np.testing.assert_array_equal(c.departure(), ref.departure, err_msg=f"predict {k}")
        row = None if np.isnan(z[k]).any() else z[k]
        assert int(c.update(row)) == int(ref.update(row)), f"step {k}"
        np.testing.assert_array_equal(c.departure(), ref.departure, err_msg=f"update {k}")


def test_a_gate_that_is_not_positive_is_refused(nat):
    f = nat.joint_cells(joint_systems.spec("pendulum").id, 8)
    for gate in (0.0, -1.0, math.nan):
        with pytest.raises(NativeError, match="ERR_ARG"):
            f.set_gate(gate)


@pytest.mark.parametrize("name", SYSTEMS)
def test_the_log_density_matches_the_reference(nat, name):
    model, x, z = trace(name, 12, seed=5)
    ref, c = JointCellsFilter(model, eta=16), nat.joint_cells(model.system_id, 16)
    for k in range(12):
        if k > 0:
            ref.predict(k)
            c.predict(k)
        c.update(z[k])
        ref.update(z[k])
        assert c.logpdf(x[k]) == ref.logpdf(x[k])
        assert c.logpdf(x[k] + 50.0) == ref.logpdf(x[k] + 50.0)
    assert c.log_likelihood() == ref.log_likelihood


def test_float_build_agrees_to_float_rounding(nat_f):
    """Single precision through 20 steps of pendulum: means within 1e-3 of the posterior sd."""
    model, _, z = trace("pendulum", 20, seed=2)
    ref = run_joint_cells(model, z, 16)
    run = nat_f.run_joint_cells(model.system_id, z, 16)
    spread = np.sqrt(np.stack([ref.cov[:, 0, 0], ref.cov[:, 1, 1]], axis=1))
    assert np.max(np.abs(run.mean - ref.mean) / spread) < 1e-3


def test_bad_input_is_refused_and_changes_nothing(nat):
    model, _, z = trace("pendulum", 6, seed=1)
    clean = nat.run_joint_cells(model.system_id, z, 8)
    f = nat.joint_cells(model.system_id, 8)
    for k in range(6):
        if k > 0:
            f.predict(k)
        if k == 3:
            with pytest.raises(NativeDomainError):
                f.update(np.array([math.nan]))
            with pytest.raises(NativeDomainError):
                f.update(z[k], m=0)
            with pytest.raises(NativeDomainError):
                f.update(z[k], omega=[-1.0])
            with pytest.raises(NativeError):
                f.update(z[k], m=2)  # one observation per update
            with pytest.raises(NativeError):
                f.update(np.array([[0.1], [0.2]]))
        f.update(z[k])
    for a, b in zip(f.cells(), clean.posteriors[-1]):
        np.testing.assert_array_equal(a, b)


def test_an_observation_no_cell_explains_falls_back(nat):
    f = nat.joint_cells(joint_systems.spec("cvrange").id, 8)
    mean = f.mean()
    assert f.update(np.array([1e200])) == 1  # UX_FALLBACK
    assert f.log_likelihood() == -math.inf
    np.testing.assert_allclose(f.mean(), mean, atol=1e-12)


def test_configuration_errors_are_refused(nat):
    pendulum = joint_systems.spec("pendulum").id
    with pytest.raises(ValueError, match="no joint system 1"):
        nat.joint_cells(1, 8)  # sv is a scalar system
    with pytest.raises(NativeDomainError):
        nat.joint_cells(pendulum, 8, params=[0.05, 9.81, -0.5, 0.3])  # q must be > 0
    with pytest.raises(NativeError):
        nat.joint_cells(pendulum, 12)  # η not a power of two
    with pytest.raises(NativeDomainError):  # no mean and variance: not a cell prior
        nat.joint_cells(pendulum, 8, prior=[("lognormal", 0.0, 1.0), ("gaussian", 0.0, 1.0)])


def test_the_exchange_is_on_unless_turned_off_and_off_changes_the_run(nat):
    model, _, z = trace("pendulum", 60, seed=3)
    default, on = nat.run_joint_cells(model.system_id, z, 8), nat.run_joint_cells(model.system_id, z, 8, exchange=True)
    off = nat.run_joint_cells(model.system_id, z, 8, exchange=False)
    np.testing.assert_array_equal(default.log_evidence, on.log_evidence)
    assert not np.array_equal(off.log_evidence, on.log_evidence)  # pendulum bends: η = 8 fills and exchanges
    f = nat.joint_cells(model.system_id, 8)
    with pytest.raises(NativeError, match="ERR_ARG"):
        f._checked("set_exchange", 2)


def test_workspace_is_what_the_macro_promises(nat):
    """UX_JOINT_CELLS_WORKSPACE_BYTES(16, 4): two banks of η weights, bends, means (η·d) and covariances (η·d²),
    and η·(d + 1) reals of spreads."""
    f = nat.joint_cells(joint_systems.spec("bearings").id, 16)
    assert f.workspace_bytes == 8 * (2 * 16 * (1 + 1 + 4 + 16) + 16 * 5)
