"""`python -m uxbench libm_cycles` on its smallest setting: one board, η = 2, a 3-step trace. The build it
compares against must really call newlib's functions (and the shipped one the core's own), and every row must
be the two images' counts for the same configuration."""

import subprocess

import pytest

from uxbench import firmware_costs
from uxbench.__main__ import main as uxbench
from uxbench.report import read_json_gz

pytestmark = pytest.mark.qemu

OWN = {"uxm_exp", "uxm_log", "uxm_sin", "uxm_cos"}
PLATFORM = {"exp", "log", "sin", "cos"}  # exp and log are in both: newlib's erfc and lgamma call them


def text_symbols(elf) -> set[str]:
    out = subprocess.run(["arm-none-eabi-nm", str(elf)], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if " T " in line}


def test_small_run_compares_the_two_libms(tmp_path):
    out, scratch = tmp_path / "libm.md", tmp_path / "build"
    argv = ["--boards", "mps2-an500", "--etas", "2", "--steps", "3", "--scratch", str(scratch), "--out", str(out)]
    assert uxbench(["libm_cycles", *argv]) == 0

    shipped = text_symbols(scratch / "mps2-an500-eta2" / "firmware.elf")
    platform = text_symbols(scratch / "mps2-an500-eta2-platform-libm" / "firmware.elf")
    assert OWN <= shipped and not {"sin", "cos"} & shipped
    assert PLATFORM <= platform and not any(name.startswith("uxm_") for name in platform)

    rows = read_json_gz(out.with_suffix(".json.gz"))["rows"]
    assert len(rows) == len(firmware_costs.SYSTEMS) * 2 * 2  # systems × modes × likelihoods at one η
    for r in rows:
        for build in ("own", "platform"):
            c = r[f"{build}_costs"]
            assert r[build] == c["step_mean"] and c["predict_median"] + c["update_median"] > 0
            assert c["predict_median"] + c["update_median"] <= c["predict_max"] + c["update_max"]
        assert r["ratio"] == r["own"] / r["platform"]
    assert any(r["ratio"] != 1 for r in rows)  # the functions differ, so some count does
    assert "| mps2-an500 | 16 |" in out.read_text()


def test_a_board_qemu_cannot_run_is_one_line_and_builds_nothing(tmp_path):
    with pytest.raises(SystemExit, match="not a QEMU board: nucleo-f446re"):
        uxbench(["libm_cycles", "--boards", "nucleo-f446re", "--scratch", str(tmp_path / "build")])
    assert not (tmp_path / "build").exists()
