"""`python -m uxbench joint_cells` on a tiny size: every method of every system scored and timed, the densities
where the method has one, and the done-when lines read off the table."""

import gzip
import json
import math

import pytest

from uxbench import joint_cells as jc
from uxbench.__main__ import main as uxbench
from uxemu import joint_systems


def test_a_tiny_run_scores_every_method(tmp_path):
    out = tmp_path / "c.md"
    assert uxbench(["joint_cells", "--traces", "1", "--steps", "5", "--out", str(out)]) == 0
    systems = json.loads(gzip.decompress(out.with_suffix(".json.gz").read_bytes()))["systems"]
    assert list(systems) == list(jc.STEPS)
    for name, rows in systems.items():
        model = joint_systems.get(name)
        ref, *timed = rows
        assert ref["method"].startswith("reference") and ref["cpu_us"] is None
        assert (ref["nll"] is None) == (model.dim != 2)  # the grid has a density, the reference PF's mean none
        assert [r["method"] for r in timed] == [label for label, _ in jc.methods(model)]
        for r in timed:
            assert len(r["rmse"]) == model.dim and all(v > 0 for v in r["rmse"]) and r["cpu_us"] > 0, r
            if r["method"].startswith("atoms"):
                assert r["nll"] is None  # its density is scored in joint_filtering
            else:
                assert math.isfinite(r["nll"]), r
    md = out.read_text()
    assert md.startswith("# The cell filter") and md.count("- PF 1000 dominated") == len(jc.STEPS)


def test_one_system_runs_alone_with_its_paired_differences(tmp_path):
    out = tmp_path / "b.md"
    assert uxbench(["joint_cells", "--systems", "bearings", "--traces", "2", "--steps", "5", "--out", str(out)]) == 0
    systems = json.loads(gzip.decompress(out.with_suffix(".json.gz").read_bytes()))["systems"]
    assert list(systems) == ["bearings"] and all(len(r["rmse_traces"]) == 2 for r in systems["bearings"])
    md = out.read_text()
    assert "- cells η=16 − EKF, per trace (mean ± se): x " in md and "- reference: PF 100,000 − UKF" in md


def test_paired_differences_are_per_trace_means_and_standard_errors():
    a = dict(rmse_traces=[[1.0, 2.0], [3.0, 2.0], [2.0, 5.0]], nll_traces=[0.0, 1.0, 2.0])
    b = dict(rmse_traces=[[0.0, 2.0], [1.0, 2.0], [2.0, 2.0]], nll_traces=None)
    (m0, e0), (m1, e1) = jc.paired(a, b)  # no NLL difference: b has none
    assert (m0, m1) == (1.0, 1.0)
    assert (e0, e1) == pytest.approx((math.sqrt(1.0 / 3), 1.0))  # sample sd 1 and √3, over √3
    b["nll_traces"] = [1.0, 1.0, 1.0]
    assert jc.paired(a, b)[2] == pytest.approx((0.0, math.sqrt(1.0 / 3)))
