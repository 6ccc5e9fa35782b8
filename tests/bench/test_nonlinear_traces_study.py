"""`python -m uxbench nonlinear_traces` on one trace per set: every set, mode and η scored against the grid, the
moved reading flagged on sv, and the table written."""

import gzip
import json

from uxbench import nonlinear_traces as study
from uxbench.__main__ import main as uxbench


def test_one_trace_per_set_is_scored_in_every_mode_and_eta(tmp_path):
    out = tmp_path / "n.md"
    assert uxbench(["nonlinear_traces", "--traces", "1", "--out", str(out)]) == 0
    record = json.loads(gzip.decompress(out.with_suffix(".json.gz").read_bytes()))
    assert list(record["sets"]) == ["gss", "sv", "sv outlier", "gss σ_n = 1/5", "gss σ_n = 1/20", "gss σ_v = 0.3"]
    for by_mode in record["sets"].values():
        assert list(by_mode) == list(study.MODES)
        for by_eta in by_mode.values():
            assert list(by_eta) == [str(eta) for eta in study.ETAS]
            for score in by_eta.values():
                assert score["steps"] == study.STEPS and 0 <= score["silent"] <= score["wrong"] <= study.STEPS
    moved = record["sets"]["sv outlier"]["refined"]["16"]
    assert moved["statuses"].get("4", 0) >= 1  # the moved reading says OUTLIER
    assert moved["wrong"] > record["sets"]["sv"]["refined"]["16"]["wrong"]
    assert "| sv outlier | refined |" in out.read_text()
