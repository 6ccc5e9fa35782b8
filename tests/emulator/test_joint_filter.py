"""The reference joint filter (uxemu.joint_filter): d = 1 is the scalar filter bit for bit; on a linear-Gaussian
2-D system it follows the Kalman filter (means, covariances and the marginal likelihood); a step without
observation, bad evidence and the joint systems' twins behave as documented."""

import dataclasses
import math

import numpy as np
import pytest

from uxemu import joint_systems, run_filter, systems
from uxemu.bayes import Status
from uxemu.joint_filter import JointFilter, joint_bayes_laplace, run_joint_filter
from uxemu.joint_systems import JointModel
from uxemu.laws import Normal
from uxemu.traces import Trace


def lg_as_joint(a=0.95, q=0.5, r=1.0, prior=(0.0, 2.0)) -> JointModel:
    """The scalar `lg` system written as a 1-D joint model, with its twin's expressions."""
    return JointModel(
        name="lg1",
        system_id=0,
        params=(a, q, r),
        dim=1,
        transition=lambda x, w, k, u: (a * x[:, 0] + w[:, 0])[:, None],
        process_noise=(Normal(0.0, q),),
        prior=(Normal(*prior),),
        family="gaussian",
        loc_scale=lambda x: (x[:, :1], r + 0.0 * x[:, :1]),
        additive_noise=True,
    )


def cv_linear(dt=0.5, q=0.1, r=0.4) -> JointModel:
    """A constant-velocity target observed in position: linear-Gaussian, so the Kalman filter is exact."""
    l00 = math.sqrt(q * dt**3 / 3.0)
    l10 = q * dt * dt / 2.0 / l00
    l11 = math.sqrt(q * dt - l10 * l10)
    return JointModel(
        name="cvlin",
        system_id=0,
        params=(dt, q, r),
        dim=2,
        transition=lambda x, w, k, u: np.stack(
            [x[:, 0] + x[:, 1] * dt + l00 * w[:, 0], x[:, 1] + (l10 * w[:, 0] + l11 * w[:, 1])], axis=1
        ),
        process_noise=(Normal(0.0, 1.0), Normal(0.0, 1.0)),
        prior=(Normal(0.0, 1.0), Normal(0.5, 0.5)),
        family="gaussian",
        loc_scale=lambda x: (x[:, :1], r + 0.0 * x[:, :1]),
        additive_noise=True,
    )


def kalman(model: JointModel, z):
    """The exact filter of a linear-Gaussian joint model observed in its first component."""
    A = model.transition(np.eye(model.dim), np.zeros((model.dim, model.dim_noise)), 0, 0.0).T
    Q = model.process_cov()
    r = model.loc_scale(np.zeros((1, model.dim)))[1][0, 0]
    H = np.zeros((1, model.dim))
    H[0, 0] = 1.0
    m = np.array([law.mean() for law in model.prior])
    P = np.diag([law.var() for law in model.prior])
    means, covs, ev = [], [], []
    for k, zk in enumerate(z):
        if k > 0:
            m, P = A @ m, A @ P @ A.T + Q
        S = (H @ P @ H.T).item() + r * r
        innov = float(zk[0] - (H @ m)[0])
        ev.append(-0.5 * math.log(2 * math.pi * S) - 0.5 * innov * innov / S)
        K = (P @ H.T / S).ravel()
        m, P = m + K * innov, P - np.outer(K, H @ P)
        means.append(m.copy())
        covs.append(P.copy())
    return np.array(means), np.array(covs), np.array(ev)


@pytest.mark.parametrize("mode", ["refined", "paper"])
def test_d1_joint_filter_is_the_scalar_filter_bit_for_bit(mode):
    # The joint filter has no smooth path (docs/semantics.md, "Filter"): the scalar filter without it is the
    # same model without the additive-noise declaration (the same points, lifted).
    scalar = dataclasses.replace(systems.get("lg"), additive_noise=False)
    rng = np.random.default_rng(5)
    z = rng.normal(0, 2, 40)
    z[[7, 8, 20]] = np.nan  # steps without observation too
    T = z.size
    ref = run_filter(scalar, Trace(np.arange(T), np.zeros(T), z), eta=16, mode=mode)
    run = run_joint_filter(lg_as_joint(), z, eta=16, mode=mode)
    np.testing.assert_array_equal(run.mean[:, 0], ref.mean)
    np.testing.assert_array_equal(run.status, ref.status)
    np.testing.assert_array_equal(run.log_evidence, ref.log_evidence)
    for jv, sv in zip(run.posteriors, ref.posteriors):
        np.testing.assert_array_equal(jv.x[:, 0], sv.x)
        np.testing.assert_array_equal(jv.w, sv.w)


