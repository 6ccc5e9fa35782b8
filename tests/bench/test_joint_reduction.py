"""benchmarks/joint_reduction.py: its scores against scipy's one-dimensional definitions, and a tiny run."""
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import joint_reduction as jr  # noqa: E402

from uxemu import joint  # noqa: E402


@pytest.fixture
def two_laws():
    rng = np.random.default_rng(7)
    a, b = rng.normal(size=(300, 1)), rng.normal(0.5, 2, size=(40, 1))
    return a, rng.uniform(0.1, 1, 300), b, rng.uniform(0.1, 1, 40)


def test_sliced_w1_in_one_dimension_is_w1(two_laws):
    a, wa, b, wb = two_laws
    wa, wb = wa / wa.sum(), wb / wb.sum()
    got = jr.sliced_w1(a, wa, b, wb, np.ones((1, 1)))
    assert got == pytest.approx(stats.wasserstein_distance(a[:, 0], b[:, 0], wa, wb), rel=1e-10)


def test_energy_term_in_one_dimension_is_scipys_energy_distance_squared(two_laws):
    a, wa, b, wb = two_laws
    wa, wb = wa / wa.sum(), wb / wb.sum()
    d2 = 2 * jr.mean_abs_distance(a, wa, b, wb) - jr.mean_abs_distance(a, wa, a, wa) - jr.mean_abs_distance(b, wb, b, wb)
    assert d2 == pytest.approx(stats.energy_distance(a[:, 0], b[:, 0], wa, wb) ** 2, rel=1e-9)


def test_tiny_run_scores_every_rule(tmp_path):
    out = tmp_path / "joint.md"
    jr.main(["--etas", "4", "--laws", "ca3", "--out", str(out)])
    rows = [r for r in out.read_text().splitlines() if r.startswith("| ca3 | 4 |")]
    assert [r.split("|")[3].strip() for r in rows] == list(joint.RULES)
    for r in rows:
        cells = [c.strip() for c in r.split("|")]
        assert float(cells[8]) < 1e-12  # every rule keeps the mean
        assert 0 < float(cells[5]) < 1 and int(cells[4]) == 4
