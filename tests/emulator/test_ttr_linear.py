"""TTR of a piecewise-linear density (mixture mode's reduction, docs/semantics.md "Filter"): closed forms,
the interpolant's mass and mean kept, and continuity in the nodes — the property it exists for."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uxemu._ttr_linear import remove_interpolation_variance, ttr_linear


def interpolant_mass_and_mean(e, lo, h):
    """Exact integrals of the linear interpolant, interval by interval (an independent formula)."""
    e = np.asarray(e, dtype=np.float64)
    t = lo + np.arange(e.size) * h
    mass = h * (e[:-1] + e[1:]) / 2
    moment = h * (t[:-1] * (2 * e[:-1] + e[1:]) + t[1:] * (e[:-1] + 2 * e[1:])) / 6
    return mass.sum(), moment.sum() / mass.sum()


@pytest.mark.parametrize("n", range(7))
def test_uniform_law_gives_equal_cells_with_atoms_at_their_centres(n):
    x, w = ttr_linear(np.ones(65), -2.0, 0.0625, n)
    cells = 1 << n
    np.testing.assert_allclose(x, -2 + 4 * (np.arange(cells) + 0.5) / cells, rtol=0, atol=1e-12)
    np.testing.assert_allclose(w, np.full(cells, 4 / cells), rtol=1e-12)


def test_triangular_law_splits_at_its_mean():
    """Density 2t on [0, 1]: mean 2/3; cells of mass 4/9 and 5/9 with means 4/9 and 38/45, and spreads
    ∫ t²·2t / mass − mean² = 2/81 and 37/4050."""
    x, w, v = ttr_linear(2 * np.arange(65) / 64, 0.0, 1 / 64, 1, spreads=True)
    np.testing.assert_allclose(w, [4 / 9, 5 / 9], rtol=1e-13)
    np.testing.assert_allclose(x, [4 / 9, 38 / 45], rtol=1e-13)
    np.testing.assert_allclose(v, [2 / 81, 37 / 4050], rtol=1e-11)


@pytest.mark.parametrize("n", range(7))
def test_uniform_cells_spread_like_a_uniform_law(n):
    _, _, v = ttr_linear(np.ones(65), -2.0, 0.0625, n, spreads=True)
    width = 4 / (1 << n)
    np.testing.assert_allclose(v, np.full(1 << n, width * width / 12), rtol=1e-10)


values = st.lists(st.floats(0.0, 1.0), min_size=2, max_size=200).filter(lambda v: sum(v) > 1e-3)


@given(values, st.floats(-100, 100), st.floats(1e-3, 10), st.integers(0, 6))
@settings(max_examples=200, deadline=None)
def test_keeps_the_interpolants_mass_and_mean(e, lo, h, n):
    x, w = ttr_linear(e, lo, h, n)
    mass, mean = interpolant_mass_and_mean(e, lo, h)
    assert len(x) <= 1 << n and np.all(w > 0) and np.all(np.diff(x) > 0)
    # Pieces are measured in absolute positions: rounding grows with how far the support is from 0.
    rel = 1e-13 * (len(e) + abs(lo) / h)
    assert abs(w.sum() - mass) <= rel * mass
    width = h * (len(e) - 1)
    assert abs(np.dot(w, x) / w.sum() - mean) <= rel * (abs(lo) + width)
    assert lo <= x.min() and x.max() <= lo + width


@given(st.lists(st.floats(0.05, 1.0), min_size=8, max_size=130), st.integers(1, 6))
@settings(max_examples=100, deadline=None)
def test_atoms_move_continuously_with_the_nodes(e, n):
    """Spreading the nodes by 1e-7 of the support moves every atom and mass by a comparable amount (TTR of
    the same nodes taken as atoms would move a whole node's weight between cells as it crosses a split)."""
    e, h = np.asarray(e), 1.0 / (len(e) - 1)
    x0, w0 = ttr_linear(e, 0.0, h, n)
    x1, w1 = ttr_linear(e, 0.0, h * (1 + 1e-7), n)
    assert len(x0) == len(x1) == 1 << n
    assert np.abs(x1 - x0).max() <= 1e-5 and np.abs(w1 - w0).max() <= 1e-5 * w0.sum()


@given(values, st.floats(-10, 10), st.floats(1e-2, 1), st.integers(0, 6))
@settings(max_examples=200, deadline=None)
def test_spreads_and_atoms_hold_the_interpolants_variance(e, lo, h, n):
    """Law of total variance: the cells' spreads (within) plus the atoms' own variance (between) are the
    interpolant's variance, whose second moment is integrated interval by interval here."""
    x, w, v = ttr_linear(e, lo, h, n, spreads=True)
    e = np.asarray(e, dtype=np.float64)
    t = lo + np.arange(e.size) * h
    t0, t1, f0, f1 = t[:-1], t[1:], e[:-1], e[1:]
    second = (h / 12 * (f0 * (3 * t0 * t0 + 2 * t0 * t1 + t1 * t1) + f1 * (t0 * t0 + 2 * t0 * t1 + 3 * t1 * t1))).sum()
    mass, mean = interpolant_mass_and_mean(e, lo, h)
    var = second / mass - mean * mean
    p = w / w.sum()
    mu = np.dot(p, x)
    assert np.all(v >= 0)
    assert abs(np.dot(p, v) + np.dot(p, (x - mu) ** 2) - var) <= 1e-9 * (abs(lo) + h * e.size) ** 2


def test_needs_two_nodes():
    with pytest.raises(ValueError, match="two nodes"):
        ttr_linear([1.0], 0.0, 1.0, 2)


@given(st.lists(st.floats(-10, 10), min_size=2, max_size=64, unique=True), st.floats(0.0, 3.0))
@settings(max_examples=200, deadline=None)
def test_interpolation_variance_comes_out_and_the_mean_stays(x, h):
    x = np.sort(np.asarray(x))
    w = np.full(x.size, 1.0 / x.size)
    y = remove_interpolation_variance(x, w, h)
    var, new = np.var(x), np.var(y)
    assert abs(y.mean() - x.mean()) <= 1e-12 * (1 + np.abs(x).max())
    assert abs(new - max(var - h * h / 6, 0.0)) <= 1e-9 * (1 + var)
    assert np.all(np.diff(y) >= 0)


lumps_beside = st.lists(
    st.tuples(st.floats(-200, 200), st.floats(1e-9, 2.0), st.floats(0.0, 1.0)), min_size=1, max_size=2
)


@given(values, st.floats(-10, 10), st.floats(1e-2, 1), st.integers(0, 6), lumps_beside)
@settings(max_examples=200, deadline=None)
def test_lumps_beside_the_nodes_keep_the_mass_mean_and_variance(e, lo, h, n, lumps):
    """A lump (a mass at one point with its own spread; the quadrature's far clumps) enters the cells' sums
    whole: the atoms' mass, mean and total variance (spreads within, atoms between) are those of the
    interpolant and the lumps together, wherever a lump lies: inside the nodes, outside them or on an edge."""
    x, w, v = ttr_linear(e, lo, h, n, spreads=True, lumps=lumps)
    e = np.asarray(e, dtype=np.float64)
    t = lo + np.arange(e.size) * h
    t0, t1, f0, f1 = t[:-1], t[1:], e[:-1], e[1:]
    second = (h / 12 * (f0 * (3 * t0 * t0 + 2 * t0 * t1 + t1 * t1) + f1 * (t0 * t0 + 2 * t0 * t1 + 3 * t1 * t1))).sum()
    mass, mean = interpolant_mass_and_mean(e, lo, h)
    at, p, spread = (np.array(c) for c in zip(*lumps))
    total = mass + p.sum()
    mu = (mass * mean + np.dot(p, at)) / total
    var = (second + np.dot(p, at * at + spread)) / total - mu * mu
    got = np.dot(w / w.sum(), x)
    assert len(x) <= 1 << n and np.all(np.diff(x) > 0) and np.all(v >= 0)
    assert abs(w.sum() - total) <= 1e-12 * total
    scale = abs(lo) + h * e.size + np.abs(at).max()
    assert abs(got - mu) <= 1e-12 * scale
    assert abs(np.dot(w / w.sum(), v + (x - got) ** 2) - var) <= 1e-9 * scale * scale


def test_a_lump_far_from_the_nodes_is_an_atom_of_its_own():
    """A lump 40 away from a narrow density, with a third of the mass: at n = 4 the first split (the mean) cuts
    it off, and it stays one atom at its own point with its own mass and spread; the other atoms hold the
    interpolant, within its nodes."""
    e = np.exp(-0.5 * ((np.arange(129) - 64) / 16.0) ** 2)
    mass = interpolant_mass_and_mean(e, -1.0, 1 / 64)[0]
    x, w, v = ttr_linear(e, -1.0, 1 / 64, 4, spreads=True, lumps=[(40.0, mass / 2, 0.01)])
    assert x[-1] == pytest.approx(40.0, abs=1e-12) and w[-1] == mass / 2 and v[-1] == pytest.approx(0.01, rel=1e-9)
    assert np.all(x[:-1] <= 1.0) and len(x) == 9


def test_without_lumps_it_is_ttr_linear_exactly():
    e = np.abs(np.sin(np.arange(40) / 3.0))
    a = ttr_linear(e, -3.0, 0.1, 5, spreads=True)
    b = ttr_linear(e, -3.0, 0.1, 5, spreads=True, lumps=())
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