def test_linear_gaussian_2d_follows_the_kalman_filter():
    """η = 64, refined: means within 0.1 posterior sd of the exact filter at every step, variances within
    15 %, and the log-likelihood within 1e-2 nats per step."""
    model = cv_linear()
    rng = np.random.default_rng(11)
    x = model.sample_prior(rng, 1)
    z = []
    for k in range(60):
        if k > 0:
            x = model.sample_transition(x, k, 0.0, rng)
        z.append(model.sample_observation(x, rng)[0])
    z = np.array(z)
    run = run_joint_filter(model, z, eta=64)
    km, kc, kev = kalman(model, z)
    sd = np.sqrt(np.stack([kc[:, 0, 0], kc[:, 1, 1]], axis=1))
    assert np.max(np.abs(run.mean - km) / sd) < 0.1
    ratio = np.stack([run.cov[:, 0, 0] / kc[:, 0, 0], run.cov[:, 1, 1] / kc[:, 1, 1]])
    assert np.all(np.abs(ratio - 1) < 0.15), ratio.min(axis=1)
    assert abs(run.log_likelihood - kev.sum()) / z.shape[0] < 1e-2


def test_a_step_without_observation_reduces_the_prediction():
    model = joint_systems.get("cvrange")
    f = JointFilter(model, eta=8)
    f.update([10.0])
    f.predict(1)
    staged_x, staged_w = f.staged
    assert f.update(None) == Status.NO_EVIDENCE and f.log_evidence == 0.0
    assert len(f.posterior) <= 8
    np.testing.assert_allclose(f.mean(), staged_w @ staged_x / staged_w.sum(), rtol=1e-12)


def test_bayes_laplace_keeps_the_mean_under_a_flat_likelihood_and_weights_by_it_otherwise():
    model = joint_systems.get("cvrange", r=1e6)  # a likelihood flat to 1e-10 over the atoms
    rng = np.random.default_rng(2)
    x, w = rng.normal(0, 1, (500, 2)), rng.uniform(0.1, 1, 500)
    post, status, log_ev = joint_bayes_laplace(model, x, w, [2.0], eta=16)
    assert status == Status.OK
    np.testing.assert_allclose(post.mean(), w @ x / w.sum(), rtol=1e-9, atol=1e-12)
    sharp = joint_systems.get("cvrange", r=0.1, h=0.5)
    post, _, _ = joint_bayes_laplace(sharp, x, w, [1.2], eta=16)
    assert abs(abs(post.x[:, 0]) @ post.w - math.sqrt(1.2**2 - 0.25)) < 0.1  # |p| where the range says


def test_every_likelihood_zero_falls_back_to_the_prior():
    model = joint_systems.get("cvrange")
    x, w = np.array([[0.0, 1.0], [1.0, 2.0]]), np.array([0.5, 0.5])
    post, status, log_ev = joint_bayes_laplace(model, x, w, [1e200], eta=2)
    assert status == Status.FALLBACK and log_ev == -math.inf
    np.testing.assert_array_equal(post.x, x)


@pytest.mark.parametrize("z, message", [([1.0, 2.0], "observes 1 component"), ([math.nan], "not finite")])
def test_bad_evidence_is_refused_and_changes_nothing(z, message):
    f = JointFilter(joint_systems.get("pendulum"), eta=8)
    f.predict(1)
    before = f.staged
    with pytest.raises(ValueError, match=message):
        f.update(z)
    assert f.staged is before


def test_the_twins_declare_additive_noise_truthfully():
    """f(x, w) = f(x, 0) + A·w at random points, A from process_matrix (what `additive_noise` promises)."""
    rng = np.random.default_rng(4)
    for name in joint_systems.names():
        m = joint_systems.get(name)
        x, w = rng.normal(0, 2, (200, m.dim)), rng.normal(0, 1, (200, m.dim_noise))
        A = m.process_matrix()
        np.testing.assert_allclose(
            m.transition(x, w, 3, 0.0), m.transition(x, np.zeros_like(w), 3, 0.0) + w @ A.T, rtol=1e-12, atol=1e-12
        )


def test_a_prior_without_location_scale_form_is_refused():
    from uxemu.laws import LogNormal

    with pytest.raises(ValueError, match="location–scale form"):
        JointFilter(joint_systems.get("pendulum"), eta=8, prior=(LogNormal(0.0, 1.0), Normal(0.0, 1.0)))


def test_unknown_system_and_parameter_are_named():
    with pytest.raises(ValueError, match="unknown joint system 'nope'"):
        joint_systems.get("nope")
    with pytest.raises(ValueError, match="no parameter"):
        joint_systems.get("pendulum", sigma=1.0)
    with pytest.raises(ValueError, match="positive"):
        joint_systems.get("pendulum", r=-1.0)
