"""Joint values, C core vs reference: the joint TTR, construction, the independent product and the statistics
agree bit for bit in the double build (both follow docs/semantics.md, "Joint values", operation by
operation); d = 1 is the C scalar TTR bit for bit; the float build agrees to float rounding."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import uxemu as ux
from uxemu import joint
from uxemu.native import NativeDependencyError, NativeDomainError, NativeError
from agree import NATIVE
from test_native_ttr_lift import CASES, random_atoms, random_value


def random_joint_atoms(rng, d: int, ties: bool):
    """Up to 600 atoms in d components of different scales, some weights zero, sometimes a constant
    component or integer coordinates (ties)."""
    M = int(rng.integers(1, 600))
    x = rng.normal(0, 1, (M, d)) * rng.uniform(0.01, 100, d)
    if ties:
        x = np.round(x / rng.uniform(1, 50, d))
    if d > 1 and rng.uniform() < 0.2:
        x[:, int(rng.integers(d))] = rng.normal()
    w = rng.uniform(0, 2, M) * (rng.uniform(size=M) > 0.05)
    if not (w > 0).any():
        w[0] = 1.0
    return x, w


def reference_ttr(x, w, n):
    keep = w != 0
    return joint.reduce(x[keep], w[keep], n)


def test_joint_ttr_random_sets_bit_for_bit(nat, rng):
    for case in range(CASES):
        d = 1 + case % 4
        x, w = random_joint_atoms(rng, d, ties=case % 3 == 0)
        n = int(rng.integers(0, 7))
        rx, rw = reference_ttr(x, w, n)
        nx, nw = nat.joint_ttr(x, w, n)
        np.testing.assert_array_equal(nx, rx, err_msg=f"case {case} (d={d}, n={n}) positions")
        np.testing.assert_array_equal(nw, rw, err_msg=f"case {case} (d={d}, n={n}) masses")


@NATIVE
@given(st.integers(1, 4), st.integers(0, 6), st.data())
def test_joint_ttr_property_cases(nat, d, n, data):
    rows = data.draw(
        st.lists(
            st.tuples(st.lists(st.floats(-1e6, 1e6), min_size=d, max_size=d), st.floats(1e-6, 1e3)),
            min_size=1,
            max_size=200,
        )
    )
    x = np.array([r[0] for r in rows])
    w = np.array([r[1] for r in rows])
    rx, rw = reference_ttr(x, w, n)
    nx, nw = nat.joint_ttr(x, w, n)
    np.testing.assert_array_equal(nx, rx)
    np.testing.assert_array_equal(nw, rw)


def test_d1_is_the_c_scalar_ttr_on_the_scalar_cases(nat, rng):
    """The existing TTR cross-validation cases (test_native_ttr_lift.random_atoms), through both C paths."""
    for case in range(CASES):
        x, w = random_atoms(rng, ties=case % 3 == 0)
        n = int(rng.integers(0, 7))
        sx, sw = nat.ttr(x, w, n)
        jx, jw = nat.joint_ttr(x[:, None], w, n)
        np.testing.assert_array_equal(jx[:, 0], sx, err_msg=f"case {case}")
        np.testing.assert_array_equal(jw, sw, err_msg=f"case {case}")


def test_d1_joint_value_is_the_c_scalar_value(nat, rng):
    for case in range(CASES // 2):
        x, w = random_atoms(rng, ties=case % 3 == 0)
        eta = int(2 ** rng.integers(0, 7))
        v = nat.from_weighted_samples(x, w, eta)
        j = nat.joint_from_atoms(x[:, None], w, eta)
        np.testing.assert_array_equal(j.x[:, 0], v.x)
        np.testing.assert_array_equal(j.w, v.w)


def test_from_atoms_and_statistics_bit_for_bit(nat, rng):
    for case in range(CASES):
        d = 1 + case % 4
        x, w = random_joint_atoms(rng, d, ties=case % 3 == 0)
        eta = int(2 ** rng.integers(0, 7))
        r = joint.from_atoms(x, w, eta)
        v = nat.joint_from_atoms(x, w, eta)
        np.testing.assert_array_equal(v.x, r.x)
        np.testing.assert_array_equal(v.w, r.w)
        assert v.eta == r.eta and nat.joint_check(v) == 0
        np.testing.assert_array_equal(nat.joint_mean(v), r.mean())
        np.testing.assert_array_equal(nat.joint_cov(v), r.cov())
        for k in range(d):
            m, rm = nat.joint_marginal(v, k), r.marginal(k)
            np.testing.assert_array_equal(m.x, rm.x)
            np.testing.assert_array_equal(m.w, rm.w)
            for q in (0.0, 0.05, 0.5, 0.95, 1.0):
                assert nat.joint_quantile(v, k, q) == r.quantile(k, q)
            for t in rng.choice(r.x[:, k], 3).tolist() + [float(r.x[:, k].mean())]:
                assert nat.joint_sf(v, k, t) == r.sf(k, t)
                assert nat.joint_cdf(v, k, t) == r.cdf(k, t)


def test_product_bit_for_bit(nat, rng):
    for case in range(CASES // 4):
        d = 1 + case % 4
        rs = [random_value(rng) for _ in range(d)]
        if d > 2 and case % 3 == 0:
            rs[2] = rs[0]  # the same value twice: one input
        if d == 4:  # keep the outer product within a test-sized workspace
            rs = [ux.gaussian(float(rng.normal()), 1.0, 16) if len(r) > 16 else r for r in rs]
        nats = {id(r): nat.from_reference(r) for r in rs}
        eta = int(2 ** rng.integers(0, 7)) if case % 2 else 0
        ref = joint.product(*rs, eta=eta or None)
        got = nat.joint_product(*[nats[id(r)] for r in rs], eta=eta)
        np.testing.assert_array_equal(got.x, ref.x, err_msg=f"case {case}")
        np.testing.assert_array_equal(got.w, ref.w, err_msg=f"case {case}")
        assert got.eta == ref.eta


def test_refusals_agree(nat):
    a = ux.gaussian(0, 1, 8)
    na = nat.from_reference(a)
    with pytest.raises(ux.DependencyError):
        joint.product(a, a + 1.0)
    with pytest.raises(NativeDependencyError):
        nat.joint_product(na, nat.add(na, nat.point(1.0, 8)))
    bad = np.array([[0.0, 1.0], [np.inf, 0.0]])
    with pytest.raises(ValueError):
        joint.from_atoms(bad, eta=4)
    with pytest.raises(NativeDomainError):
        nat.joint_from_atoms(bad, eta=4)
    v = nat.joint_product(na, nat.from_reference(ux.gaussian(0, 1, 8)))
    with pytest.raises(NativeDomainError):
        nat.joint_quantile(v, 0, 1.5)
    with pytest.raises(NativeError):
        nat.joint_sf(v, 2, 0.0)


def test_workspace_bytes_are_the_documented_formula(nat):
    """UX_JOINT_TTR_WORKSPACE_BYTES as docs/semantics.md states it, and its d = 4, η = 64 figure."""

    def rnd(b):
        return (b + 7) // 8 * 8

    for d in range(1, 5):
        for eta in (1, 2, 4, 8, 16, 32, 64):
            for count in (1, 100, 4096):
                want = (
                    rnd(count) + rnd(8 * eta * (1 + 3 * d)) + 2 * rnd(8 * (eta // 2) * d) + rnd(eta // 2) + rnd(8 * d)
                )
                assert nat.lib.ux_abi_joint_ttr_workspace_bytes(count, d, eta) == want
    assert nat.lib.ux_abi_joint_ttr_workspace_bytes(4096, 4, 64) == 12864


# -- the float build ---------------------------------------------------------------------------------------
def test_float_build_d1_is_its_scalar_ttr(nat_f, rng):
    for case in range(CASES // 2):
        x, w = random_atoms(rng, ties=case % 3 == 0)
        n = int(rng.integers(0, 7))
        sx, sw = nat_f.ttr(x, w, n)
        jx, jw = nat_f.joint_ttr(x[:, None], w, n)
        np.testing.assert_array_equal(jx[:, 0], sx)
        np.testing.assert_array_equal(jw, sw)


def test_float_build_against_the_reference(nat_f, rng):
    """Float rounding can send an atom within ε of a cell mean to the other side, which repartitions a
    subtree but never moves the mean (the reasoning of test_native_float.py): means agree to 1e-5 of the
    scale, covariances to 2 % of the largest variance, marginal quantiles at 0.5 lie in the reference's
    [0.4, 0.6] quantile range."""
    for case in range(CASES // 2):
        d = 1 + case % 4
        x, w = random_joint_atoms(rng, d, ties=False)
        x = x.astype(np.float32).astype(np.float64)  # inputs the float build holds exactly
        w = w.astype(np.float32).astype(np.float64)
        eta = int(2 ** rng.integers(0, 7))
        r = joint.from_atoms(x[w > 0], w[w > 0], eta)
        v = nat_f.joint_from_atoms(x[w > 0], w[w > 0], eta)
        scale = np.abs(x).max(axis=0)
        assert len(v) <= eta
        assert (np.abs(nat_f.joint_mean(v) - r.mean()) <= 1e-5 * scale).all(), f"case {case} mean"
        cov, rcov = nat_f.joint_cov(v), r.cov()
        assert np.abs(cov - rcov).max() <= 0.02 * np.abs(rcov).max() + 1e-6 * scale.max() ** 2, f"case {case}"
        for k in range(d):
            q = nat_f.joint_quantile(v, k, 0.5)
            assert r.quantile(k, 0.4) - 1e-5 * scale[k] <= q <= r.quantile(k, 0.6) + 1e-5 * scale[k]


# -- the joint lift --------------------------------------------------------------------------------------
def cv(x, w):
    """Constant-velocity target, dt = 1, noise on both components."""
    return np.stack([x[:, 0] + x[:, 1] + w[:, 0], x[:, 1] + w[:, 1]], axis=1)


def coupled(x, w):
    """A nonlinear 2-D transition of arithmetic only (so both sides compute the same bits): a GSS-like
    position driven by a velocity, the velocity damped."""
    p, v = x[:, 0], x[:, 1]
    return np.stack([p / 2 + 25 * p / (1 + p * p) + v + w[:, 0], 0.9 * v - 0.01 * p * v + w[:, 1]], axis=1)


def expand(x, w):
    """d = 3 → 4: a component appended from the noise."""
    return np.concatenate([x + 0.1 * w[:, :1], (x[:, :1] * x[:, 1:2] + w[:, 1:2])], axis=1)


@pytest.mark.parametrize("f, d", [(cv, 2), (coupled, 2), (expand, 3)], ids=["cv", "coupled", "expand"])
def test_joint_lift_bit_for_bit(nat, rng, f, d):
    """η = 8 … 64 for the state; noises of up to 16 atoms each, so a case stays a few thousand callbacks."""
    for case in range(6):
        eta = (8, 16, 32, 64, 8, 32)[case]
        parts = [ux.gaussian(float(rng.normal()), float(rng.uniform(0.2, 2)), eta) for _ in range(d)]
        state = joint.product(*parts, eta=eta)
        noises = [ux.gaussian(0, float(rng.uniform(0.05, 0.5)), int(2 ** rng.integers(0, 5))) for _ in range(2)]
        ref = joint.lift(f, state, *noises)
        got = nat.joint_lift(f, nat.joint_from_reference(state), *[nat.from_reference(n) for n in noises])
        np.testing.assert_array_equal(got.x, ref.x, err_msg=f"case {case}")
        np.testing.assert_array_equal(got.w, ref.w, err_msg=f"case {case}")
        assert got.eta == ref.eta == max([eta] + [v.eta for v in noises])


def test_joint_lift_same_noise_twice_and_refusals(nat):
    state = joint.product(ux.gaussian(0, 1, 8), ux.gaussian(0, 1, 8))
    n = ux.gaussian(0, 1, 8)
    f = lambda x, w: np.stack([x[:, 0] + w[:, 0], x[:, 1] - w[:, 1]], axis=1)  # noqa: E731
    ns, nn = nat.joint_from_reference(state), nat.from_reference(n)
    ref, got = joint.lift(f, state, n, n), nat.joint_lift(f, ns, nn, nn)
    np.testing.assert_array_equal(got.x, ref.x)
    np.testing.assert_array_equal(got.w, ref.w)
    with pytest.raises(NativeDomainError), np.errstate(invalid="ignore"):
        nat.joint_lift(lambda x, w: np.log(x - 100), ns)
    shared = nat.joint_marginal(ns, 0)  # carries the state's sources
    with pytest.raises(NativeDependencyError):
        nat.joint_lift(f, ns, shared, nn)


def test_sizeof_joint_is_the_documented_figure(nat, nat_f):
    """ux/joint.h and docs/semantics.md: 24 + (UX_MAX_DIM + 1)·64 reals."""
    assert nat.lib.ux_abi_sizeof(b"ux_joint") == 24 + 5 * 64 * 8 == 2584
    assert nat_f.lib.ux_abi_sizeof(b"ux_joint") == 24 + 5 * 64 * 4 == 1304
