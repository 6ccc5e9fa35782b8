"""Joint values (uxemu.joint): the reduction against a loop-by-loop oracle of docs/semantics.md, d = 1 as the
scalar TTR bit for bit, the kept mean, rescaling, the independent product and the statistics."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import uxemu as ux
from uxemu import _ttr, joint
from uxemu.value import Value


def oracle_reduce(x, w, n):
    """The joint TTR(n) written as the rule reads: cells as lists of atom indices in input order, every sum
    a Python loop (one IEEE rounding per operation, as in C)."""
    M, d = len(x), len(x[0])

    def cell_sums(atoms):
        """The cell's weight and weighted coordinate sums, over its atoms in input order."""
        W, S = 0.0, [0.0] * d
        for i in atoms:
            W = W + w[i]
            for k in range(d):
                S[k] = S[k] + w[i] * x[i][k]
        return W, S

    cells = {0: list(range(M))}
    v0 = None
    for level in range(n):
        nxt = {}
        for c in sorted(cells):
            atoms = cells[c]
            W, S = cell_sums(atoms)
            m = [S[k] / W for k in range(d)]
            lo = [min(x[i][k] for i in atoms) for k in range(d)]
            hi = [max(x[i][k] for i in atoms) for k in range(d)]
            axis = 0
            if d > 1:
                V = [0.0] * d
                for i in atoms:
                    for k in range(d):
                        e = x[i][k] - m[k]
                        V[k] = V[k] + w[i] * (e * e)
                if level == 0:
                    v0 = V
                best = -1.0
                for k in range(d):
                    score = V[k] / v0[k] if v0[k] > 0 else 0.0
                    if lo[k] < hi[k] and score > best:
                        best, axis = score, k
            for i in atoms:
                nxt.setdefault(2 * c + (0 if x[i][axis] < m[axis] else 1), []).append(i)
        cells = nxt
    out_x, out_w = [], []
    for c in sorted(cells):
        atoms = cells[c]
        W, S = cell_sums(atoms)
        pos = [min(max(S[k] / W, min(x[i][k] for i in atoms)), max(x[i][k] for i in atoms)) for k in range(d)]
        out_x.append(pos)
        out_w.append(W)
    return np.array(out_x), np.array(out_w)


def random_set(rng, d, ties=False):
    M = int(rng.integers(1, 300))
    x = rng.normal(0, 1, (M, d)) * rng.uniform(0.01, 100, d)
    if ties:
        x = np.round(x / x.std(axis=0).clip(1e-300) * 2)
    if d > 1 and rng.uniform() < 0.2:
        x[:, int(rng.integers(d))] = 0.1  # a constant component: never eligible
    return x, rng.uniform(0.01, 2, M)


def test_reduce_matches_the_loop_oracle_bit_for_bit(rng):
    for case in range(120):
        d = int(rng.integers(1, 5))
        x, w = random_set(rng, d, ties=case % 3 == 0)
        n = int(rng.integers(0, 7))
        px, pw = joint.reduce(x, w, n)
        ox, ow = oracle_reduce(x.tolist(), w.tolist(), n)
        np.testing.assert_array_equal(px, ox, err_msg=f"case {case}")
        np.testing.assert_array_equal(pw, ow, err_msg=f"case {case}")


@given(arrays(np.float64, st.integers(1, 300), elements=st.floats(-1e3, 1e3)), st.data(), st.integers(0, 6))
def test_d1_is_the_scalar_ttr_bit_for_bit(x, data, n):
    w = data.draw(arrays(np.float64, x.size, elements=st.floats(1e-6, 1.0)))
    for rule in joint.RULES:  # every candidate rule has one axis to choose from
        px, pw = joint.reduce(x[:, None], w, n, rule)
        rx, rw = _ttr.ttr(x, w, n)
        np.testing.assert_array_equal(px[:, 0], rx)
        np.testing.assert_array_equal(pw, rw)


def test_d1_joint_value_is_the_scalar_value(rng):
    for case in range(50):
        x, w = random_set(rng, 1, ties=case % 2 == 0)
        eta = int(2 ** rng.integers(0, 7))
        j, v = joint.from_atoms(x, w, eta), Value.from_atoms(x[:, 0], w, eta)
        np.testing.assert_array_equal(j.x[:, 0], v.x)
        np.testing.assert_array_equal(j.w, v.w)


def test_mean_mass_and_validity(rng):
    for case in range(100):
        d = int(rng.integers(2, 5))
        x, w = random_set(rng, d, ties=case % 4 == 0)
        n = int(rng.integers(0, 7))
        px, pw = joint.reduce(x, w, n)
        scale = np.abs(x).max(axis=0) + 1e-300
        assert len(px) <= min(2**n, len(np.unique(x, axis=0)))
        assert (pw > 0).all()
        np.testing.assert_allclose(pw.sum(), w.sum(), rtol=1e-13)
        np.testing.assert_allclose((pw @ px) / pw.sum(), (w @ x) / w.sum(), rtol=0, atol=1e-13 * scale.max())
        assert len(np.unique(px, axis=0)) == len(px), "two output atoms are equal"
        assert (px >= x.min(axis=0)).all() and (px <= x.max(axis=0)).all()


