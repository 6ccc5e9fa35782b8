"""`uxhost demo` (what `make demo` runs): the whole chain on the firmware in QEMU, and its first
failure on a fresh clone — no firmware image yet."""

import shutil

import pytest

import uxemu
from uxhost import qemu
from uxhost.cli import main
from uxhost.errors import ToolError
from uxhost.qemu import find_firmware
from uxhost.dump import load_dump


def test_missing_image_tells_to_run_make_firmware(tmp_path):
    with pytest.raises(ToolError) as exc:
        find_firmware("mps2-an500", build_dirs=[tmp_path / "build"])
    assert str(exc.value) == (
        "no firmware image for mps2-an500 (build/mps2-an500/firmware.elf not found): "
        "run `make firmware` first, or pass --elf"
    )


def test_image_is_found_in_the_first_build_folder_that_has_it(tmp_path):
    for root in ("a", "b"):
        (tmp_path / root / "mps2-an386").mkdir(parents=True)
        (tmp_path / root / "mps2-an386" / "firmware.elf").write_bytes(b"\x7fELF")
    found = find_firmware("mps2-an386", build_dirs=[tmp_path / "none", tmp_path / "b", tmp_path / "a"])
    assert found == tmp_path / "b" / "mps2-an386" / "firmware.elf"


@pytest.mark.qemu
def test_demo_end_to_end(tmp_path, capsys):
    if shutil.which(qemu.QEMU) is None or not qemu.image_path("mps2-an500").is_file():
        pytest.skip("needs qemu-system-arm and build/mps2-an500/firmware.elf (make firmware)")
    out = tmp_path / "demo"
    code = main(["demo", "--out", str(out), "--steps", "20"])
    stdout, err = capsys.readouterr()
    assert code == 0, err
    lines = stdout.splitlines()
    assert lines[0] == "ux-filter demo: Gordon-Salmond-Smith, 20 steps (seed 2026), η=16, refined, kernel likelihood"
    assert lines[1].startswith("  device     mps2-an500 in QEMU, firmware ") and lines[1].endswith(
        "last reset: power_on"
    )
    assert "(tolerance 1e-09): OK" in lines[3]
    assert lines[4].startswith("  accuracy   RMSE ")
    assert lines[5].startswith("  latency    virtual cycles (icount) per step (predict + update): median ")

    trace = uxemu.Trace.from_csv(out / "trace.csv")
    expected = uxemu.simulate_many(uxemu.systems.get("gss"), 1, 20, 2026)[0]
    assert list(trace.z) == list(expected.z)
    dump = load_dump(out / "dump.jsonl")
    assert len(dump) == 20 and dump.header.board == "mps2-an500"
    assert (out / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
