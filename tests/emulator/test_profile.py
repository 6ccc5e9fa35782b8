"""Profile-likelihood intervals (uxemu.profile), against closed forms: a correlated quadratic (the interval
is the marginal ± 2 sd, not the conditional one), a noise scale's skewed log-likelihood, a scale the data
cannot tell from 0, the search's bounds — and on lg, the Kalman likelihood's profile found independently."""

import math

import numpy as np
import pytest
from scipy.optimize import brentq, minimize_scalar

from uxemu import fit, kalman, profile, systems, traces


class Curve(fit.Evaluated):
    """A log-likelihood given in closed form, over named parameters ('real' or 'positive')."""

    def __init__(self, function, **domains):
        params = tuple(systems.Param(name, 1.0, domain) for name, domain in domains.items())
        self.spec = systems.SystemSpec(0, "curve", "curve", params, ("gaussian", 0.0, 1.0))
        self.trace = traces.Trace(np.arange(1), np.zeros(1), np.zeros(1))
        self.engine, self.evidence, self.function = "closed form", "update", function

    def _value(self, params):
        return self.function(*params)


def crossings(loglik, best, low, high):
    """Where a 1-D log-likelihood falls by 2 nats from its maximum at `best`, within (low, high): brentq."""
    top = loglik(best)
    return (
        brentq(lambda t: loglik(t) - top + 2.0, low, best, xtol=1e-12),
        brentq(lambda t: loglik(t) - top + 2.0, best, high, xtol=1e-12),
    )


def test_a_quadratic_gives_the_marginal_two_standard_errors():
    # Correlation 0.63 between a and b: the profile interval of a is ± 2 sqrt(Σ_aa) (the others maximised),
    # 29 % wider than ± 2/sqrt(I_aa), a slice at b's estimate.
    information = np.array([[400.0, 120.0], [120.0, 90.0]])
    centre = np.array([0.3, 2.0])

    def quadratic(a, b):
        d = np.array([a, b]) - centre
        return -0.5 * d @ information @ d

    result = fit.maximise(Curve(quadratic, a="real", b="real"), ["a", "b"], start={"a": 0.2, "b": 1.5}, profile=True)
    sd = np.sqrt(np.diag(np.linalg.inv(information)))
    assert 2 * sd[0] > 1.25 * 2 / math.sqrt(information[0, 0])  # the slice would fail this test
    for (name, (low, high)), c, s in zip(result.interval.items(), centre, sd):
        assert low == pytest.approx(c - 2 * s, abs=0.02 * s) and high == pytest.approx(c + 2 * s, abs=0.02 * s), name


def test_a_noise_scales_skewed_log_likelihood_has_its_own_two_sides():
    # n zero-mean Gaussian observations of sum of squares S: log L(σ) = −n log σ − S/(2σ²), whose
    # likelihood-ratio interval reaches 0.42 σ̂ above the estimate and only 0.26 below (n = 20): the
    # quadratic's ± 2 se (0.32 σ̂ each side) misses both ends.
    n, S = 20, 20 * 0.8**2

    def loglik(sigma):
        return -n * math.log(sigma) - S / (2 * sigma**2)

    result = fit.maximise(Curve(loglik, sigma="positive"), ["sigma"], profile=True)
    low, high = crossings(loglik, 0.8, 0.1, 5.0)
    assert result.estimate["sigma"] == pytest.approx(0.8, rel=1e-3)
    got = result.interval["sigma"]
    assert got[0] == pytest.approx(low, abs=0.01 * (high - low)) and got[1] == pytest.approx(
        high, abs=0.01 * (high - low)
    )
    assert high - 0.8 > 1.5 * (0.8 - low)


def test_a_scale_the_data_cannot_tell_from_zero_has_an_interval_from_zero():
    # log L rises as b goes to 0, where the estimate sits: no standard error, yet an interval [0, 0.2]
    # (50 b² = 2), and a's own one beside it.
    def loglik(a, b):
        return -0.5 * 400.0 * (a - 0.3) ** 2 - 50.0 * b**2

    result = fit.maximise(Curve(loglik, a="real", b="positive"), ["a", "b"], start={"b": 0.5}, profile=True)
    assert math.isnan(result.stderr["b"]) and result.estimate["b"] < 0.02
    assert result.interval["b"][0] == 0.0 and result.interval["b"][1] == pytest.approx(0.2, abs=2e-3)
    assert result.interval["a"] == pytest.approx((0.2, 0.4), abs=1e-3)


