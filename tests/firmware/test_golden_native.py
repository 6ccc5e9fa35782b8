"""The firmware's protocol code answers every golden frame (tests/golden/frames.toml) byte for byte: the C
checker tests/golden/golden_test.c, built from firmware/app with the sanitizers and the table codegen
writes into tests/golden/frames.h, runs every case from a fresh device."""

import subprocess
import tomllib

import pytest
from app_build import ROOT, build_app, run_env

GOLDEN = ROOT / "tests" / "golden"


TABLE = tomllib.loads((GOLDEN / "frames.toml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def golden_test(tmp_path_factory):
    try:
        return build_app(
            tmp_path_factory.mktemp("golden") / "golden_test",
            GOLDEN / "golden_test.c",
            TABLE["fw_version"],
            own_main=True,
            includes=(GOLDEN,),
        )
    except RuntimeError as exc:
        pytest.fail(str(exc))


def test_firmware_answers_every_golden_frame_byte_for_byte(golden_test):
    proc = subprocess.run([str(golden_test)], capture_output=True, text=True, timeout=300, env=run_env())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # Every case of the table ran (frames.h is current: tests/test_generated.py).
    names = [case["name"] for case in TABLE["case"]]
    assert [line.split()[1] for line in proc.stdout.splitlines() if line.startswith("ok")] == names
