"""`python -m uxbench joint_gate` on a tiny size: the gate's counts on the model's own data, the moved readings
flagged and the runs' distances, and the bearings trace whose cells take the mirror image."""

import gzip
import json

from uxbench.__main__ import main as uxbench


def test_a_tiny_run_counts_flags_and_compares(tmp_path):
    out = tmp_path / "g.md"
    assert uxbench(["joint_gate", "--traces", "2", "--out", str(out)]) == 0
    record = json.loads(gzip.decompress(out.with_suffix(".json.gz").read_bytes()))
    assert list(record["own"]) == ["pendulum", "cvrange", "bearings", "reentry"]
    for name, by_method in record["own"].items():
        assert list(by_method) == ["4", "16", "atoms", "ekf", "ukf"]  # cells at each η, atoms, Gaussian filters
        for method, counts in by_method.items():
            assert counts["readings"] == 2 * {"pendulum": 300, "cvrange": 300}.get(name, 80)
            assert 0 <= counts["outliers"] <= counts["above_3sd"] <= counts["readings"]
            assert 0 <= counts["inconsistent"] <= counts["readings"] - counts["outliers"]
            if method in ("4", "16") and name != "reentry":  # the cells fit their own data
                assert counts["inconsistent"] == 0, (name, method)
            if method != "atoms" or name in ("pendulum", "cvrange"):  # the atoms' predictive is spikes in 3-D, 4-D
                assert 0.3 < counts["mean_ratio"] < 3.0  # a predictive whose variance is of the right order
    for by_eta in record["moved"].values():
        for by_move in by_eta.values():
            # 30 noise sd off is flagged on every trace, and dropping it keeps the run nearer the clean one
            far = by_move["30.0"]
            assert all(r["flagged"] for r in far)
            assert all(r["dropped"] < r["weighed"] for r in far)
    mirror = record["mirror"]
    assert mirror["weighed"]["flagged"]  # the mirror crossing does not pass silently
    # after the outliers it weighed, the cells keep a departure: DEPARTED on steps the gate passed
    assert mirror["weighed"]["departed"] and not set(mirror["weighed"]["departed"]) & set(mirror["weighed"]["flagged"])
    md = out.read_text()
    assert md.startswith("# The cell filter's innovation gate on the joint systems")
    assert "| pendulum | 16 | 30 | 2/2 |" in md


def test_step_lists_are_written_as_runs():
    from uxbench.joint_gate import _steps

    assert _steps([41, 42, 60, 61, 62, 79]) == "41–42, 60–62, 79"
    assert _steps([]) == "none"
