"""TTR, zero-weight compaction, lift of the built-in operations and the dependency rule: C core vs reference."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import uxemu as ux
from uxemu import _ttr
from uxemu.lift import DependencyError
from uxemu.native import NativeDependencyError
from agree import NATIVE, assert_same_value

CASES = 200


def random_atoms(rng, ties: bool):
    M = int(rng.integers(1, 600))
    x = rng.integers(-5, 5, M).astype(float) if ties else rng.normal(0, rng.uniform(0.1, 100), M)
    w = rng.uniform(0, 2, M) * (rng.uniform(size=M) > 0.05)  # some zero weights to drop
    if not (w > 0).any():
        w[0] = 1.0
    return x, w


def test_compact_and_ttr_random_sets_bit_for_bit(nat, rng):
    """Both sides sum every cell in the atoms' input order with the same operations: the same bits."""
    for case in range(CASES):
        x, w = random_atoms(rng, ties=case % 3 == 0)
        n = int(rng.integers(0, 7))
        xs, ws = _ttr.compact(x, w)
        cx, cw = nat.compact(x, w)
        np.testing.assert_array_equal(cx, xs)
        np.testing.assert_array_equal(cw, ws)
        rx, rw = _ttr.ttr(xs, ws, n)
        nx, nw = nat.ttr(x, w, n)
        np.testing.assert_array_equal(nx, rx, err_msg=f"case {case} positions")
        np.testing.assert_array_equal(nw, rw, err_msg=f"case {case} masses")


@NATIVE
@given(st.lists(st.tuples(st.floats(-1e6, 1e6), st.floats(1e-6, 1e3)), min_size=1, max_size=300), st.integers(0, 6))
def test_ttr_property_cases(nat, pairs, n):
    x = np.array([p[0] for p in pairs])
    w = np.array([p[1] for p in pairs])
    rx, rw = _ttr.ttr(*_ttr.compact(x, w), n)
    nx, nw = nat.ttr(x, w, n)
    np.testing.assert_array_equal(nx, rx)
    np.testing.assert_array_equal(nw, rw)


def random_value(rng, positive=False):
    eta = int(2 ** rng.integers(0, 7))
    kind = rng.integers(0, 4)
    if positive:
        return ux.lognormal(rng.uniform(-1, 1), rng.uniform(0.1, 1), eta)
    if kind == 0:
        return ux.gaussian(rng.uniform(-5, 5), rng.uniform(0.1, 3), eta)
    if kind == 1:
        return ux.laplace(rng.uniform(-5, 5), rng.uniform(0.1, 3), eta)
    if kind == 2:
        lo = rng.uniform(-5, 5)
        return ux.uniform(lo, lo + rng.uniform(0.1, 4), eta)
    return ux.from_weighted_samples(rng.normal(0, 2, 50), rng.uniform(0.1, 1, 50), eta)


BINARY = [
    ("add", lambda a, b: a + b),
    ("sub", lambda a, b: a - b),
    ("mul", lambda a, b: a * b),
    ("div", lambda a, b: a / b),
    ("pow", lambda a, b: a**b),
]
UNARY = [("exp", ux.exp), ("log", ux.log), ("sin", ux.sin), ("cos", ux.cos), ("sqrt", ux.sqrt)]


@pytest.mark.parametrize("name, ref", BINARY, ids=[b[0] for b in BINARY])
def test_binary_operations(nat, rng, name, ref):
    for case in range(CASES):
        positive = name in ("div", "pow")
        ra, rb = random_value(rng, positive), random_value(rng, positive)
        na, nb = nat.from_reference(ra), nat.from_reference(rb)
        assert_same_value(getattr(nat, name)(na, nb), ref(ra, rb), what=f"{name} case {case}")


@pytest.mark.parametrize("name, ref", UNARY, ids=[u[0] for u in UNARY])
def test_unary_operations(nat, rng, name, ref):
    for case in range(CASES):
        ra = random_value(rng, positive=name in ("log", "sqrt"))
        assert_same_value(getattr(nat, name)(nat.from_reference(ra)), ref(ra), what=f"{name} case {case}")


