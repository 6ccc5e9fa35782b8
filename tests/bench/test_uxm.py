"""The uxm study's scores (benchmarks/uxbench/uxm.py): its long double screen with mpmath deciding the
doubtful points gives the same max error and correctly rounded share as mpmath on every point."""

import mpmath
import numpy as np
import pytest

from uxbench import uxm


def direct(name, x):
    got = uxm.ours(name, x)
    errors, exact_rounding = [], []
    for xi, gi in zip(x, got):
        e = uxm._exact_mp(name, float(xi))
        with mpmath.workprec(uxm.MP_BITS):
            ulp = mpmath.mpf(float(uxm._ulp(np.array([float(e)]), x.dtype)[0]))
            errors.append(float(abs(mpmath.mpf(float(gi)) - e) / ulp))
        exact_rounding.append(gi == uxm._round_mp(e, x.dtype))
    return max(errors), float(np.mean(exact_rounding))


@pytest.mark.parametrize(
    "name, r, float_build",
    [("exp", 0, False), ("log1p", 0, False), ("sin", 1, False), ("expm1", 1, True), ("cos", 1, True)],
)
def test_screened_scores_equal_mpmath_on_every_point(name, r, float_build):
    x = uxm.arguments(name, r, float_build, 1500)
    scored = uxm.score(name, x)
    worst, share = direct(name, x)
    assert scored["points"] == x.size
    assert scored["max_ulp"] == pytest.approx(worst, abs=1e-9)
    assert scored["correctly_rounded"] == share
    assert scored["max_ulp"] < 1.0
