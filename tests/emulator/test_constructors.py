"""Parametric constructors: analytic quantization against numerical integration of scipy.stats laws."""

import math

import numpy as np
import pytest
from scipy import integrate, stats

import uxemu as ux
from law_table import FOREIGN_KEYWORDS, assert_quantized_moments, rows
from uxemu import laws


def quantize_by_quadrature(dist, n, lower=-np.inf, upper=np.inf):
    """The same mean-split recursion, with masses and first moments from adaptive quadrature."""

    def moments(a, b):
        # Integrate in the law's own units around its median for accuracy in the tails.
        mass = dist.cdf(b) - dist.cdf(a) if b <= dist.median() else dist.sf(a) - dist.sf(b)
        first, _ = integrate.quad(lambda t: t * dist.pdf(t), a, b, epsabs=1e-14, epsrel=1e-12, limit=200)
        return mass, first

    cells = [(lower, upper)]
    for _ in range(n):
        nxt = []
        for a, b in cells:
            p, g = moments(a, b)
            m = g / p
            nxt += [(a, m), (m, b)]
        cells = nxt
    out = [moments(a, b) for a, b in cells]
    w = np.array([p for p, _ in out])
    x = np.array([g / p for p, g in out])
    return x, w / w.sum()


CASES = [
    (lambda eta: ux.gaussian(1.5, 2.0, eta), stats.norm(1.5, 2.0), -np.inf, np.inf),
    (lambda eta: ux.laplace(-1.0, 0.5, eta), stats.laplace(-1.0, 0.5), -np.inf, np.inf),
    (lambda eta: ux.uniform(-2.0, 3.0, eta), stats.uniform(-2.0, 5.0), -2.0, 3.0),
    (lambda eta: ux.exponential(0.5, eta), stats.expon(scale=0.5), 0.0, np.inf),
    (lambda eta: ux.student_t(4.0, 0.5, 2.0, eta), stats.t(4.0, 0.5, 2.0), -np.inf, np.inf),
    (lambda eta: ux.lognormal(0.2, 0.4, eta), stats.lognorm(0.4, scale=math.exp(0.2)), 0.0, np.inf),
]


@pytest.mark.parametrize("make, dist, lo, hi", CASES, ids=["gauss", "laplace", "uniform", "expon", "t", "lognorm"])
@pytest.mark.parametrize("eta", [1, 2, 8, 16, 64])
def test_constructor_matches_quadrature(make, dist, lo, hi, eta):
    v = make(eta)
    x, w = quantize_by_quadrature(dist, int(math.log2(eta)), lo, hi)
    scale = dist.std()
    np.testing.assert_allclose(v.x, x, rtol=1e-7, atol=1e-7 * scale)
    np.testing.assert_allclose(v.w, w, rtol=1e-7, atol=1e-12)
    assert v.mean() == pytest.approx(dist.mean(), rel=1e-9, abs=1e-9 * scale)


def test_gaussian_reference_numbers_of_the_design():
    """docs/contract.md: N(0,1) at 16 atoms: outermost ±2.2194 (mass 0.0340), innermost ±0.0932 (0.0741)."""
    v = ux.gaussian(0, 1, 16)
    assert v.x[-1] == pytest.approx(2.2194, abs=5e-5) and v.x[0] == pytest.approx(-2.2194, abs=5e-5)
    assert v.w[0] == pytest.approx(0.0340, abs=5e-5)
    assert v.x[8] == pytest.approx(0.0932, abs=5e-5) and v.w[8] == pytest.approx(0.0741, abs=5e-5)


def test_gaussian_is_symmetric_and_variance_below_sigma2():
    v = ux.gaussian(0, 3, 32)
    np.testing.assert_allclose(v.x, -v.x[::-1], atol=1e-12)
    assert 0.98 * 9 < v.var() < 9  # quantization only loses spread within cells


def test_point():
    v = ux.point(2.5)
    assert len(v) == 1 and v.mean() == 2.5 and v.var() == 0
    with pytest.raises(ValueError):
        ux.point(np.inf)


