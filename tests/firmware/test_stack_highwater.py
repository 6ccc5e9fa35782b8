"""benchmarks/stack_highwater.py on microbit, the board with the least room (16 KiB of RAM): after every
system, mode and likelihood the stack has been used, and stayed inside the reservation its linker script
makes — the one a real nRF51 would fault below."""
import importlib.util
import shutil

import pytest

from uxhost import elf, qemu

pytestmark = pytest.mark.qemu


def test_microbit_stack_stays_inside_its_reservation():
    if shutil.which("gdb-multiarch") is None:
        pytest.skip("gdb-multiarch is missing (make deps)")
    image = qemu.image_path("microbit")
    if not image.is_file():
        pytest.skip(f"no image at {image} (make firmware)")
    spec = importlib.util.spec_from_file_location("stack_highwater",
                                                  qemu.REPO_ROOT / "benchmarks" / "stack_highwater.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    used, size = tool.high_water("microbit", [8])
    assert size == elf.section(image, ".stack")[1] == 3584
    assert 1024 < used < size  # TTR, BayesLaplace and the link's handlers are on it, and it did not overflow
