"""uxbench.fit_starts: fits from the default start against the exact Kalman MLE."""

import math

import numpy as np
import pytest

from uxemu import kalman, native

from uxbench import fit_starts


def test_the_traces_cover_every_r_and_every_ratio_at_200_steps():
    """50 traces: r ∈ {0.01 … 100} × 10 q/r log-spaced over 1e-3 … 10, each 200 steps, seed = index."""
    cases = fit_starts.cases()
    assert len(cases) == 50 and [c.index for c in cases] == list(range(50))
    assert sorted({c.r for c in cases}) == [0.01, 0.1, 1.0, 10.0, 100.0]
    ratios = sorted({c.ratio for c in cases})
    assert len(ratios) == 10 and ratios[0] == pytest.approx(1e-3) and ratios[-1] == pytest.approx(10.0)
    assert np.allclose(np.diff(np.log10(ratios)), 4 / 9)
    trace = fit_starts.simulate(cases[17])
    assert trace.z.shape == (200,) and np.array_equal(trace.k, np.arange(200))
    assert np.array_equal(trace.z, fit_starts.simulate(cases[17]).z)  # the seed is the index


def test_the_quick_subset_spreads_over_the_grid_and_keeps_the_seeds():
    cases = fit_starts.cases()
    chosen = fit_starts.spread_subset(cases, 5)
    assert [c.index for c in chosen] == [0, 12, 24, 37, 49]
    assert sorted({c.r for c in chosen}) == list(fit_starts.NOISE_SCALES)


def exact(q=1.0, r=2.0, se_q=0.1, se_r=0.2):
    return fit_starts.ExactMLE(q, r, se_q, se_r, log_likelihood=-100.0)


def test_within_two_standard_errors_of_both():
    assert fit_starts.within((1.19, 2.39), exact(), gap=50.0)  # the gap is not read where the se exist
    assert not fit_starts.within((1.21, 2.0), exact(), gap=0.0)  # q 2.1 se off
    assert not fit_starts.within((1.0, 1.59), exact(), gap=0.0)  # r 2.05 se off


@pytest.mark.parametrize("se_q", [0.0, math.nan])
def test_without_a_standard_error_the_log_likelihood_gap_decides(se_q):
    assert fit_starts.within((5.0, 9.0), exact(se_q=se_q), gap=1.9)
    assert not fit_starts.within((1.0, 2.0), exact(se_q=se_q), gap=2.1)


def test_the_oracle_is_the_maximum_of_the_exact_likelihood():
    """On a trace with an interior maximum: the oracle's log L beats the truth's, and `kalman.fit_noises` started
    at the truth climbs to the same point."""
    case = fit_starts.Case(7, 1.0, 1.0)
    trace = fit_starts.simulate(case)
    prior = fit_starts.filter_prior("table", case, trace.z)
    mle = fit_starts.exact_mle(trace.z, prior, (case.q, case.r))
    assert mle.log_likelihood >= fit_starts.exact_log_likelihood(trace.z, prior, case.q, case.r)
    assert mle.se_q > 0 and mle.se_r > 0
    (q, r), _ = kalman.fit_noises(trace.z, 1.0, prior.mu, prior.sigma, start=(case.q, case.r))
    assert (q, r) == pytest.approx((mle.q, mle.r), rel=1e-4)


def test_a_quick_run_writes_the_verdict(tmp_path):
    if not native.available():
        pytest.skip("build/native is not built (run `make native`)")
    out = tmp_path / "fit_starts.md"
    assert fit_starts.main(["--quick", "--traces", "2", "--out", str(out)]) == 0
    text = out.read_text()
    assert "2 local-level traces" in text
    for prior in fit_starts.PRIORS:
        assert f"**{fit_starts.uxfit.DEFAULT_MODE}, {prior} prior: " in text and "the done-when**" in text
