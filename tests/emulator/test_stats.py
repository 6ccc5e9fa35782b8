"""Statistics of a value and its TTR-binned density."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import uxemu as ux


def v3():
    return ux.from_weighted_samples([1.0, 2.0, 4.0], [0.2, 0.5, 0.3], eta=4)


def test_moments_of_a_known_value():
    v = v3()
    mean = 0.2 * 1 + 0.5 * 2 + 0.3 * 4
    assert v.mean() == pytest.approx(mean, abs=1e-15)
    var = 0.2 * (1 - mean) ** 2 + 0.5 * (2 - mean) ** 2 + 0.3 * (4 - mean) ** 2
    assert v.var() == pytest.approx(var, rel=1e-14)
    assert v.std() == pytest.approx(np.sqrt(var), rel=1e-14)
    assert v.moment(2) == pytest.approx(0.2 + 0.5 * 4 + 0.3 * 16, rel=1e-14)
    assert v.moment(3, central=True) == pytest.approx(
        0.2 * (1 - mean) ** 3 + 0.5 * (2 - mean) ** 3 + 0.3 * (4 - mean) ** 3, rel=1e-12
    )
    assert v.skewness() == pytest.approx(v.moment(3, central=True) / var**1.5)
    assert v.kurtosis() == pytest.approx(v.moment(4, central=True) / var**2 - 3)


def test_cdf_sf_quantile_support():
    v = v3()
    assert v.cdf(0.5) == 0 and v.cdf(1.0) == pytest.approx(0.2) and v.cdf(3.0) == pytest.approx(0.7)
    assert v.cdf(4.0) == pytest.approx(1.0)
    assert v.sf(1.0) == pytest.approx(0.8) and v.sf(4.0) == 0 and v.prob_greater(0.0) == pytest.approx(1.0)
    np.testing.assert_allclose(v.cdf(np.array([1.0, 2.0])), [0.2, 0.7])
    assert v.quantile(0.0) == 1.0 and v.quantile(0.2) == 1.0 and v.quantile(0.21) == 2.0
    assert v.quantile(0.7) == 2.0 and v.quantile(1.0) == 4.0
    assert v.support() == (1.0, 4.0)
    with pytest.raises(ValueError):
        v.quantile(1.5)


def test_sf_keeps_tail_precision():
    v = ux.gaussian(0, 1, 64)
    assert v.sf(v.x[-2]) == v.w[-1]  # exactly the last weight, not 1 − (sum of the others)


def test_sampling_uses_the_callers_generator():
    v = v3()
    a = v.sample(10000, np.random.default_rng(1))
    b = v.sample(10000, np.random.default_rng(1))
    np.testing.assert_array_equal(a, b)
    assert set(np.unique(a)) <= {1.0, 2.0, 4.0}
    assert np.mean(a == 2.0) == pytest.approx(0.5, abs=0.02)
    with pytest.raises(TypeError, match="Generator"):
        v.sample(3, 42)


@given(st.integers(1, 6), st.floats(-3, 3), st.floats(0.1, 5))
def test_binned_density_has_each_atoms_mass_and_mean(n, mu, sigma):
    v = ux.gaussian(mu, sigma, 2**n)
    if len(v) < 2:
        return
    edges, heights = v.bins()
    widths = np.diff(edges)
    mass = heights * widths
    np.testing.assert_allclose(mass[0::2] + mass[1::2], v.w, rtol=1e-9)
    centres = 0.5 * (edges[:-1] + edges[1:])
    pair_mean = (mass[0::2] * centres[0::2] + mass[1::2] * centres[1::2]) / v.w
    np.testing.assert_allclose(pair_mean, v.x, rtol=1e-9, atol=1e-9 * sigma)
    assert np.all(np.diff(edges) > 0)


def test_density_of_gaussian_approaches_the_true_density():
    from scipy import stats

    v = ux.gaussian(0, 1, 64)
    t = np.linspace(-2, 2, 41)
    assert np.max(np.abs(v.pdf(t) - stats.norm.pdf(t))) < 0.02
    assert v.pdf(10.0) == 0.0 and ux.point(1.0).pdf(1.0) == 0.0


def test_split_points_are_the_tree_nodes():
    v = ux.from_weighted_samples([0.0, 1.0, 3.0, 4.0], [1, 1, 1, 1], eta=4)
    np.testing.assert_allclose(v.split_points(), [0.5, 2.0, 3.5])


def rounded_onto_atom():
    """x1's cell [x0, x1] has mean exactly 1.0 = x1 (x0's weight vanishes in rounding): s0 sits on x1."""
    w = np.array([1e-20, 1.0, 1.0])
    return ux.Value(np.array([0.0, 1.0, 2.0]), w / w.sum(), 4)


def test_split_point_rounded_onto_an_atom_keeps_the_atoms_mass():
    v = rounded_onto_atom()
    s = v.split_points()
    assert s[0] == v.x[1]  # the rounding this case is about
    edges, heights = v.bins()
    # Atom 1 has no left bin; its whole mass is spread over [x1, s1).
    assert v.pdf(1.2) == pytest.approx(v.w[1] / (s[1] - v.x[1]), rel=1e-15)
    total = np.sum(heights * np.diff(edges))
    assert total == pytest.approx(1.0, rel=1e-12)
