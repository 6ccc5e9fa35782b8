"""`python -m uxbench stack_highwater` on every emulated board: after every system, mode and likelihood the stack
has been used, never deeper than the static worst case firmware/tools/stack_bound.py computes for the image,
and the reservation the build made is that worst case (rounded up to 8 B) — the one a real part would
fault below."""

import re
import shutil
import subprocess
import sys

import pytest
from uxhost import elf, qemu

pytestmark = pytest.mark.qemu

LINE = re.compile(
    r"(\S+) \(η ≤ 8\): stack high-water mark ([\d,]+) B, static worst case ([\d,]+) B "
    r"\(measured/static ([\d.]+)\), reserved ([\d,]+) B; deepest path: Reset_Handler → main → (.*)\n"
)


@pytest.mark.parametrize("board", qemu.boards())
def test_stack_stays_below_its_static_bound(board):
    if shutil.which("gdb-multiarch") is None:
        pytest.skip("gdb-multiarch is missing (make deps)")
    image = qemu.image_path(board)
    if not image.is_file():
        pytest.skip(f"no image at {image} (make firmware)")
    proc = subprocess.run(
        [sys.executable, "-m", "uxbench", "stack_highwater", "--boards", board, "--etas", "8"],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    match = LINE.fullmatch(proc.stdout)
    assert match and match.group(1) == board, proc.stdout
    used, static, reserved = (int(match.group(i).replace(",", "")) for i in (2, 3, 5))
    assert reserved == elf.section(image, ".stack")[1] == -(-static // 8) * 8
    assert 1024 < used <= static  # TTR, BayesLaplace and the link's handlers are on it, and the bound holds
    assert float(match.group(4)) == pytest.approx(used / static, abs=1e-3)
    # The deepest path on every board, joint systems served or not: the sort-free TTR's per-cell sums under
    # a scalar update (the joint filter's set-up quantizes its laws into the workspace, not the stack).
    assert "ux_filter_update" in match.group(6) and "ux_ttr" in match.group(6)


def test_a_joint_system_runs_where_its_answer_fits_a_frame():
    """bearings (d = 4) at η = 32 would not fit a POSTERIOR in a frame, and the firmware refuses it; the
    workload leaves it out there, as firmware_costs does, and keeps every η a 2-D or 3-D state has."""
    from uxbench import stack_highwater

    etas = [2, 4, 8, 16, 32, 64]
    assert stack_highwater.joint_etas(4, etas, 64) == [2, 4, 8, 16]
    assert stack_highwater.joint_etas(3, etas, 64) == stack_highwater.joint_etas(2, etas, 64) == [2, 4, 8, 16, 32]
    assert stack_highwater.joint_etas(2, etas, 8) == [2, 4, 8]