def test_a_side_that_does_not_fall_ends_at_the_bound_or_at_infinity():
    # An sd of 1 on a search bounded to (0, 1): both ends at the bounds. Unbounded, a log L that never falls
    # by more than 1.5 nats: ±∞.
    def wide(a):
        return -0.5 * (a - 0.3) ** 2

    bounded = fit.maximise(Curve(wide, a="real"), ["a"], bounds={"a": (0.0, 1.0)}, profile=True)
    assert bounded.interval["a"] == (0.0, 1.0)
    shallow = fit.maximise(Curve(lambda a: -1.5 * (a - 0.3) ** 2 / (1 + (a - 0.3) ** 2), a="real"), ["a"], profile=True)
    assert shallow.stderr["a"] > 0 and shallow.interval["a"] == (-math.inf, math.inf)


def test_the_profile_costs_no_run_unreported():
    # Every filter run of the profile goes through the fit's progress and into its count of runs.
    runs = []
    result = fit.maximise(
        Curve(lambda a, b: -((a - 1) ** 2) - (b - 2) ** 2 - a * b, a="real", b="real"),
        ["a", "b"],
        progress=lambda k, v: runs.append(v),
        profile=True,
    )
    plain = fit.maximise(Curve(lambda a, b: -((a - 1) ** 2) - (b - 2) ** 2 - a * b, a="real", b="real"), ["a", "b"])
    assert len(runs) == result.evaluations > plain.evaluations + 4
    assert plain.interval == {}


def test_each_part_of_the_work_is_announced_as_it_begins():
    # A --profile fit on a device runs for a quarter of an hour and more (2.6 s a filter run on QEMU, two to
    # seven times the fit's runs): its progress says which part is under way.
    events = []
    fit.maximise(
        Curve(lambda a, b: -((a - 1) ** 2) - (b - 2) ** 2 - a * b, a="real", b="real"),
        ["a", "b"],
        progress=lambda k, v: events.append("run"),
        profile=True,
        stage=events.append,
    )
    parts = [e for e in events if e != "run"]
    assert parts == [*fit.STAGES, "profile of a", "profile of b"]
    assert events[0] == fit.STAGES[0]  # no run before the search begins
    assert all(events[events.index(p) + 1] == "run" for p in parts)  # and every part runs the filter


def test_the_filters_profile_intervals_match_the_kalman_likelihoods_on_lg():
    # The exact profile of q (r maximised for each q by a bounded scalar search, the 2-nat crossings by
    # brentq), against uxemu.fit's at η = 32: the ends within a tenth of a standard error.
    spec = systems.spec("lg")
    a = spec.defaults[spec.param_names.index("a")]
    trace = traces.simulate(systems.get("lg"), 300, np.random.default_rng(4))

    def exact(q, r):
        return kalman.kalman_filter(trace.z, a, q, r, *spec.prior[1:]).log_likelihood

    def profile_q(q):
        return -minimize_scalar(
            lambda r: -exact(q, r), bounds=(0.05, 5.0), method="bounded", options=dict(xatol=1e-7)
        ).fun

    result = fit.fit("lg", trace, ["q", "r"], eta=32, profile=True)
    best, se = kalman.fit_noises(trace.z, a, *spec.prior[1:])
    low, high = crossings(profile_q, best[0], best[0] / 4, best[0] * 4)
    assert high - best[0] != pytest.approx(best[0] - low, rel=0.05)  # skewed enough to tell from ± 2 se
    assert result.interval["q"][0] == pytest.approx(low, abs=0.1 * se[0])
    assert result.interval["q"][1] == pytest.approx(high, abs=0.1 * se[0])
    assert profile.LEVEL == 2.0