def test_from_samples_and_weighted_samples(rng):
    s = rng.normal(3, 2, 20000)
    v = ux.from_samples(s, eta=32)
    assert len(v) == 32
    assert v.mean() == pytest.approx(s.mean(), rel=1e-12)
    vw = ux.from_weighted_samples([0.0, 1.0, 2.0], [1, 2, 1], eta=4)
    np.testing.assert_allclose(vw.x, [0.0, 1.0, 2.0])
    np.testing.assert_allclose(vw.w, [0.25, 0.5, 0.25])


def test_mixture_keeps_mean_and_both_modes():
    a, b = ux.gaussian(-5, 1, 16), ux.gaussian(5, 1, 16)
    m = ux.mixture(a, b, 0.3)
    assert m.mean() == pytest.approx(0.3 * -5 + 0.7 * 5, abs=1e-12)
    assert m.cdf(0.0) == pytest.approx(0.3, abs=1e-12)
    with pytest.raises(ValueError):
        ux.mixture(a, b, 1.0)


@pytest.mark.parametrize(
    "bad",
    [
        lambda: ux.gaussian(0, 0),
        lambda: ux.gaussian(np.nan, 1),
        lambda: ux.laplace(0, -1),
        lambda: ux.uniform(1, 1),
        lambda: ux.exponential(0),
        lambda: ux.exponential(-2),
        lambda: ux.student_t(1.0),
        lambda: ux.student_t(3.0, 0.0, 0.0),
        lambda: ux.lognormal(0, np.inf),
        lambda: ux.gaussian(0, 1, eta=12),
    ],
)
def test_bad_parameters_are_refused(bad):
    with pytest.raises(ValueError):
        bad()


@pytest.mark.parametrize("name, keyword", FOREIGN_KEYWORDS)
def test_keywords_of_other_parameterisations_are_refused(name, keyword):
    with pytest.raises(TypeError):
        getattr(ux, name)(**{keyword: 2.0})


def test_a_non_positive_scale_names_the_parameter():
    with pytest.raises(ValueError, match="scale must be a finite positive number, got -2"):
        ux.exponential(-2.0)


ROWS = rows()
ROW_IDS = [r.law for r in ROWS]


def test_the_parameter_table_covers_every_law():
    assert sorted(r.law_class.split("(")[0] for r in ROWS) == sorted(c.__name__ for c in laws.Law.__subclasses__())


@pytest.mark.parametrize("row", ROWS, ids=ROW_IDS)
def test_documented_moments_are_those_of_the_documented_scipy_law(row):
    frozen = row.frozen()
    assert row.evaluate(row.mean) == pytest.approx(frozen.mean(), rel=1e-12)
    assert row.evaluate(row.var) == pytest.approx(frozen.var(), rel=1e-12)


@pytest.mark.parametrize("row", ROWS, ids=ROW_IDS)
def test_constructor_moments_match_the_documented_scipy_law(row):
    assert_quantized_moments(row.call(row.constructor, ux, eta=64), row.frozen(), row.constructor)


@pytest.mark.parametrize("row", ROWS, ids=ROW_IDS)
def test_law_draws_are_the_documented_numpy_draws(row):
    law, ours, theirs = row.call(row.law_class, laws), np.random.default_rng(7), np.random.default_rng(7)
    assert [float(law.sample(ours)) for _ in range(5)] == [float(row.draw(theirs)) for _ in range(5)]


@pytest.mark.parametrize("row", ROWS, ids=ROW_IDS)
def test_law_agrees_with_the_documented_scipy_law(row, rng):
    law, ref = row.call(row.law_class, laws), row.frozen()
    t = ref.ppf(np.linspace(0.01, 0.99, 17))
    np.testing.assert_allclose(law.logpdf(t), ref.logpdf(t), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(law.cdf(t), ref.cdf(t), rtol=1e-10, atol=1e-13)
    assert law.mean() == pytest.approx(ref.mean(), rel=1e-12)
    assert law.var() == pytest.approx(ref.var(), rel=1e-12)
    assert law.median() == pytest.approx(ref.median(), rel=1e-12)
    s = law.sample(rng, 200000)
    assert stats.kstest(s, ref.cdf).pvalue > 1e-4
