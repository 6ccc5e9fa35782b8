"""`python -m uxbench soak` at a tiny size (--steps): a stream to the firmware in QEMU through the damaging
proxy, every posterior checked, the samples written as they come; its three result files must agree
with each other and with the link's own counts. A run cut short must say so in its results."""

import csv
import subprocess

import pytest

from uxbench import soak as soak_module
from uxbench.__main__ import main as uxbench
from uxbench.report import read_json_gz
from uxemu import joint_systems, systems
from uxhost import qemu


@pytest.fixture(scope="module")
def soak():
    return soak_module


@pytest.mark.qemu
def test_tiny_soak_streams_checks_and_writes_consistent_results(soak, tmp_path):
    board = "mps2-an500"
    made = subprocess.run(
        [
            "make",
            "-s",
            "-C",
            str(qemu.REPO_ROOT / "firmware"),
            "arm",
            f"BOARD={board}",
            f"BUILD={qemu.image_path(board).parent}",
        ],
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr  # the image is current, not a stale one
    argv = [
        "--steps",
        "60",
        "--block",
        "20",
        "--calibrate",
        "10",
        "--rate",
        "0.3",
        "--timeout",
        "0.3",
        "--out",
        str(tmp_path),
        "--dump",
        str(tmp_path / "soak.jsonl"),
    ]
    assert uxbench(["soak", *argv]) == 0
    record = read_json_gz(tmp_path / "soak.json.gz")
    rows = list(csv.DictReader((tmp_path / "soak.csv").open()))
    md = (tmp_path / "soak.md").read_text()

    assert record["status"] == "done" and record["steps"] == 60
    assert record["mismatched"] == 0 and record["first_mismatch"] is None and record["validate_ok"]
    assert record["largest_difference"] <= 1e-9 and record["atoms_differ"] == 0
    assert [s["steps"] for s in record["samples"]] == [int(r["steps"]) for r in rows] == [20, 40, 60]
    assert [s["rss_kib"] for s in record["samples"]] == [int(r["rss_kib"]) for r in rows]
    to_device = record["proxy"]["to_device"]
    assert to_device["damaged"] > 0 and record["proxy"]["to_host"]["damaged"] > 0 and record["resends"] > 0
    # HELLO, a DESCRIBE per system (scalar and joint), CONFIGURE, the STEPs
    assert record["requests"] == 2 + len(systems.names()) + len(joint_systems.names()) + 60
    assert to_device["frames"] == record["requests"] + record["resends"]
    assert record["samples"][-1]["resends"] == record["resends"]
    assert record["clean_round_trip_ms"]["steps"] == 10
    assert "| steps streamed | 60 |" in md and "| steps bit-identical" in md and "Run not finished" not in md
    assert f"| resends by the host | {record['resends']:,} |" in md

    # Compared again from the dump, the run's results come out the same.
    assert uxbench(["soak", "--recheck", "--out", str(tmp_path), "--dump", str(tmp_path / "soak.jsonl")]) == 0
    assert read_json_gz(tmp_path / "soak.json.gz") == record


def test_a_run_cut_short_says_so(soak, tmp_path):
    run = soak.Soak(
        dict(
            board="b",
            system="gss",
            eta=8,
            mode="refined",
            likelihood="kernel",
            steps=1000,
            trace_seed=1,
            rate=0.1,
            proxy_seed=1,
            timeout_s=0.1,
            retries=40,
            block=100,
            icount_shift=6,
            environment={"cpu": "m", "cpus": 2, "commit": "c"},
        )
    )
    run.samples.append(soak.Sample(100, 5.0, 90_000, 12, 0, 10, 9, 54_000.0, 55_000))
    run.steps, run.status = 100, "stopped after 100 steps: device did not answer"
    soak.write(run, tmp_path)
    md = (tmp_path / "soak.md").read_text()
    assert "**Run not finished: stopped after 100 steps: device did not answer** (of 1,000 steps)." in md
    assert read_json_gz(tmp_path / "soak.json.gz")["status"].startswith("stopped")
    assert len(list(csv.DictReader((tmp_path / "soak.csv").open()))) == 1
