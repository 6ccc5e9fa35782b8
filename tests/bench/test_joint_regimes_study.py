"""`python -m uxbench joint_regimes` on a tiny size, and its scores: a step is wrong where any component is, silent
where it is wrong with status OK, and a cell the grid cannot judge is shown but not counted."""

import gzip
import json
from types import SimpleNamespace

import numpy as np

from uxbench import joint_regimes as jr
from uxbench.__main__ import main as uxbench


def test_a_tiny_run_scores_every_cell(tmp_path):
    out = tmp_path / "r.md"
    argv = ["joint_regimes", "--seeds", "1", "--steps", "12", "--grid", "48", "--systems", "cvrange", "--out", str(out)]
    assert uxbench(argv) == 0
    record = json.loads(gzip.decompress(out.with_suffix(".json.gz").read_bytes()))
    results = record["systems"]["cvrange"]
    assert [r["cell"]["label"] for r in results] == [c["label"] for c in jr.cells()]
    for r in results:
        assert set(r["records"]) == {"4", "16", "ekf", "ukf"} and r["grid_check"]["mean_sd"] >= 0
        for s in r["records"].values():
            assert s["steps"] == 12 and 0 <= s["silent"] <= s["wrong"] <= s["steps"]
    md = out.read_text()
    judged = sum(jr.judged(r) for r in results)
    assert f"| cvrange | cells η = 16 | {judged}/16 |" in md and f"| cvrange | UKF | {judged}/16 |" in md
    assert md.count("(not judged)") == 4 * (16 - judged)  # one row per filter


def test_a_step_is_wrong_where_any_component_is_and_silent_only_with_status_ok():
    T = 4
    exact = SimpleNamespace(mean=np.zeros((T, 2)), cov=np.tile(np.eye(2), (T, 1, 1)), log_evidence=np.zeros(T))
    mean = np.zeros((T, 2))
    mean[1, 1] = 0.6  # component 1 off by 0.6 sd: wrong
    cov = np.tile(np.eye(2), (T, 1, 1))
    cov[2, 0, 0] = 2.5  # component 0's variance 2.5×: wrong
    run = SimpleNamespace(mean=mean, cov=cov, status=np.array([0, 0, 4, 0]), log_likelihood=-1.0)
    s = jr.score(run, exact)
    assert (s.wrong, s.silent, s.flagged) == (2, 1, 1)  # step 2 is wrong but flagged OUTLIER
    assert s.worst_sd == 0.6 and (s.var_min, s.var_max) == (1.0, 2.5) and s.log_l_gap == -1.0
