"""An outlier's reach under a Gaussian predictive (docs/semantics.md, "Departure"): where the likelihood's location
does not carry the reading (sv: its scale does), the gate's linear shift is 0, and a posterior that the predictive
mixture's light tail holds back from a far reading is kept as a departure all the same."""

import math

import numpy as np
import pytest

from uxbench import regime_metrics as metrics
from uxbench import regimes as R
from uxemu import filter as uf
from uxemu import native, systems

SV_OUTLIER = dict(group="nonlinear", system="sv", data="outlier")


def test_the_reach_under_a_gaussian_predictive_is_the_kalman_shift():
    """With lg's Gaussian likelihood N(z; x, r²) the Gaussian predictive's posterior mean is the Kalman filter's:
    the reach is |K·(z − m)|, K = V/(V + r²), to the trapezoid's accuracy. The quadrature takes its own region,
    N(m, V)'s ±10 sd: a reading whose Kalman posterior lies past it reaches that edge."""
    m, v, r = 0.5, 0.3, 0.2
    flt = uf.BayesLaplaceFilter(systems.get("lg", q=0.1, r=r), 16, "refined")

    def reach(z):
        density = uf.FilterDensity("prior", flt.posterior, likelihood=flt.likelihood, z=np.array([z]), omega=np.ones(1))
        return uf.gaussian_reach(density, m, v)

    assert reach(2.0) == pytest.approx(v / (v + r * r) * (2.0 - m), rel=1e-6)
    assert 0.99 * 10.0 * math.sqrt(v) < reach(m + 40.0 * math.sqrt(v + r * r)) <= 10.0 * math.sqrt(v)
    assert math.isnan(uf.gaussian_reach(uf.FilterDensity("prior", flt.posterior), m, 0.0))


def test_the_larger_reach_counts():
    assert uf.outlier_reach(0.0, 0.4) == 0.4 and uf.outlier_reach(0.7, 0.4) == 0.7
    assert uf.outlier_reach(math.nan, 0.4) == 0.4 and uf.outlier_reach(0.7, math.nan) == 0.7


def test_after_an_sv_outlier_no_wrong_step_says_ok():
    """The regime map's sv outlier cell, refined at η = 16, three seeds: every wrong step says so (measured: 30
    wrong steps, DEPARTED after the outlier); without the Gaussian reach 27 of them said OK."""
    if not native.available():
        pytest.skip(f"{native.library_path()} is not built (run `make native`)")
    problems = [R.Problem(SV_OUTLIER, 200, seed) for seed in range(3)]
    score = metrics.combine([p.score("native", 16, "refined") for p in problems])
    assert score.silent == 0 and score.wrong > 0


def test_without_the_tails_reach_the_steps_after_an_sv_outlier_are_silent(monkeypatch):
    """The reference, seed 0, η = 16: with `gaussian_reach` NaN (not taken) the steps after the outlier say OK."""
    monkeypatch.setattr(uf, "gaussian_reach", lambda *args: math.nan)
    assert R.Problem(SV_OUTLIER, 200, 0).score("reference", 16, "refined").silent > 0


def test_c_takes_the_same_reach_bit_for_bit():
    """Seed 0 at η = 16 (its outlier DEPARTED the steps after it): C's means, variances and statuses equal the
    reference's."""
    if not native.available():
        pytest.skip(f"{native.library_path()} is not built (run `make native`)")
    problem = R.Problem(SV_OUTLIER, 200, 0)
    got = [problem.run(which, 16, "refined") for which in ("native", "reference")]
    for a, b in zip(got[0][:3], got[1][:3]):
        np.testing.assert_array_equal(a, b)
    assert got[0][3] == got[1][3] and (got[0][2] == uf.Status.DEPARTED).any()
