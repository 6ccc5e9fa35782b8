"""`python -m uxbench joint_fits` on a tiny size: each fit held against the truth it was simulated from."""

import gzip
import json
import math

import pytest

from uxbench import joint_fits as jf
from uxbench.__main__ import main as uxbench


def test_a_tiny_run_fits_and_judges_every_trace(tmp_path):
    out = tmp_path / "f.md"
    argv = ["joint_fits", "--traces", "2", "--systems", "cvrange", "reentry", "--eta", "8", "--out", str(out)]
    assert uxbench(argv) == 0
    assert (
        "on the cell filter at η = 8, its exchange off (`uxemu.joint_fit.FIT_EXCHANGE`) (native engine)"
        in out.read_text()
    )
    record = json.loads(gzip.decompress(out.with_suffix(".json.gz").read_bytes()))
    systems = record["systems"]
    assert list(systems) == ["cvrange", "reentry"]
    for name, fits in systems.items():
        assert list(record["rivals"][name]) == ["ekf", "ukf"]
        for f in fits + record["rivals"][name]["ekf"] + record["rivals"][name]["ukf"]:
            assert set(f["estimate"]) == set(jf.FREE[name]) and f["evaluations"] > 10
            assert f["within"] == all(abs(z) <= 2 for z in f["z"].values())
        assert [f["trace"] for f in fits] == [f["trace"] for f in record["rivals"][name]["ukf"]] == [0, 1]
    md = out.read_text()
    assert md.startswith("# Joint fits on the cell filter")
    for row in ("| cvrange | cells η = 8 | q, r |", "| reentry | cells η = 8 | q, r |", "| reentry | UKF | q, r |"):
        assert row in md


def test_a_profiled_run_says_whether_each_truth_is_inside_its_interval(tmp_path):
    out = tmp_path / "p.md"
    argv = ["joint_fits", "--traces", "2", "--systems", "reentry", "--eta", "4", "--profile", "--jobs", "2"]
    argv += ["--out", str(out)]
    assert uxbench(argv) == 0
    record = json.loads(gzip.decompress(out.with_suffix(".json.gz").read_bytes()))
    assert [f["trace"] for f in record["systems"]["reentry"]] == [0, 1]  # in order, from two processes
    alone = jf.fit_trace("reentry", 1, 4, profile=True)  # the same bits as in this process
    assert record["systems"]["reentry"][1]["estimate"] == alone["estimate"]
    assert [list(v) for v in alone["interval"].values()] == list(record["systems"]["reentry"][1]["interval"].values())
    for f in record["systems"]["reentry"] + record["rivals"]["reentry"]["ukf"]:
        assert set(f["interval"]) == {"q", "r"} and all(
            lo < f["estimate"][p] < hi for p, (lo, hi) in f["interval"].items()
        )
        truth = dict(zip(jf.joint_systems.spec("reentry").param_names, jf.joint_systems.get("reentry").params))
        assert f["in_interval"] == all(lo <= truth[p] <= hi for p, (lo, hi) in f["interval"].items())


def test_the_ukf_fit_recovers_a_linear_gaussian_like_system():
    """cvrange's range from a far station is nearly linear: the UKF's own fit, which the study sets beside the
    cells', lands near the truth on a trace of it, and its log L is the Kalman sum the C filter reports."""
    trace, truth = jf.simulated("cvrange", 0)
    loglik = jf.GaussianLogLikelihood("cvrange", trace, "ukf")
    params = [truth[p] for p in loglik.spec.param_names]
    assert loglik(params) == pytest.approx(
        float(loglik._lib.run_kf("cvrange", trace.z, "ukf", log_evidence=True).log_evidence.sum())
    )
    assert loglik([-1.0 if p == "q" else v for p, v in zip(loglik.spec.param_names, params)]) == -math.inf
    f = jf.fit_trace_rival("cvrange", 0, "ukf")
    assert f["converged"] and all(abs(z) < 3 for z in f["z"].values())


def test_the_nominal_rate_is_two_normal_estimates_within_two_se():
    assert jf.nominal_rate() == pytest.approx(0.9545**2, abs=1e-4)
    assert jf.chance_at_least(0, 50, 0.3) == pytest.approx(1.0)
    assert jf.chance_at_least(50, 50, 0.9) == pytest.approx(0.9**50)


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
    assert row[3] == "1/2" and row[5] == "q 1 · r 2" and row[6] == "1 of 1"  # the miss was warned of
    assert row[4] == "—"  # not profiled
    fits[0]["in_interval"], fits[1]["in_interval"] = False, True
    assert jf.summary_row("cvrange", fits)[4] == "1/2"
    assert "| 0 | q = 1, r = 1 | q +nan, r +0.10 | yes | no |" in "\n".join(jf.misses("cvrange", fits))
