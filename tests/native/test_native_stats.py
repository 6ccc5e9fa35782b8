"""Statistics, density and sampling of the C core against the reference."""

import numpy as np
import pytest

import uxemu as ux
from agree import assert_agree
from test_native_ttr_lift import random_value

CASES = 200


def test_moments(nat, rng):
    for case in range(CASES):
        r = random_value(rng)
        n = nat.from_reference(r)
        assert_agree(nat.mean(n), r.mean(), what=f"mean {case}")
        assert_agree(nat.var(n), r.var(), what=f"var {case}")
        for k in range(0, 5):
            assert_agree(nat.moment(n, k), r.moment(k), what=f"moment {k} case {case}")
            # A central moment is a difference of nearly equal terms for odd k: compare at the scale of
            # the moment of |X − mean|^k, which is what its rounding is relative to.
            scale = float(np.sum(r.w * np.abs(r.x - r.mean()) ** k))
            got, want = nat.moment(n, k, central=True), r.moment(k, central=True)
            assert abs(got - want) <= 1e-9 * max(abs(want), scale), f"central moment {k} case {case}"


def test_cdf_sf_quantile_support(nat, rng):
    for case in range(CASES):
        r = random_value(rng)
        n = nat.from_reference(r)
        ts = np.concatenate([r.x, rng.uniform(r.x[0] - 1, r.x[-1] + 1, 5)])
        for t in ts:
            assert nat.cdf(n, t) == pytest.approx(r.cdf(t), rel=1e-9, abs=1e-15)
            assert nat.sf(n, t) == pytest.approx(r.sf(t), rel=1e-9, abs=1e-15)
        for q in np.concatenate([[0.0, 1.0], rng.uniform(size=8), np.cumsum(r.w)[:-1]]):
            assert nat.quantile(n, q) == r.quantile(q), f"quantile {q} case {case}"
        assert nat.support(n) == r.support()


def test_density(nat, rng):
    for case in range(CASES):
        r = random_value(rng)
        n = nat.from_reference(r)
        if len(r.x) > 1:
            assert_agree(nat.split_points(n), r.split_points(), what=f"splits {case}")
        span = r.x[-1] - r.x[0] + 1.0
        ts = np.concatenate([r.x, rng.uniform(r.x[0] - span, r.x[-1] + span, 20)])
        assert_agree(nat.pdf(n, ts), r.pdf(ts), what=f"pdf {case}")


def test_sampling_is_seeded_and_follows_the_weights(nat):
    v = nat.from_reference(ux.from_weighted_samples([0.0, 1.0, 5.0], [0.2, 0.5, 0.3], eta=4))
    a, b = nat.sample(v, 50000, seed=11), nat.sample(v, 50000, seed=11)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, nat.sample(v, 50000, seed=12))
    for x, p in zip(v.x, v.w):
        assert abs(np.mean(a == x) - p) < 5 * np.sqrt(p * (1 - p) / a.size)


def test_density_when_a_split_point_rounds_onto_an_atom(nat):
    """Both sides give the atom's whole mass to its bin of positive width (docs/semantics.md)."""
    w = np.array([1e-20, 1.0, 1.0])
    ref = ux.Value(np.array([0.0, 1.0, 2.0]), w / w.sum(), 4)
    v = nat.from_reference(ref)
    t = np.array([-0.5, 0.0, 0.5, 1.0, 1.2, 1.5, 1.9, 2.0, 2.4])
    np.testing.assert_array_equal(nat.split_points(v), ref.split_points())
    np.testing.assert_array_equal(nat.pdf(v, t), ref.pdf(t))