def test_rescaling_a_component_by_a_power_of_two_rescales_the_atoms_exactly(rng):
    for case in range(50):
        d = int(rng.integers(2, 5))
        x, w = random_set(rng, d)
        factor = np.ones(d)
        factor[int(rng.integers(d))] = 2.0 ** int(rng.integers(-20, 21))
        px, pw = joint.reduce(x, w, 4)
        qx, qw = joint.reduce(x * factor, w, 4)
        np.testing.assert_array_equal(qx, px * factor)
        np.testing.assert_array_equal(qw, pw)


def test_a_permutation_moves_the_atoms_only_by_rounding(rng):
    for case in range(30):
        x, w = random_set(rng, int(rng.integers(2, 5)))
        p = rng.permutation(len(w))
        px, pw = joint.reduce(x, w, 4)
        qx, qw = joint.reduce(x[p], w[p], 4)
        np.testing.assert_allclose(qx, px, rtol=1e-12, atol=1e-12 * np.abs(x).max())
        np.testing.assert_allclose(qw, pw, rtol=1e-12)


def test_equal_atoms_stay_one_cell():
    px, pw = joint.reduce(np.array([[1.0, 2.0]] * 5), np.full(5, 0.2), 3)
    np.testing.assert_array_equal(px, [[1.0, 2.0]])
    np.testing.assert_allclose(pw, [1.0])


def test_product_of_independent_values():
    a, b, c = ux.gaussian(1, 2, 8), ux.uniform(0, 1, 4), ux.exponential(3, 8)
    v = joint.product(a, b, c, eta=32)
    assert v.dim == 3 and len(v) <= 32 and v.eta == 32
    assert v.sources == a.sources | b.sources | c.sources
    np.testing.assert_allclose(v.mean(), [a.mean(), b.mean(), c.mean()], atol=1e-14)
    # The reduction keeps every cell's mean, so it cannot add variance, and covariance comes only from
    # the cells: a product of 256 points into 32 keeps most of each component's variance.
    cov = v.cov()
    for k, s in enumerate((a, b, c)):
        assert 0.8 * s.var() <= cov[k, k] <= s.var() * (1 + 1e-12)
    assert joint.product(a, b).eta == 8


def test_product_of_a_value_with_itself_is_the_diagonal():
    a = ux.gaussian(0, 1, 16)
    v = joint.product(a, a)
    np.testing.assert_array_equal(v.x[:, 0], a.x)
    np.testing.assert_array_equal(v.x[:, 1], a.x)
    np.testing.assert_allclose(v.w, a.w, rtol=1e-15)


def test_product_refuses_dependent_values():
    a = ux.gaussian(0, 1, 8)
    with pytest.raises(ux.DependencyError):
        joint.product(a, a + 1.0)


def test_statistics_against_direct_formulas(rng):
    for case in range(30):
        d = int(rng.integers(1, 5))
        x, w = random_set(rng, d, ties=case % 2 == 0)
        v = joint.from_atoms(x, w, int(2 ** rng.integers(0, 7)))
        np.testing.assert_allclose(v.mean(), v.w @ v.x, rtol=1e-13, atol=1e-13 * np.abs(v.x).max())
        np.testing.assert_allclose(
            v.cov(),
            np.cov(v.x.T, aweights=v.w, bias=True).reshape(d, d),
            rtol=1e-10,
            atol=1e-12 * np.abs(v.x).max() ** 2,
        )
        for k in range(d):
            m = v.marginal(k)
            assert (np.diff(m.x) > 0).all() and m.eta == v.eta and m.sources == v.sources
            np.testing.assert_allclose(m.w, [v.w[v.x[:, k] == t].sum() for t in m.x], rtol=1e-14)
            for t in np.concatenate([v.x[:, k], v.x[:, k] + 1e-3]):
                assert v.sf(k, t) == pytest.approx(v.w[v.x[:, k] > t].sum(), rel=1e-13, abs=1e-15)
                assert v.cdf(k, t) == pytest.approx(v.w[v.x[:, k] <= t].sum(), rel=1e-13, abs=1e-15)
            for q in (0.0, 0.1, 0.5, 0.9, 1.0):
                t = v.quantile(k, q)
                assert v.cdf(k, t) >= q - 1e-15
                assert q == 0 or v.w[v.x[:, k] < t].sum() < q


def test_known_small_value():
    v = joint.JointValue(np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]]), np.array([0.25, 0.25, 0.5]), 4)
    m0 = v.marginal(0)
    np.testing.assert_array_equal(m0.x, [0.0, 1.0])
    np.testing.assert_array_equal(m0.w, [0.25, 0.75])
    assert v.sf(0, 0.5) == 0.75 and v.quantile(1, 0.3) == 1.0 and v.prob_greater(1, 0.5) == 0.75
    np.testing.assert_allclose(v.mean(), [0.75, 0.75])
    np.testing.assert_allclose(v.cov(), [[0.1875, -0.0625], [-0.0625, 0.1875]])


