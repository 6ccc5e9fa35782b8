"""uxbench.pf_tuned (the plain against the tuned C PF) on tiny sizes."""

import numpy as np

from uxbench import filtering, filtering_report, pf_tuned, report


def test_interleaved_rotates_the_order_and_takes_medians():
    seen = []

    class Run:
        def __init__(self, ns):
            self.cpu_ns = ns

    calls = {k: (lambda tr, k=k: seen.append(k) or Run(100 * len(k))) for k in ("a", "bb", "ccc")}
    med = pf_tuned.interleaved(calls, [np.zeros(10)], rounds=3)
    assert seen == ["a", "bb", "ccc", "bb", "ccc", "a", "ccc", "a", "bb"]
    assert med == {"a": 10.0, "bb": 20.0, "ccc": 30.0}


def test_candidate_is_the_fastest_ux_row_as_accurate():
    def row(key, rmse, ns):
        r = filtering_report.Row("sv", key, {0: {"rmse": [rmse]}}, latency_ns=ns)
        return key, r

    rows = dict(
        [
            row(("ux", 4, "paper", "kernel"), 0.60, 500),
            row(("ux", 4, "refined", "kernel"), 0.54, 1000),
            row(("ux", 64, "refined", "kernel"), 0.53, 9000),
            row(("pf", 10), 0.55, 300),
        ]
    )
    assert pf_tuned.candidate(rows, 0.55).key == ("ux", 4, "refined", "kernel")
    assert pf_tuned.candidate(rows, 0.61).key == ("ux", 4, "paper", "kernel")
    assert pf_tuned.candidate(rows, 0.50) is None


def test_measure_and_render_on_a_tiny_size(benchlib):
    size = filtering.tiny(T=12)
    recs = pf_tuned.measure(
        benchlib,
        ("sv", "lg"),
        n_traces=2,
        rounds=1,
        runs={"sv": 2, "lg": 2},
        particles=(10, 50),
        size=size,
        progress=lambda *_: None,
    )
    assert [(r["system"], r["n"]) for r in recs] == [("sv", 10), ("sv", 50), ("lg", 10), ("lg", 50)]
    for r in recs:
        assert r["old_ns"] > 0 and r["new_ns"] > 0 and r["ratio"] == r["old_ns"] / r["new_ns"]
        assert np.isfinite(r["rmse_old"]) and np.isfinite(r["rmse_new"])
    text = pf_tuned.render(recs, report.run_meta(1.0), "cmd")
    assert "| sv | 10 |" in text and "## Which ux rows dominate the tuned PF" in text
    assert "| lg | PF" not in text  # lg has no filtering table to compare with
