"""The joint filtering sweep (`python -m uxbench joint_filtering`) on a tiny size: one task per system and trace,
every method's records, and the tables rendered again from the saved raw results alike."""

import csv

from uxbench import joint_filtering as jf
from uxbench import report

TINY = dict(name=None, traces=1, steps=4, pf_runs=2, grid_points=24, conv_traces=1)


def test_a_tiny_run_scores_every_method_and_renders_the_same_from_its_raw_results(tmp_path, benchlib):
    tasks = jf.tasks(TINY)
    assert [(t["system"], t["trace"]) for t in tasks] == [(s, 0) for s in jf.SYSTEMS]
    results = [jf.run_task(t) for t in tasks]
    for records in results:
        assert not [r for r in records if "error" in r]
        methods = {(r["method"], r["size"]) for r in records}
        assert {("ux refined", e) for e in jf.ETAS} | {("ux paper", e) for e in jf.PAPER_ETAS} <= methods
        assert {("PF", n) for n in jf.PARTICLES} | {("EKF", 0), ("UKF", 0), ("grid", 24), ("grid", 48)} <= methods
    meta = report.run_meta(1.0)
    kept = report.save_run(tmp_path / "b", "joint_filtering", results, meta)
    jf.report(kept, TINY, tmp_path / "a", meta)
    saved, saved_meta = report.load_run(tmp_path / "b", "joint_filtering")
    jf.report(saved, TINY, tmp_path / "b", saved_meta)
    md = (tmp_path / "a" / "joint_filtering.md").read_text()
    assert md == (tmp_path / "b" / "joint_filtering.md").read_text()
    assert md.startswith("Joint filtering benchmark. Measured on ") and "custom size" in md.splitlines()[0]
    for system in jf.SYSTEMS:
        assert f"## {system}" in md and (tmp_path / "a" / f"joint_filtering_{system}.png").exists()
    rows = list(csv.DictReader((tmp_path / "a" / "joint_filtering.csv").open()))
    assert len(rows) == len(jf.SYSTEMS) * (len(jf.ETAS) + len(jf.PAPER_ETAS) + len(jf.PARTICLES) + 4)
