"""Lift and per-operation arithmetic: exact laws on discrete inputs, dependency rules, domain errors."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import uxemu as ux
from uxemu.lift import DependencyError


def two_atoms(a, b, p=0.5):
    return ux.from_weighted_samples([a, b], [p, 1 - p], eta=4)


def test_sum_of_independent_two_atom_values_is_exact():
    x, y = two_atoms(0.0, 1.0), two_atoms(0.0, 10.0)
    z = x + y
    np.testing.assert_allclose(z.x, [0.0, 1.0, 10.0, 11.0])
    np.testing.assert_allclose(z.w, [0.25] * 4)


@given(st.floats(-5, 5), st.floats(0.1, 3), st.floats(-5, 5), st.floats(0.1, 3))
def test_gaussian_sum_mean_and_variance(m1, s1, m2, s2):
    x, y = ux.gaussian(m1, s1, 32), ux.gaussian(m2, s2, 32)
    z = x + y
    assert z.mean() == pytest.approx(m1 + m2, abs=1e-9 * (1 + abs(m1) + abs(m2)))
    # Each factor's quantization loses a little variance, the sum's reduction a little more.
    assert x.var() + y.var() >= z.var() >= 0.98 * (x.var() + y.var())


def test_scalar_operations_read_naturally():
    x = ux.gaussian(1.0, 0.5, 16)
    y = x * 2 + 3
    assert y.mean() == pytest.approx(5.0, abs=1e-12)
    assert y.std() == pytest.approx(2 * x.std(), rel=1e-12)
    assert (1 - x).mean() == pytest.approx(0.0, abs=1e-12)
    assert (2 / ux.uniform(1, 2)).mean() == pytest.approx(2 * np.log(2), rel=1e-2)
    assert (-x).mean() == pytest.approx(-1.0, abs=1e-12)


@pytest.mark.parametrize("op, ref", [(ux.exp, np.exp), (ux.sin, np.sin), (ux.cos, np.cos)])
def test_elementwise_functions_map_atoms(op, ref):
    x = ux.gaussian(0.3, 0.2, 16)
    y = op(x)
    # A monotone map of 16 atoms reduced to 16 keeps them; in general the mean of the atoms is exact.
    assert y.mean() == pytest.approx(np.sum(x.w * ref(x.x)), rel=1e-12)


def test_log_sqrt_pow_on_positive_values():
    x = ux.uniform(1.0, 3.0, 16)
    assert ux.log(x).mean() == pytest.approx(np.sum(x.w * np.log(x.x)), rel=1e-12)
    assert ux.sqrt(x).mean() == pytest.approx(np.sum(x.w * np.sqrt(x.x)), rel=1e-12)
    assert ux.pow(x, 2.0).mean() == pytest.approx(np.sum(x.w * x.x**2), rel=1e-12)
    assert ux.pow(2.0, x).mean() == pytest.approx(np.sum(x.w * 2.0**x.x), rel=1e-12)


def test_square_of_the_same_value_is_exact():
    x = two_atoms(-1.0, 1.0)
    sq = x * x
    np.testing.assert_array_equal(sq.x, [1.0])  # not {-1, 1}: both sides see the same atom


def test_shared_source_is_refused_with_advice():
    x = ux.gaussian(0, 1)
    y = x + 1
    with pytest.raises(DependencyError, match="lift one function|lift\\(lambda"):
        x * y
    exact = ux.lift(lambda a: a * (a + 1), x)
    assert exact.mean() == pytest.approx(np.sum(x.w * x.x * (x.x + 1)), rel=1e-12)


def test_independent_copy_breaks_the_dependency():
    x = ux.gaussian(0, 1, 8)
    y = ux.independent_copy(x)
    z = x + y
    assert z.var() == pytest.approx(2 * x.var(), rel=0.05)


def test_lift_of_three_inputs_and_non_vectorised_function():
    a, b, c = ux.uniform(0, 1, 4), ux.uniform(0, 1, 4), ux.uniform(0, 1, 4)
    v = ux.lift(lambda p, q, r: p + q * r, a, b, c)
    s = ux.lift(lambda p, q, r: p + q * r, a, b, c, vectorized=False)
    np.testing.assert_array_equal(v.x, s.x)
    assert v.mean() == pytest.approx(0.5 + 0.25, abs=1e-12)


def test_lift_output_size_follows_largest_input_or_argument():
    a, b = ux.gaussian(0, 1, 8), ux.gaussian(0, 1, 32)
    assert (a + b).eta == 32 and len(a + b) == 32
    assert len(ux.lift(np.add, a, b, eta=4)) == 4


def test_domain_errors_are_reported_not_hidden():
    with pytest.raises(ValueError, match="not defined on the whole support"):
        ux.log(ux.gaussian(0, 1))
    with pytest.raises(TypeError, match="Values"):
        ux.lift(np.add, ux.gaussian(), 1.0)
    with pytest.raises(TypeError):
        ux.lift(np.exp)
