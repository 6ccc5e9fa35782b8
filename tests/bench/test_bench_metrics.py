"""The benchmarks' own scores (uxbench.metrics): RMSE spread, KDE and grid densities, W1 of atoms and of
the reconstruction."""

import math

import numpy as np
import pytest
from scipy import stats

import uxemu as ux
from uxbench import metrics as M
from uxbench.baselines import GridRun


def test_rmse_spread_over_runs():
    truth = np.zeros(4)
    runs = np.array([[1.0, 1.0, 1.0, 1.0], [2.0, -2.0, 2.0, -2.0], [0.0, 0.0, 0.0, 3.0]])
    assert M.rmse_spread(runs, truth) == pytest.approx(np.std([1.0, 2.0, 1.5], ddof=1))
    assert M.rmse_spread(np.tile(runs[:1], (3, 1)), truth) == 0.0
    with pytest.raises(ValueError):
        M.rmse_spread(runs[:1], truth)


def test_kde_is_scipys_weighted_gaussian_kde_in_the_log_domain():
    rng = np.random.default_rng(4)
    x = rng.normal(1.0, 2.0, 300)
    w = rng.random(300)
    kde = stats.gaussian_kde(x, weights=w)
    t = np.array([-3.0, 0.0, 1.0, 6.5])
    np.testing.assert_allclose(M.kde_logpdf(x, w, t), kde.logpdf(t), rtol=1e-10)
    assert M.kde_bandwidth(x, w) == pytest.approx(math.sqrt(kde.covariance[0, 0]), rel=1e-12)
    assert M.log_pdf_particles(x, w, 0.0) == pytest.approx(float(kde.logpdf(0.0)[0]), rel=1e-10)
    # Far out the linear-domain density underflows to 0; the log-domain one stays finite.
    assert np.isfinite(M.kde_logpdf(x, w, 400.0))


def test_kde_of_a_degenerate_set_has_no_density():
    assert M.kde_bandwidth([2.0, 2.0, 5.0], [0.0, 1.0, 0.0]) == 0.0
    assert M.kde_logpdf([2.0, 2.0], [0.5, 0.5], 2.0) == -math.inf


def test_grid_density_log():
    nodes = np.linspace(0.0, 1.0, 5)[None, :]
    w = np.array([[0.1, 0.2, 0.4, 0.2, 0.1]])
    run = GridRun(np.zeros(1), np.zeros(1), nodes, w, np.zeros(1, bool))
    assert M.log_pdf_grid(run, 0, 0.5) == pytest.approx(math.log(0.4 / 0.25))
    assert M.log_pdf_grid(run, 0, 0.625) == pytest.approx(math.log(0.3 / 0.25))
    assert M.log_pdf_grid(run, 0, 1.5) == -math.inf


# -- W1 ----------------------------------------------------------------------------------------------
def test_w1_of_atoms_against_themselves_and_a_shift():
    v = ux.laplace(0.3, 1.2, eta=32)
    assert M.w1_value(v, v.x, v.w) == pytest.approx(0.0, abs=1e-15)
    for c in (-2.5, 0.125, 40.0):
        assert M.w1_value(v, v.x + c, v.w) == pytest.approx(abs(c), rel=1e-12)


def test_w1_reconstructed_against_a_point_beyond_the_support_is_the_mean_distance():
    # All mass of the reconstruction lies on one side: W1 = |E[X] − y|, and the bins keep the mean.
    v = ux.gaussian(0.7, 2.0, eta=16)
    edges = v.bins()[0]
    for y in (edges[0] - 3.0, edges[-1] + 0.5):
        assert M.w1_reconstructed(v, [y]) == pytest.approx(abs(v.mean() - y), rel=1e-12)


def test_w1_reconstructed_shift_moves_the_sample_with_the_value():
    v = ux.gaussian(0.0, 1.0, eta=8)
    s = np.random.default_rng(1).normal(size=500)
    c = 3.25
    shifted = v + c
    np.testing.assert_allclose(shifted.x, v.x + c, rtol=1e-14)
    assert M.w1_reconstructed(shifted, s + c) == pytest.approx(M.w1_reconstructed(v, s), rel=1e-9)
    # Against its own reconstruction's quantiles (a deterministic N-point sample) W1 falls like 1/N.
    grid = np.linspace(-6, 6, 200001)
    F = M.reconstructed_cdf(v, grid)
    for n in (100, 1000):
        q = np.interp((np.arange(n) + 0.5) / n, F, grid)
        assert M.w1_reconstructed(v, q) < 2.0 / n


def test_w1_reconstructed_matches_quadrature_and_weighted_samples():
    v = ux.student_t(4.0, 0.0, 1.0, eta=8)
    rng = np.random.default_rng(2)
    s, sw = rng.standard_t(4.0, 60), rng.random(60)
    t = np.linspace(-40.0, 40.0, 4_000_001)
    order = np.argsort(s)
    Fs = np.concatenate([[0.0], np.cumsum(sw[order]) / sw.sum()])[np.searchsorted(s[order], t, side="right")]
    brute = np.trapezoid(np.abs(M.reconstructed_cdf(v, t) - Fs), t)
    assert M.w1_reconstructed(v, s, sw) == pytest.approx(brute, rel=1e-4)


def test_w1_of_a_quantized_gaussian_against_a_large_sample_reproduces_the_yardstick():
    # docs/contract.md: atoms 0.146 at η = 8, reconstruction 0.021. A 10⁶-sample empirical cdf is itself
    # ~0.001 from N(0, 1) in W1, which bounds how far either estimate may move.
    s = np.random.default_rng(3).normal(size=1_000_000)
    v = ux.gaussian(0.0, 1.0, eta=8)
    assert M.w1_value(v, s) == pytest.approx(0.146, abs=0.003)
    assert M.w1_reconstructed(v, s) == pytest.approx(0.021, abs=0.0015)


def test_w1_of_a_one_atom_value_is_that_of_its_atom():
    v = ux.point(2.0)
    assert M.w1_reconstructed(v, [1.0, 4.0]) == pytest.approx(1.5)
