"""Every constructor of the C core against the reference, over random parameters and every η, and against
the scipy.stats law that docs/semantics.md documents for it."""

import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import uxemu as ux
from agree import NATIVE, assert_same_value

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "emulator"))  # the table reader is shared
from law_table import FOREIGN_KEYWORDS, assert_quantized_moments, rows  # noqa: E402

ETAS = st.sampled_from([1, 2, 4, 8, 16, 32, 64])
finite = st.floats(-50, 50, allow_nan=False)
positive = st.floats(0.01, 20, allow_nan=False)


def test_gaussian_reference_atoms(nat):
    v = nat.gaussian(0.0, 1.0, 16)
    assert v.x[-1] == pytest.approx(2.2194, abs=1e-4) and v.w[-1] == pytest.approx(0.0340, abs=1e-4)
    assert v.x[8] == pytest.approx(0.0932, abs=1e-4) and v.w[8] == pytest.approx(0.0741, abs=1e-4)


@NATIVE
@given(finite, positive, ETAS)
def test_gaussian(nat, mu, sigma, eta):
    assert_same_value(nat.gaussian(mu, sigma, eta), ux.gaussian(mu, sigma, eta))


@NATIVE
@given(finite, positive, ETAS)
def test_laplace(nat, loc, scale, eta):
    assert_same_value(nat.laplace(loc, scale, eta), ux.laplace(loc, scale, eta))


@NATIVE
@given(finite, positive, ETAS)
def test_uniform(nat, low, width, eta):
    assert_same_value(nat.uniform(low, low + width, eta), ux.uniform(low, low + width, eta))


@NATIVE
@given(positive, ETAS)
def test_exponential(nat, scale, eta):
    assert_same_value(nat.exponential(scale, eta), ux.exponential(scale, eta))


@NATIVE
@given(st.floats(1.05, 60), finite, positive, ETAS)
def test_student_t(nat, df, loc, scale, eta):
    # The incomplete beta is our own continued fraction vs scipy's: agreement to ~1e-13 relative in the
    # masses, far inside the contract.
    assert_same_value(nat.student_t(df, loc, scale, eta), ux.student_t(df, loc, scale, eta))


@NATIVE
@given(st.floats(-3, 3), st.floats(0.05, 2), ETAS)
def test_lognormal(nat, mu, sigma, eta):
    assert_same_value(nat.lognormal(mu, sigma, eta), ux.lognormal(mu, sigma, eta))


@pytest.mark.parametrize(
    "law",
    [
        ("lognormal", 0.0, 1.265e-321),
        ("lognormal", 1.0, 1e-17),
        ("lognormal", 2.33419537317e-313, 4.347969375688e-311),
        ("student_t", 3.0, 1.0, 1e-300),
    ],
)
@pytest.mark.parametrize("eta", [2, 16, 64])
def test_a_scale_too_small_to_resolve_merges_the_atoms(nat, law, eta):
    # The fuzz campaign's first findings (tests/fuzz/findings/core): a lognormal whose σ is subnormal gave
    # 16 equal positions in C (not a valid value) and a ZeroDivisionError in the reference, or two means
    # out of order by one ulp. Cell means that round together (or out of order) now merge into the
    # previous atom, masses added, on both sides.
    name, *args = law
    got, want = getattr(nat, name)(*args, eta), getattr(ux, name)(*args, eta)
    assert want.x.size == 1 and want.w[0] == 1.0
    assert_same_value(got, want)


def test_atoms_beyond_the_real_range_are_refused(nat):
    # The fuzz campaign's second finding: lognormal(μ = 2e155) quantized to [inf] in C, OverflowError in the
    # reference. Both refuse it now, as the location-scale laws already did.
    from uxemu.native import NativeDomainError

    with pytest.raises(NativeDomainError):
        nat.lognormal(2.145250579023192e155, 7e-309, 16)
    with pytest.raises(ValueError, match="beyond the floating-point range"):
        ux.lognormal(2.145250579023192e155, 7e-309, 16)


@NATIVE
@given(finite, ETAS)
def test_point(nat, c, eta):
    assert_same_value(nat.point(c, eta), ux.point(c, eta))


@NATIVE
@given(st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=400), ETAS)
def test_from_samples(nat, samples, eta):
    assert_same_value(nat.from_samples(samples, eta), ux.from_samples(samples, eta))