def test_same_value_twice_is_one_input(nat, rng):
    for case in range(CASES // 3):
        ra = random_value(rng)
        na = nat.from_reference(ra)
        assert_same_value(nat.mul(na, na), ra * ra, what=f"x*x case {case}")
        assert_same_value(nat.sub(na, na), ra - ra, what=f"x-x case {case}")
        assert len(nat.sub(na, na).x) == 1


def test_dependent_operands_are_refused_by_both(nat):
    rx = ux.gaussian(0, 1, 8)
    ry = rx + 1.0
    with pytest.raises(DependencyError):
        rx * ry
    nx = nat.from_reference(rx)
    ny = nat.add(nx, nat.point(1.0, 8))
    with pytest.raises(NativeDependencyError):
        nat.mul(nx, ny)
    assert_same_value(nat.mul(nat.independent_copy(nx), ny), ux.independent_copy(rx) * ry)


def test_non_finite_results_are_refused_by_both(nat):
    rx = ux.gaussian(0, 1, 8)
    with pytest.raises(ValueError):
        ux.log(rx)
    with pytest.raises(ValueError):
        nat.log(nat.from_reference(rx))


def test_lift_of_a_python_function_through_the_c_callback(nat, rng):
    for case in range(50):
        ra, rb, rc = random_value(rng), random_value(rng), random_value(rng)
        f = lambda a, b, c: a * b + np.sin(c) - a  # noqa: E731 - the same function on both sides
        ref = ux.lift(f, ra, rb, rc, vectorized=False)
        got = nat.lift(f, nat.from_reference(ra), nat.from_reference(rb), nat.from_reference(rc))
        assert_same_value(got, ref, what=f"lift case {case}")


def test_ttr_of_a_piecewise_linear_density_bit_for_bit(nat, rng):
    """Mixture mode's reduction: both sides integrate every cell piece by piece in the same order."""
    from uxemu._ttr_linear import ttr_linear

    for case in range(CASES):
        nodes = int(rng.integers(2, 200))
        e = rng.uniform(0, 1, nodes) * (rng.uniform(size=nodes) > (0.3 if case % 4 == 0 else 0.0))
        if not e.any():
            e[nodes // 2] = 1.0
        lo, h, n = float(rng.normal(0, 50)), float(rng.uniform(1e-3, 5)), int(rng.integers(0, 7))
        rx, rw, rv = ttr_linear(e, lo, h, n, spreads=True)
        nx, nw, nv = nat.ttr_linear(e, lo, h, n, spreads=True)
        np.testing.assert_array_equal(nx, rx, err_msg=f"case {case} positions")
        np.testing.assert_array_equal(nw, rw, err_msg=f"case {case} masses")
        np.testing.assert_array_equal(nv, rv, err_msg=f"case {case} spreads")


def test_ttr_with_lumps_bit_for_bit(nat, rng):
    """ux_ttr_linear_lumps against the reference: lumps inside, outside and on the nodes' edges, one or two."""
    from uxemu._ttr_linear import ttr_linear

    for case in range(CASES):
        nodes = int(rng.integers(2, 200))
        e = rng.uniform(0, 1, nodes)
        lo, h, n = float(rng.normal(0, 50)), float(rng.uniform(1e-3, 5)), int(rng.integers(0, 7))
        hi = lo + (nodes - 1) * h
        at = [float(rng.uniform(lo - 100, hi + 100)), [lo, hi][case % 2]][: 1 + case % 2]
        lumps = [(a, float(rng.uniform(1e-9, 1)), float(rng.uniform(0, 1))) for a in at]
        rx, rw, rv = ttr_linear(e, lo, h, n, spreads=True, lumps=lumps)
        nx, nw, nv = nat.ttr_linear(e, lo, h, n, spreads=True, lumps=lumps)
        np.testing.assert_array_equal(nx, rx, err_msg=f"case {case} positions")
        np.testing.assert_array_equal(nw, rw, err_msg=f"case {case} masses")
        np.testing.assert_array_equal(nv, rv, err_msg=f"case {case} spreads")
