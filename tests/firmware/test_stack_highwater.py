"""benchmarks/stack_highwater.py on microbit, the board with the least room (16 KiB of RAM): after every
system, mode and likelihood the stack has been used, and stayed inside the reservation its linker script
makes — the one a real nRF51 would fault below."""
import re
import shutil
import subprocess
import sys

import pytest

from uxhost import elf, qemu

pytestmark = pytest.mark.qemu


def test_microbit_stack_stays_inside_its_reservation():
    if shutil.which("gdb-multiarch") is None:
        pytest.skip("gdb-multiarch is missing (make deps)")
    image = qemu.image_path("microbit")
    if not image.is_file():
        pytest.skip(f"no image at {image} (make firmware)")
    proc = subprocess.run([sys.executable, str(qemu.REPO_ROOT / "benchmarks" / "stack_highwater.py"),
                           "--boards", "microbit", "--etas", "8"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    match = re.fullmatch(r"microbit: stack high-water mark ([\d,]+) B of ([\d,]+) B reserved \(η ≤ 8\)\n",
                         proc.stdout)
    assert match, proc.stdout
    used, size = (int(g.replace(",", "")) for g in match.groups())
    assert size == elf.section(image, ".stack")[1] == 3392
    assert 1024 < used < size  # TTR, BayesLaplace and the link's handlers are on it, and it did not overflow