@NATIVE
@given(st.lists(st.tuples(st.floats(-1e3, 1e3), st.floats(0, 5)), min_size=1, max_size=400), ETAS)
def test_from_weighted_samples(nat, pairs, eta):
    x = [p[0] for p in pairs]
    w = [p[1] for p in pairs]
    if sum(w) == 0:
        with pytest.raises(ValueError):
            ux.from_weighted_samples(x, w, eta)
        with pytest.raises(ValueError):
            nat.from_weighted_samples(x, w, eta)
        return
    assert_same_value(nat.from_weighted_samples(x, w, eta), ux.from_weighted_samples(x, w, eta))


@NATIVE
@given(finite, positive, finite, positive, st.floats(0.01, 0.99), ETAS, ETAS, st.sampled_from([None, 1, 4, 16, 64]))
def test_mixture(nat, m1, s1, m2, s2, p, e1, e2, eta):
    ra, rb = ux.gaussian(m1, s1, e1), ux.laplace(m2, s2, e2)
    na, nb = nat.from_reference(ra), nat.from_reference(rb)
    assert_same_value(nat.mixture(na, nb, p, eta), ux.mixture(ra, rb, p, eta))


@pytest.mark.parametrize(
    "call",
    [
        lambda m: m.gaussian(0, 0),
        lambda m: m.gaussian(np.nan, 1),
        lambda m: m.laplace(0, -1),
        lambda m: m.uniform(1, 1),
        lambda m: m.exponential(0),
        lambda m: m.exponential(-2),
        lambda m: m.student_t(1.0),
        lambda m: m.student_t(3.0, 0.0, 0.0),
        lambda m: m.lognormal(0, np.inf),
        lambda m: m.point(np.inf),
        lambda m: m.from_weighted_samples([1, 2], [1, -1]),
        lambda m: m.from_samples([1, np.nan]),
    ],
)
def test_domain_errors_match(nat, call):
    with pytest.raises(ValueError):
        call(ux)
    with pytest.raises(ValueError):
        call(nat)


@pytest.mark.parametrize("name, keyword", FOREIGN_KEYWORDS)
def test_keywords_of_other_parameterisations_are_refused(nat, name, keyword):
    with pytest.raises(TypeError):
        getattr(nat, name)(**{keyword: 2.0})


@pytest.mark.parametrize("row", rows(), ids=[r.law for r in rows()])
def test_moments_match_the_documented_scipy_law(nat, row):
    """Through the engine's constructor and through the `ux_law` fields the table gives."""
    frozen = row.frozen()
    assert_quantized_moments(row.call(row.constructor, nat, eta=64), frozen, f"native {row.constructor}")
    assert_quantized_moments(
        nat.quantize(row.kind, eta=64, **row.field_values()), frozen, f"ux_law {row.kind} with {row.fields}"
    )


def test_sources_are_fresh(nat):
    a, b = nat.gaussian(0, 1, 8), nat.gaussian(0, 1, 8)
    c = nat.independent_copy(a)
    assert a.sources & b.sources == 0 and a.sources & c.sources == 0
    np.testing.assert_array_equal(a.x, c.x)


@NATIVE
@given(st.sampled_from(["gaussian", "laplace", "uniform", "exponential"]), finite, positive, ETAS)
def test_location_scale_laws_are_the_same_bits(nat, kind, loc, scale, eta):
    """Both sides scale the same standard atoms (the C table is the reference's doubles, generated):
    loc + scale·s in IEEE double is the same number on both sides, not merely close."""
    args = {"gaussian": (loc, scale), "laplace": (loc, scale), "uniform": (loc, loc + scale), "exponential": (scale,)}[
        kind
    ]
    got, ref = getattr(nat, kind)(*args, eta=eta), getattr(ux, kind)(*args, eta=eta)
    np.testing.assert_array_equal(got.x, ref.x)
    np.testing.assert_array_equal(got.w, ref.w)


def test_tiny_scale_merges_atoms_that_round_together(nat):
    """N(1e6, 1e-12): the scaled atoms collide in double; both sides merge them into a valid value."""
    ref = ux.gaussian(1e6, 1e-12, 64)
    got = nat.gaussian(1e6, 1e-12, 64)
    assert ref.x.size < 64 and np.all(np.diff(ref.x) > 0) and ref.w.sum() == pytest.approx(1.0)
    np.testing.assert_array_equal(got.x, ref.x)
    np.testing.assert_array_equal(got.w, ref.w)
