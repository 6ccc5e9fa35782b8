"""`python -m uxbench joint_bearings` on a tiny size: every method scored on every trace, the reference PF at
distance 0 from itself, and the ux filter's rows from the same C core the firmware runs."""

import gzip
import json

from uxbench import joint_bearings as jb
from uxbench.__main__ import main as uxbench


def test_a_tiny_run_scores_every_method(tmp_path):
    out = tmp_path / "b.md"
    assert uxbench(["joint_bearings", "--traces", "2", "--steps", "6", "--out", str(out)]) == 0
    rows = json.loads(gzip.decompress(out.with_suffix(".json.gz").read_bytes()))["rows"]
    assert [r["method"] for r in rows] == ["reference PF"] + [label for label, _ in jb.methods()]
    ref, *others = rows
    assert ref["to_reference"] == 0.0 and ref["cpu_us"] is None
    for r in others:
        assert r["position"] > 0 and r["velocity"] > 0 and r["to_reference"] > 0 and r["cpu_us"] > 0, r
    md = out.read_text()
    assert md.startswith("# The 4-D bearings system") and md.count("\n| ux refined η=") == len(jb.ETAS)
