"""`python -m uxbench joint_fits` on a tiny size: each fit held against the truth it was simulated from."""

import gzip
import json

from uxbench import joint_fits as jf
from uxbench.__main__ import main as uxbench


def test_a_tiny_run_fits_and_judges_every_trace(tmp_path):
    out = tmp_path / "f.md"
    argv = ["joint_fits", "--traces", "2", "--systems", "cvrange", "reentry", "--eta", "8", "--out", str(out)]
    assert uxbench(argv) == 0
    assert "on the cell filter at η = 8 (native engine)" in out.read_text()
    systems = json.loads(gzip.decompress(out.with_suffix(".json.gz").read_bytes()))["systems"]
    assert list(systems) == ["cvrange", "reentry"]
    for name, fits in systems.items():
        assert [f["trace"] for f in fits] == [0, 1]
        for f in fits:
            assert set(f["estimate"]) == set(jf.FREE[name]) and f["evaluations"] > 10
            assert f["within"] == all(abs(z) <= 2 for z in f["z"].values())
    md = out.read_text()
    assert (
        md.startswith("# Joint fits on the cell filter") and "| cvrange | q, r |" in md and "| reentry | q, r |" in md
    )


def test_a_fit_without_a_standard_error_is_not_within_and_a_warned_miss_counts():
    fits = [
        dict(
            trace=0,
            estimate={"q": 1.0, "r": 1.0},
            z={"q": float("nan"), "r": 0.1},
            within=False,
            converged=True,
            reliable=False,
            better_seen=False,
            roughness=0.1,
            jitter=0.01,
            evaluations=90,
            seconds=1.0,
        ),
        dict(
            trace=1,
            estimate={"q": 1.0, "r": 1.0},
            z={"q": 0.5, "r": -1.9},
            within=True,
            converged=True,
            reliable=True,
            better_seen=False,
            roughness=0.1,
            jitter=0.01,
            evaluations=90,
            seconds=1.0,
        ),
    ]
    row = jf.summary_row("cvrange", fits)
    assert row[2] == "1/2" and row[3] == "q 1 · r 2" and row[4] == "1 of 1"  # the miss was warned of
    assert "| 0 | q = 1, r = 1 | q +nan, r +0.10 | yes | no |" in "\n".join(jf.misses("cvrange", fits))
