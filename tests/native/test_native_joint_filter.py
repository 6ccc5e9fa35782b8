"""The joint filter, C core vs reference: on the 2-D systems at η = 8 … 64, refined and paper, the C filter
(ux/joint_filter.h) reproduces uxemu.joint_filter bit for bit in the double build — atoms, weights, means,
covariances, statuses and log evidence — including steps without observation and weighted multi-point
evidence; the float build agrees to float rounding; bad input is refused and changes nothing."""

import math

import numpy as np
import pytest

from uxemu import joint_systems
from uxemu.joint_filter import JointFilter, run_joint_filter
from uxemu.laws import Normal
from uxemu.native import NativeDomainError, NativeError

SYSTEMS = joint_systems.names()


def trace(name: str, steps: int, seed: int, missing=()):
    model = joint_systems.get(name)
    _, z = joint_systems.simulate(model, steps, seed)
    z[list(missing)] = np.nan
    return model, z


def assert_runs_equal(ref, nat_run):
    np.testing.assert_array_equal(nat_run.status, ref.status)
    np.testing.assert_array_equal(nat_run.test_ratio, ref.test_ratio)
    np.testing.assert_array_equal(nat_run.nis, ref.nis)
    np.testing.assert_array_equal(nat_run.log_evidence, ref.log_evidence)
    for k, (r, n) in enumerate(zip(ref.posteriors, nat_run.posteriors)):
        np.testing.assert_array_equal(n.x, r.x, err_msg=f"step {k} atoms")
        np.testing.assert_array_equal(n.w, r.w, err_msg=f"step {k} weights")
    np.testing.assert_array_equal(nat_run.mean, ref.mean)
    np.testing.assert_array_equal(nat_run.cov, ref.cov)


@pytest.mark.parametrize("name", SYSTEMS)
@pytest.mark.parametrize("eta, steps", [(8, 40), (16, 40), (32, 25), (64, 8)])
@pytest.mark.parametrize("mode", ["refined", "paper"])
def test_joint_filter_matches_the_reference_bit_for_bit(nat, name, eta, steps, mode):
    model, z = trace(name, steps, seed=eta + steps, missing=(3, 4) if steps > 5 else ())
    assert_runs_equal(run_joint_filter(model, z, eta, mode), nat.run_joint_filter(model.system_id, z, eta, mode))


@pytest.mark.parametrize("name", SYSTEMS)
@pytest.mark.parametrize("mode", ["refined", "paper"])
@pytest.mark.parametrize("gate_outliers", [False, True])
def test_the_innovation_gate_matches_the_reference_bit_for_bit(nat, name, mode, gate_outliers):
    """Readings 15 noise sd off and a gate of 3 sd (so that the ratio decides on ordinary steps too): statuses,
    test ratios and, gated or not, the atoms are the reference's."""
    model = joint_systems.get(name)
    x, z = joint_systems.simulate(model, 30, 21)
    z[5] = np.nan
    z[[12, 20]] = z[[12, 20]] + 15.0 * np.asarray(model.loc_scale(x[[12, 20]])[1])
    ref = run_joint_filter(model, z, 16, mode, gate=3.0, gate_outliers=gate_outliers)
    run = nat.run_joint_filter(model.system_id, z, 16, mode, gate=3.0, gate_outliers=gate_outliers)
    assert_runs_equal(ref, run)
    assert ref.status[12] == 4  # Status.OUTLIER
    np.testing.assert_array_equal(ref.status == 4, ref.test_ratio > 9.0)


def test_a_gate_that_is_not_positive_is_refused(nat):
    f = nat.joint_filter(joint_systems.spec("pendulum").id, 8)
    for gate in (0.0, -1.0, math.nan):
        with pytest.raises(NativeError, match="ERR_ARG"):
            f.set_gate(gate)