@pytest.mark.parametrize(
    "x, w, eta, message",
    [
        (np.zeros((3, 5)), None, 4, "1 ≤ d ≤ 4"),
        (np.zeros((0, 2)), None, 4, "at least one atom"),
        (np.array([[0.0, np.nan]]), None, 4, "finite"),
        (np.zeros((2, 2)), [1.0, -1.0], 4, "non-negative"),
        (np.zeros((2, 2)), [0.0, 0.0], 4, "every weight is zero"),
        (np.zeros((2, 2)), [1.0], 4, "2 atoms but 1 weights"),
        (np.zeros((2, 2)), None, 3, "power of two"),
    ],
)
def test_bad_input_is_refused_with_a_clear_error(x, w, eta, message):
    with pytest.raises(ValueError, match=message):
        joint.from_atoms(x, w, eta)


def test_bad_component_and_level():
    v = joint.product(ux.gaussian(0, 1, 4), ux.gaussian(0, 1, 4))
    with pytest.raises(ValueError, match="component 2 of a 2-dimensional"):
        v.marginal(2)
    with pytest.raises(ValueError, match="quantile level"):
        v.quantile(0, 1.5)
    with pytest.raises(ValueError, match="unknown split rule"):
        joint.reduce(v.x, v.w, 2, rule="random")


# -- the joint lift ---------------------------------------------------------------------------------------
def cv(x, w):
    """Constant-velocity target, dt = 1: position += velocity + noise 0, velocity += noise 1."""
    return np.stack([x[:, 0] + x[:, 1] + w[:, 0], x[:, 1] + w[:, 1]], axis=1)


def test_lift_of_a_linear_transition_keeps_the_mean_and_shrinks_the_covariance():
    state = joint.product(ux.gaussian(0, 1, 16), ux.gaussian(1, 0.5, 16))
    n0, n1 = ux.gaussian(0.1, 0.3, 16), ux.gaussian(0, 0.2, 8)
    v = joint.lift(cv, state, n0, n1)
    A = np.array([[1.0, 1.0], [0.0, 1.0]])
    m = state.mean()
    np.testing.assert_allclose(v.mean(), A @ m + [n0.mean(), n1.mean()], atol=1e-13)
    # The points' covariance is exactly A Σ Aᵀ + Q; the reduction keeps only the cells' means, so it
    # removes the within-cell part: the difference is positive semi-definite.
    exact = A @ state.cov() @ A.T + np.diag([n0.var(), n1.var()])
    assert np.linalg.eigvalsh(exact - v.cov()).min() >= -1e-12
    # 16 atoms in two dimensions are about 4 per axis: a scalar 4-atom Gaussian keeps 88 % of the variance.
    assert v.cov()[0, 0] >= 0.85 * exact[0, 0] and v.eta == 16 and len(v) <= 16
    assert v.sources == state.sources | n0.sources | n1.sources


def test_lift_in_one_dimension_is_the_scalar_lift_bit_for_bit(rng):
    for case in range(30):
        a = ux.gaussian(rng.normal(), rng.uniform(0.1, 2), int(2 ** rng.integers(0, 7)))
        n = ux.laplace(0, rng.uniform(0.1, 1), int(2 ** rng.integers(0, 7)))
        state = joint.JointValue(a.x[:, None], a.w, a.eta, a.sources)

        def f(x, w):
            return (x[:, 0] / 2 + 25 * x[:, 0] / (1 + x[:, 0] * x[:, 0]) + w[:, 0])[:, None]

        got = joint.lift(f, state, n)
        want = ux.lift(lambda s, t: s / 2 + 25 * s / (1 + s * s) + t, a, n)
        np.testing.assert_array_equal(got.x[:, 0], want.x)
        np.testing.assert_array_equal(got.w, want.w)


def test_lift_changes_dimension_and_repeats_a_noise():
    state = joint.product(ux.gaussian(0, 1, 8), ux.gaussian(0, 1, 8))
    n = ux.gaussian(0, 1, 8)
    v = joint.lift(lambda x, w: np.stack([x[:, 0], x[:, 1], w[:, 0] - w[:, 1]], axis=1), state, n, n)
    assert v.dim == 3
    np.testing.assert_array_equal(v.x[:, 2], 0.0)  # the same noise twice is one input: w − w = 0


def test_lift_refusals():
    a = ux.gaussian(0, 1, 8)
    state = joint.product(a, ux.gaussian(0, 1, 8))
    with pytest.raises(ux.DependencyError, match="shares the uncertain source"):
        joint.lift(cv, state, a, ux.gaussian(0, 1, 8))
    with pytest.raises(ValueError, match="non-finite"):
        joint.lift(lambda x, w: np.log(x), state)
    with pytest.raises(ValueError, match="one row per point"):
        joint.lift(lambda x, w: x[:, 0], state)
