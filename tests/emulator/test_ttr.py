"""TTR: validity, mean preservation, the exact W1 identity, idempotence, degenerate inputs."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from uxemu import _ttr
from uxemu.value import Value
from ttr_oracles import brute_w1, in_order_tree

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
weights = st.floats(1e-6, 1.0)


# Positions no in-order sum absorbs whole: 0, or at least 1e-6 in magnitude (at most 2^30 below the largest).
resolved = finite.filter(lambda v: v == 0 or abs(v) >= 1e-6)


@st.composite
def atom_sets(draw, min_size=1, max_size=300, elements=finite):
    size = draw(st.integers(min_size, max_size))
    x = draw(arrays(np.float64, size, elements=elements))
    w = draw(arrays(np.float64, size, elements=weights))
    return x, w


def reduce(x, w, n):
    xs, ws = _ttr.compact(x, w)
    return _ttr.ttr(xs, ws, n)


@given(atom_sets(), st.integers(0, 6))
def test_output_is_sorted_positive_and_small(xw, n):
    px, pw = reduce(*xw, n)
    assert px.size <= 2**n
    assert np.all(np.diff(px) > 0)
    assert np.all(pw > 0)
    assert px.size <= np.unique(xw[0]).size


@given(atom_sets(), st.integers(0, 6))
def test_mean_and_mass_preserved(xw, n):
    x, w = xw
    px, pw = reduce(x, w, n)
    assert np.isclose(pw.sum(), w.sum(), rtol=1e-12)
    scale = np.abs(x).max() + 1.0
    assert abs((pw * px).sum() / pw.sum() - (w * x).sum() / w.sum()) <= 1e-12 * scale


@given(atom_sets(), st.integers(0, 6))
def test_w1_identity(xw, n):
    """W1(input, TTR(input)) = Σ_cells Σ_j w_j |x_j − m_cell|: the centroid map is optimal in 1-D."""
    x, w = xw
    xs, ws = _ttr.compact(x, w)
    cell = _ttr.cell_keys(xs, ws, np.zeros(xs.size, dtype=np.int64), 1, n)
    pos = {c: _ttr.ttr(xs[cell == c], ws[cell == c], 0)[0][0] for c in np.unique(cell)}
    transport = sum(float(np.sum(ws[cell == c] * np.abs(xs[cell == c] - p))) for c, p in pos.items())
    px, pw = reduce(x, w, n)
    w1 = brute_w1(xs, ws / ws.sum(), px, pw / pw.sum())
    scale = np.abs(xs).max() + 1.0
    assert w1 == pytest.approx(transport / ws.sum(), rel=1e-9, abs=1e-12 * scale)


@given(st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_output_is_valid(n, seed):
    """Split points interleave strictly (x_i < s_i < x_i+1); a full tree also passes the bottom-up oracle."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(4 * 2**n) * rng.uniform(0.1, 10)
    w = rng.uniform(0.01, 1, x.size)
    px, pw = reduce(x, w, n)
    s = Value(px, pw / pw.sum(), 2**n).split_points()
    assert np.all(px[:-1] < s) and np.all(s < px[1:])
    if px.size == 2**n:  # a cell can end as a lone outlier before level n; then the tree is not full
        assert np.all(np.diff(in_order_tree(px, pw)) > 0)


def test_many_smooth_atoms_give_a_full_tree():
    rng = np.random.default_rng(5)
    x = rng.standard_normal(5000)
    for n in range(7):
        px, pw = reduce(x, np.ones_like(x), n)
        assert px.size == 2**n
        assert np.all(np.diff(in_order_tree(px, pw)) > 0)


@given(atom_sets(elements=resolved), st.integers(0, 6))
def test_idempotent(xw, n):
    """Reducing the reduction changes nothing. Cell sums run in input order, so where a running sum absorbs an
    atom whole (a subnormal beside ±0.99999) the sorted second pass can split a cell the first did not: the
    property holds where no position is that small."""
    px, pw = reduce(*xw, n)
    qx, qw = reduce(px, pw, n)
    np.testing.assert_array_equal(qx, px)
    np.testing.assert_allclose(qw, pw, rtol=1e-14)


def test_w1_can_grow_with_n():
    """More atoms can be worse in W1, so no test assumes monotonicity in n. Splitting a cell at its mean
    moves each half's atom to the half's own mean, which can lie farther from that half's mass than the
    parent's mean did. Here one atom at the mean −23/20 gives W1 = 433/200; the halves {−9, −2} and {−1, 9}
    at their means −32/9 and 9/11 give 1349/495, more; four cells hold the four atoms exactly."""
    x = np.array([-9.0, -2.0, -1.0, 9.0])
    w = np.array([2.0, 7.0, 9.0, 2.0])
    errs = [brute_w1(x, w / w.sum(), *(lambda a, b: (a, b / b.sum()))(*reduce(x, w, n))) for n in range(3)]
    assert errs[0] == pytest.approx(433 / 200, rel=1e-12)
    assert errs[1] == pytest.approx(1349 / 495, rel=1e-12)
    assert errs[2] == 0.0


