"""The predictive mixture's density at the quadrature's nodes by product recurrence (uxemu._mixture_nodes,
ux/filter_density.c mixture_on_nodes; docs/semantics.md, "Filter density") against the exponentials it replaces."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from uxemu import libm
from uxemu._mixture_nodes import NODE_RUN, mixture_on_nodes
from uxemu.bayes import KernelLikelihood, log_family
from uxemu.filter import DENSITY_INTERVALS, FilterDensity, density_nodes
from uxemu.value import Value


def _direct(components, t, lo):
    """The mixture's density at t by one exponential per term, and a bound on the recurrence's error there:
    a term is NODE_RUN·(NODE_RUN + 1)/2 roundings of products and ratios from an exponential, and both
    sides' exponentials carry their arguments' roundings: relative errors in proportion to |v²/2|, and to
    |v| times the rounding of t_k = lo + k·h − c in scales (the two sides round different positions)."""
    c, w, sc = components
    v = (t[:, None] - c) / sc
    position = abs(lo) + np.abs(t[:, None] - lo) + np.abs(t[:, None]) + np.abs(c)
    exponent = log_family("gaussian", v)
    terms = w / sc * np.exp(exponent)
    roundings = NODE_RUN * (NODE_RUN + 1) / 2 + 16 * (1 + np.abs(exponent)) + 2 * np.abs(v) * position / sc
    bound = terms * roundings * 2.0**-52
    return np.sum(terms, axis=1), np.sum(bound, axis=1)


components = st.integers(1, 16).flatmap(
    lambda n: st.tuples(
        st.lists(st.floats(-50, 50), min_size=n, max_size=n),
        st.lists(st.floats(1e-3, 1.0), min_size=n, max_size=n),
        st.lists(st.floats(0.01, 30.0), min_size=n, max_size=n),
    )
)


@given(components, st.floats(-40, 10), st.floats(0.1, 60))
def test_recurrence_is_the_mixture_density_to_its_rounding(comp, lo, width):
    # Components inside, beside and far outside the region, narrower and much wider than a node spacing.
    c, w, sc = (np.asarray(a, dtype=np.float64) for a in comp)
    t, h = density_nodes(lo, lo + width)
    got = mixture_on_nodes((c, w, sc), lo, h, DENSITY_INTERVALS)
    want, bound = _direct((c, w, sc), t, lo)
    normal = want > 1e-290  # below it the run's stop at the smallest normal may drop terms
    assert np.all(np.abs(got[normal] - want[normal]) <= bound[normal])
    assert np.all(got[~normal] <= want[~normal] + bound[~normal] + 1e-290)


def test_nodes_in_every_components_far_tail_take_the_log_domain():
    # 60 σ from the only component the density is e^−1800: far below the linear domain, whose runs stop
    # there; the nodes still get the logsumexp's finite log density, and the quadrature its finite log Z.
    comp = (np.array([0.0]), np.array([1.0]), np.array([1.0]))
    dens = FilterDensity("mixture", Value(np.array([0.0]), np.array([1.0]), 1), components=comp)
    t, _, u = dens.node_log_numerator(55.0, 65.0)
    assert np.all(mixture_on_nodes(comp, 55.0, (65.0 - 55.0) / DENSITY_INTERVALS, DENSITY_INTERVALS) == 0)
    np.testing.assert_allclose(u, log_family("gaussian", t), rtol=1e-15)


def _mixture_with_likelihood(z: float, comp):
    """A mixture density with a Gaussian likelihood of z (loc x²/20, scale 1: gss's sensor)."""
    lik = KernelLikelihood("gaussian", lambda x: (x * x / 20.0, np.ones_like(x)))
    return FilterDensity(
        "mixture",
        Value(np.array([0.0]), np.array([1.0]), 1),
        components=comp,
        likelihood=lik,
        z=np.array([z]),
        omega=np.array([1.0]),
    )


@given(components, st.floats(0.0, 30.0))
def test_linear_node_values_are_the_log_domains_to_rounding(comp, z):
    """Where the mixture's density is in the linear domain at every node, the relative numerator e_k =
    s_k·e^{ℓ_k − max ℓ}/max v and its scale are the log domain's e^{u_k − max u} and max u, to rounding — but
    for the values whose v_k fell into the subnormals: max v ≥ 2^−900, so they are below 2^−122 of the
    largest, and off by at most 2^−1074/2^−900 (the bracket's floor is 2^−40)."""
    c, w, sc = (np.asarray(a, dtype=np.float64) for a in comp)
    dens = _mixture_with_likelihood(z, (c, w, sc))
    lo, hi = -25.0, 25.0
    t, h, e, top = dens.node_values(lo, hi)
    _, _, u = dens.node_log_numerator(lo, hi)
    assert np.isfinite(top) and top == pytest.approx(float(u.max()), rel=1e-13, abs=1e-13)
    np.testing.assert_allclose(e, libm.exp(u - u.max()), rtol=1e-12, atol=2.0**-174)
    assert e.max() == 1.0


def test_a_node_in_every_components_far_tail_keeps_the_log_domain():
    """One node below 2^−900 of density sends every node through the logarithms (the linear form would read
    it as 0)."""
    comp = (np.array([0.0]), np.array([1.0]), np.array([1.0]))
    dens = _mixture_with_likelihood(1.0, comp)
    t, h, e, top = dens.node_values(0.0, 60.0)  # the far nodes: e^−1800 of density, below the linear domain
    _, _, u = dens.node_log_numerator(0.0, 60.0)
    assert top == float(u.max())
    np.testing.assert_array_equal(e, libm.exp(u - top))


def _log_verdict(dens, outer, inner, le, li):
    base = dens.log_base(np.array([outer, inner]))
    return base[0] + le > base[1] + li


@given(components, st.floats(-60, 60), st.floats(-60, 60), st.floats(0, 30), st.floats(-30, 30))
def test_the_open_edge_compares_numerators_as_the_log_domain_does(comp, outer, inner, rise, li):
    # The open edge's linear comparison S(outer)·e^(ℓ_e − ℓ_i) > S(inner) is the log numerators' comparison
    # but for ties to rounding: every verdict away from a tie is the same.
    c, w, sc = (np.asarray(a, dtype=np.float64) for a in comp)
    dens = FilterDensity("mixture", Value(np.array([0.0]), np.array([1.0]), 1), components=(c, w, sc))
    le = li + rise
    base = dens.log_base(np.array([outer, inner]))
    gap = (base[0] + le) - (base[1] + li)
    if abs(gap) > 1e-9 * (1 + abs(base[0]) + abs(le)):
        assert dens.numerator_rises(outer, inner, le, li) == (gap > 0)


def test_the_open_edge_takes_the_log_domain_where_the_mixture_underflows():
    # 50 σ out, e^−1250 is below LINEAR_MIN: the linear sums would read 0 against 0 and never rise; the log
    # numerators still see the likelihood's rise against the density's fall.
    comp = (np.array([0.0]), np.array([1.0]), np.array([1.0]))
    dens = FilterDensity("mixture", Value(np.array([0.0]), np.array([1.0]), 1), components=comp)
    assert dens._mixture_linear(50.0) < 2.0**-900
    assert dens.numerator_rises(50.0, 49.0, 200.0, 0.0) and _log_verdict(dens, 50.0, 49.0, 200.0, 0.0)
    assert not dens.numerator_rises(50.0, 49.0, 10.0, 0.0) and not _log_verdict(dens, 50.0, 49.0, 10.0, 0.0)
    # Nothing inward weighs (ℓ_i = −∞): the outer point's numerator rises wherever it is positive.
    assert dens.numerator_rises(3.0, 2.0, -5.0, -np.inf)
