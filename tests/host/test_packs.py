"""Probe targets and CMSIS packs, as far as they go without hardware: pyOCD's built-in targets, a local
.pdsc parsed offline by cmsis-pack-manager, and the errors of a flash with no probe or a wrong target."""
import pytest

from uxhost import qemu
from uxhost.cli import main
from uxhost.errors import UserError
from uxhost.packs import add_pack, check_target, devices

pytest.importorskip("pyocd")
DATA = qemu.REPO_ROOT / "tests" / "host" / "data"


def test_the_reference_targets_are_built_into_pyocd():
    assert check_target("stm32f767zi") == "stm32f767zi"  # Nucleo-F767ZI, the reference real board
    assert check_target("STM32F429XI") == "stm32f429xi"


def test_a_mistyped_target_gets_the_closest_names():
    with pytest.raises(UserError, match="no target 'stm32f767z'; did you mean stm32f767zi"):
        check_target("stm32f767z")


def test_a_local_pdsc_is_parsed_offline_into_board_flags(tmp_path, capsys):
    found = add_pack(DATA / "Acme.DemoM7_DFP.pdsc", tmp_path)
    assert [d.name for d in found] == ["DEMO767"]
    demo = found[0]
    assert (demo.core, demo.fpu, demo.flash, demo.ram) == ("CortexM7", "DoublePrecision", 2 << 20, 512 << 10)
    assert demo.algorithms == ("Flash/DEMO767_2M.FLM",)
    assert demo.build() == ("double", "-mthumb -mcpu=cortex-m7 -mfpu=fpv5-d16 -mfloat-abi=hard")
    assert set(devices(tmp_path)) == {"DEMO767"}  # kept in the store's index
    assert main(["packs", "list", "--store", str(tmp_path)]) == 0
    assert "BOARD_CPU := -mthumb -mcpu=cortex-m7" in capsys.readouterr().out


def test_a_file_that_is_not_a_pack_is_a_one_line_error(tmp_path, capsys):
    bad = tmp_path / "Acme.Broken_DFP.pdsc"
    bad.write_text("<package><devices><device Dname='X'>")
    code = main(["packs", "add", str(bad), "--store", str(tmp_path / "store")])
    assert code == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1


def test_flash_with_no_probe_attached_says_so(capsys):
    elf = qemu.image_path("mps2-an500")
    if not elf.is_file():
        pytest.skip("no firmware image (make firmware)")
    code = main(["flash", str(elf), "--probe", "pyocd", "--target", "stm32f767zi"])
    err = capsys.readouterr().err
    assert code == 2
    assert "no debug probe is connected (pyOCD sees none)" in err


def test_flash_with_a_probe_needs_a_target(capsys):
    elf = qemu.image_path("mps2-an500")
    assert main(["flash", str(elf), "--probe", "pyocd"]) == 2
    assert "--probe pyocd needs --target" in capsys.readouterr().err