def test_degenerate_all_equal():
    px, pw = reduce(np.full(10, 3.5), np.ones(10), 4)
    np.testing.assert_array_equal(px, [3.5])
    assert pw[0] == pytest.approx(10.0)


def test_degenerate_zero_weights_dropped():
    px, pw = reduce(np.array([1.0, 2.0, 3.0]), np.array([0.0, 1.0, 0.0]), 3)
    np.testing.assert_array_equal(px, [2.0])


def test_degenerate_single_atom_and_n0():
    px, pw = reduce(np.array([7.0]), np.array([0.2]), 6)
    np.testing.assert_array_equal(px, [7.0])
    px, pw = reduce(np.array([1.0, 3.0]), np.array([1.0, 3.0]), 0)
    np.testing.assert_allclose(px, [2.5])


def test_known_split_by_mean_not_median():
    """Atoms 0, 1, 2, 10 (equal weight): the mean 3.25 splits 3 | 1, not 2 | 2."""
    px, pw = reduce(np.array([0.0, 1.0, 2.0, 10.0]), np.ones(4), 1)
    np.testing.assert_allclose(px, [1.0, 10.0])
    np.testing.assert_allclose(pw, [3.0, 1.0])


def test_rows_equal_single():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((7, 50))
    W = rng.uniform(0.1, 1, (7, 50)) * (rng.uniform(size=(7, 50)) > 0.2)  # weight 0: not in the row
    bx, bw, counts = _ttr.ttr_rows(X, W, 3)
    for r in range(7):
        px, pw = reduce(X[r], W[r], 3)
        np.testing.assert_array_equal(bx[r, : counts[r]], px)
        np.testing.assert_array_equal(bw[r, : counts[r]], pw)


@given(atom_sets(min_size=2), st.integers(0, 6), st.integers(0, 2**32 - 1))
def test_order_changes_only_rounding(xw, n, seed):
    """TTR needs no sorted input: the cells are decided by comparisons, so a permutation of the atoms
    moves a result only by the rounding of its sums (barring a point within rounding of a cell mean)."""
    x, w = xw
    perm = np.random.default_rng(seed).permutation(x.size)
    px, pw = reduce(x, w, n)
    qx, qw = reduce(x[perm], w[perm], n)
    if px.size == qx.size:
        scale = np.abs(x).max() + 1.0
        np.testing.assert_allclose(qx, px, rtol=1e-9, atol=1e-12 * scale)
        np.testing.assert_allclose(qw, pw, rtol=1e-9)


def test_sorted_and_shuffled_inputs_give_the_same_cells():
    rng = np.random.default_rng(11)
    x = rng.standard_normal(4096) * 3.0
    w = rng.uniform(0.1, 1.0, x.size)
    perm = rng.permutation(x.size)
    order = np.argsort(x)
    zero = np.zeros(x.size, dtype=np.int64)
    for n in range(7):
        a = _ttr.cell_keys(x, w, zero, 1, n)
        b = _ttr.cell_keys(x[perm], w[perm], zero, 1, n)
        c = _ttr.cell_keys(x[order], w[order], zero, 1, n)
        np.testing.assert_array_equal(a[perm], b)
        np.testing.assert_array_equal(a[order], c)
        assert np.all(np.diff(c) >= 0)  # cells are numbered left to right


def test_cell_sums_follow_the_input_order():
    """A cell's sums run over its atoms in their input order, not in position order (docs/semantics.md):
    sums in another order round differently, and the C core uses this order."""
    rng = np.random.default_rng(13)
    x = rng.standard_normal(2000) * 1e3
    w = rng.uniform(0, 1, x.size) * rng.choice([1e-8, 1.0, 1e8], x.size)
    (pos,), (mass,) = _ttr.ttr(x, w, 0)
    seqW = seqS = 0.0
    for xi, wi in zip(x, w):
        seqW += wi
        seqS += wi * xi
    assert mass == seqW and pos == seqS / seqW


def test_sums_are_sequential_like_the_c_core():
    """The cell mean must come from a left-to-right sum, not numpy's pairwise one."""
    rng = np.random.default_rng(9)
    x = np.sort(rng.standard_normal(1000) * 1e3)
    w = rng.uniform(0, 1, 1000) * rng.choice([1e-8, 1.0, 1e8], 1000)
    W, S, _, _ = _ttr._cell_sums(x, w, np.array([0]), np.array([1000]))
    seqW = seqS = 0.0
    for xi, wi in zip(x, w):
        seqW += wi
        seqS += wi * xi
    assert W[0] == seqW and S[0] == seqS


def test_log2_eta_rejects_bad_sizes():
    for bad in (0, 3, 128, -4):
        with pytest.raises(ValueError, match="power of two"):
            _ttr.log2_eta(bad)


def test_value_from_atoms_validates():
    with pytest.raises(ValueError, match="finite"):
        Value.from_atoms([1.0, np.nan], [1, 1])
    with pytest.raises(ValueError, match="non-negative"):
        Value.from_atoms([1.0, 2.0], [1, -1])
    with pytest.raises(ValueError, match="zero"):
        Value.from_atoms([1.0, 2.0], [0, 0])
    with pytest.raises(ValueError, match="weights"):
        Value.from_atoms([1.0, 2.0], [1.0])
