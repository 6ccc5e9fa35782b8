"""The fuzz harnesses (fuzz/) replayed without libFuzzer, with the plain compiler and the sanitizers: every
seed and every finding kept under tests/fuzz/findings/<harness>/ must run clean. A finding of `make fuzz`
stays here as a regression test once it is fixed."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "fuzz"))

import run as fuzz_run  # noqa: E402
import seeds  # noqa: E402


@pytest.mark.parametrize("harness", sorted(fuzz_run.SOURCES))
def test_seeds_and_findings_replay_clean(harness, tmp_path):
    exe = fuzz_run.build(harness, os.environ.get("CC", "cc"), libfuzzer=False)
    inputs = seeds.write(harness, tmp_path / "seeds")
    inputs += sorted((fuzz_run.FINDINGS / harness).glob("*")) if (fuzz_run.FINDINGS / harness).exists() else []
    proc = subprocess.run(
        [str(exe), *map(str, inputs)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "ASAN_OPTIONS": "detect_leaks=0"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"{len(inputs)} input(s) replayed" in proc.stdout


def test_the_frames_oracle_rejects_a_malformed_answer(tmp_path):
    # The harness's own oracle can fail: built with a writer that corrupts every answer's CRC, the seeds
    # abort. (-DFUZZ_CORRUPT_ANSWERS flips one byte before the check.)
    exe = tmp_path / "frames_corrupt"
    cmd = [
        "cc",
        *fuzz_run.FLAGS,
        "-DFUZZ_CORRUPT_ANSWERS",
        "-fsanitize=address,undefined",
        *fuzz_run.INCLUDES,
        "-o",
        str(exe),
        *fuzz_run.SOURCES["frames"],
        str(ROOT / "fuzz" / "driver.c"),
        "-lm",
    ]
    subprocess.run(cmd, check=True, capture_output=True)
    inputs = seeds.write("frames", tmp_path / "seeds")
    proc = subprocess.run(
        [str(exe), str(inputs[0])],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "ASAN_OPTIONS": "detect_leaks=0"},
    )
    assert proc.returncode != 0