def test_weighted_multi_point_evidence_and_custom_parameters_and_prior(nat):
    params = (0.1, 9.0, 0.3, 0.2)
    prior = ((1.0, 0.3), (0.5, 0.5))
    model = joint_systems.get("pendulum", prior=prior, **dict(zip(joint_systems.spec("pendulum").param_names, params)))
    ref = JointFilter(model, eta=16)
    c = nat.joint_filter(model.system_id, 16, "refined", list(params), [("gaussian", *p) for p in prior])
    z, om = np.array([[0.8], [0.85], [0.9]]), np.array([0.2, 0.5, 0.3])
    for k in range(6):
        if k > 0:
            ref.predict(k)
            c.predict(k)
        assert c.update(z + 0.01 * k, om, m=2) == ref.update(z + 0.01 * k, om, m=2)
        assert c.test_ratio() == ref.test_ratio
        np.testing.assert_array_equal(c.posterior().x, ref.posterior.x)
        np.testing.assert_array_equal(c.posterior().w, ref.posterior.w)
        assert c.log_evidence() == ref.log_evidence


def test_two_runs_are_bit_identical(nat):
    _, z = trace("cvrange", 30, seed=9)
    a, b = nat.run_joint_filter(6, z, 32), nat.run_joint_filter(6, z, 32)
    np.testing.assert_array_equal(a.mean, b.mean)
    np.testing.assert_array_equal(a.cov, b.cov)


def test_float_build_agrees_to_float_rounding(nat_f):
    """Single precision: 24-bit atoms through 20 steps of a nonlinear filter; means to 1e-3 of the state's
    spread (the reduction's cells may differ by an atom where two coordinates round together)."""
    model, z = trace("cvrange", 20, seed=2)
    ref = run_joint_filter(model, z, 16)
    run = nat_f.run_joint_filter(model.system_id, z, 16)
    spread = np.sqrt(np.stack([ref.cov[:, 0, 0], ref.cov[:, 1, 1]], axis=1))
    assert np.max(np.abs(run.mean - ref.mean) / spread) < 1e-3


def test_bad_evidence_is_refused_and_changes_nothing(nat):
    _, z = trace("pendulum", 6, seed=1)
    clean = nat.run_joint_filter(5, z, 8)
    f = nat.joint_filter(5, 8)
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
        f.update(z[k])
    np.testing.assert_array_equal(f.posterior().x, clean.posteriors[-1].x)


def test_configuration_errors_are_refused(nat):
    with pytest.raises(ValueError, match="no joint system 1"):
        nat.joint_filter(1, 8)  # sv is a scalar system
    with pytest.raises(NativeDomainError):
        nat.joint_filter(5, 8, params=[0.05, 9.81, -0.5, 0.3])  # q must be > 0
    with pytest.raises(NativeError):
        nat.joint_filter(5, 12)  # η not a power of two
    with pytest.raises(NativeDomainError):
        nat.joint_filter(5, 8, prior=[("gaussian", 0.0, -1.0), ("gaussian", 0.0, 1.0)])
    with pytest.raises(NativeDomainError):  # no location–scale form: not a joint prior (ux/joint_filter.h)
        nat.joint_filter(5, 8, prior=[("lognormal", 0.0, 1.0), ("gaussian", 0.0, 1.0)])


def test_workspace_is_what_the_macro_promises(nat):
    """UX_JOINT_FILTER_WORKSPACE_BYTES(32, 2): staged η²·2 + η² reals, the update's η² log-likelihoods and the
    joint reduction of η² atoms (docs/semantics.md, "Joint filter")."""
    f = nat.joint_filter(5, 32)
    ttr = int(nat.lib.ux_abi_joint_ttr_workspace_bytes(1024, 2, 32))
    assert f.workspace_bytes == 8 * (2048 + 1024 + 1024) + ttr == 32768 + ttr


def test_the_c_models_are_the_twins(nat):
    """A one-step filter from a point-like prior moves the atoms by the C transition; its mean equals the
    twin's transition of the prior mean (additive noise with mean 0, a linear map of the noise atoms)."""
    for name in SYSTEMS:
        spec = joint_systems.spec(name)
        start = [0.7, 0.3, 0.2, -0.1][: spec.dim]
        model = joint_systems.get(name, prior=[(c, 1e-9) for c in start])
        f = nat.joint_filter(model.system_id, 8, prior=[("gaussian", c, 1e-9) for c in start])
        f.predict(1)
        f.update(None)
        expect = model.transition(np.array([start]), np.zeros((1, model.dim_noise)), 1, 0.0)[0]
        np.testing.assert_allclose(f.mean(), expect, rtol=1e-9, atol=1e-9)
    assert isinstance(model.process_noise[0], Normal)
