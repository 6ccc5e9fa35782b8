"""Metrics of uxemu: RMSE, NLL of the binned density with its floor, exact CRPS (the benchmarks' own
scores are tested in tests/bench/test_bench_metrics.py)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

import uxemu as ux
from uxemu import metrics as M


def test_rmse():
    assert M.rmse([1.0, 2.0], [0.0, 0.0]) == pytest.approx(math.sqrt(2.5))


@pytest.mark.filterwarnings("error")
def test_rmse_of_huge_errors_is_finite_and_of_infinite_ones_infinite():
    assert M.rmse([1e200, -3e200], [0.0, 0.0]) == pytest.approx(math.sqrt(5.0) * 1e200, rel=1e-15)
    assert M.rmse([1e308, math.inf], [0.0, 0.0]) == math.inf
    assert math.isnan(M.rmse([1e308, math.nan], [0.0, 0.0]))


# -- CRPS --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("y", [-3.0, 0.5, 0.5 + 1e-9, 7.0])
def test_crps_of_a_point_mass_is_the_absolute_error(y):
    assert M.crps_atoms([0.5], [1.0], y) == pytest.approx(abs(0.5 - y), abs=1e-15)


@pytest.mark.parametrize("y, expected", [(1.0, 0.625), (-1.0, 2.5 - 0.375), (3.0, 1.5 - 0.375), (0.0, 1.5 - 0.375)])
def test_crps_of_two_atoms(y, expected):
    # Atoms 0 (weight 1/4) and 2 (3/4): Σ w|x − y| − w₀w₁·|2 − 0|, with w₀w₁·2 = 0.375.
    assert M.crps_atoms([2.0, 0.0], [0.75, 0.25], y) == pytest.approx(expected, rel=1e-14)


def crps_pairwise(x, w, y):
    w = np.asarray(w) / np.sum(w)
    x = np.asarray(x)
    return float(w @ np.abs(x - y) - 0.5 * w @ np.abs(x[:, None] - x[None, :]) @ w)


atoms = st.lists(st.tuples(st.floats(-1e3, 1e3), st.floats(0.0, 10.0)), min_size=1, max_size=30)


@given(atoms.filter(lambda a: sum(w for _, w in a) > 1e-6), st.floats(-2e3, 2e3))
def test_crps_matches_the_pairwise_formula(pairs, y):
    x = np.array([p[0] for p in pairs])
    w = np.array([p[1] for p in pairs])
    got = M.crps_atoms(x, w, y)
    assert got >= 0.0
    assert got == pytest.approx(crps_pairwise(x, w, y), rel=1e-9, abs=1e-9 * (1 + np.abs(x).max() + abs(y)))


def test_crps_of_a_quantized_gaussian_is_within_twice_its_w1_of_the_closed_form():
    # |CRPS(F, y) − CRPS(G, y)| = |∫ (F − G)(F + G − 2·1{t ≥ y}) dt| ≤ 2·W1(F, G); W1 of the η = 64
    # quantization of N(0, 1) is 0.0201 (its exact value, by quadrature, is in docs/contract.md).
    v = ux.gaussian(0.0, 1.0, eta=64)
    for y in (-2.5, -0.3, 0.0, 1.1, 4.0):
        exact = y * (2 * stats.norm.cdf(y) - 1) + 2 * stats.norm.pdf(y) - 1 / math.sqrt(math.pi)
        assert abs(M.crps_value(v, y) - exact) <= 2 * 0.0201
    assert (
        abs(M.crps_value(ux.gaussian(0.0, 1.0, eta=8), 0.0) - (2 * stats.norm.pdf(0) - 1 / math.sqrt(math.pi))) > 1e-3
    )


def test_crps_refuses_bad_atoms():
    with pytest.raises(ValueError):
        M.crps_atoms([1.0, 2.0], [0.0, 0.0], 0.0)
    with pytest.raises(ValueError):
        M.crps_atoms([1.0, 2.0], [1.0], 0.0)


# -- NLL ---------------------------------------------------------------------------------------------
def test_nll_of_a_quantized_gaussian_at_its_mean_is_the_binned_height():
    v = ux.gaussian(0.0, 1.0, eta=16)
    edges, heights = v.bins()
    # The mean is the root split point, the edge between atoms 7 and 8; the bins on both sides have
    # equal heights by symmetry, and that height is atom 8's left bin: w·dR / ((dL + dR)·dL).
    assert edges[16] == pytest.approx(v.mean(), abs=1e-15)
    x8, w8, s8 = v.x[8], v.w[8], v.split_points()[8]
    dL, dR = x8 - edges[16], s8 - x8
    height = w8 * dR / ((dL + dR) * dL)
    assert heights[16] == pytest.approx(height, rel=1e-12)
    assert M.log_pdf_value(v, v.mean()) == pytest.approx(math.log(height), rel=1e-12)
    # …and the binned density is close to φ(0) there, as TTR binning is meant to be.
    assert height == pytest.approx(stats.norm.pdf(0.0), rel=1e-4)


def test_nll_floor_is_applied_and_counted():
    v = ux.gaussian(0.0, 1.0, eta=8)
    far = v.bins()[0][-1] + 1.0
    assert M.log_pdf_value(v, far) == -math.inf
    s = M.nll([-1.0, M.log_pdf_value(v, far), float("nan"), -25.0, 0.5])
    assert s.floor_hits == 3 and s.steps == 5
    assert s.mean == pytest.approx((1.0 + 20.0 + 20.0 + 20.0 - 0.5) / 5)
    assert M.LOG_PDF_FLOOR == -20.0
