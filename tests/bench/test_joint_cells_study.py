"""`python -m uxbench joint_cells` on a tiny size: every method of every system scored and timed, the densities
where the method has one, and the done-when lines read off the table."""

import gzip
import json
import math

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
