"""The stack's high-water mark of each emulated board's firmware, measured in QEMU, beside its static bound.

QEMU's RAM starts zeroed and the firmware never clears its stack, so after a workload the lowest
non-zero word of the `.stack` section (read from the image) marks the deepest the stack has been. The
workload is every system of the image, in both modes and with both likelihoods (a joint system: the
kernel likelihood, at each η its answer fits), a short trace at each η asked for. The image is loaded through QEMU's GDB server (`uxhost flash --gdb`), which also reads the
memory afterwards. The static worst case is firmware/tools/stack_bound.py's, from the image and the
`.su` files beside its objects; the measurement can only be below it.

    .venv/bin/python -m uxbench stack_highwater                          # every emulated board, η = 8, 32
    .venv/bin/python -m uxbench stack_highwater --boards microbit --etas 2,4,8
"""

from __future__ import annotations

import importlib.util
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np

from uxemu import systems, traces
from uxhost import elf as elf_info
from uxhost import joint, link, qemu
from uxhost.streaming import send_configure

from .firmware_costs import LIKELIHOODS, MODES, measure  # the cost run's configure-and-stream, run beside this

STEPS = 6


def stack_bound_module():
    """firmware/tools/stack_bound.py, the build's own analyser (a script, not a package)."""
    path = qemu.REPO_ROOT / "firmware" / "tools" / "stack_bound.py"
    spec = importlib.util.spec_from_file_location("stack_bound", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def static_bound(image: Path):
    """The static worst case of `image` (a stack_bound.Bound), from the .su files of its build's objects."""
    sb = stack_bound_module()
    return sb.bound(image, [image.parent / "obj"], "arm-none-eabi-objdump")


def workload(device: link.Device, board: str, etas: list[int], largest: int) -> None:
    """Every system, mode and likelihood at every η the image holds: STEPS steps of one trace each."""
    for spec in device.systems().values():
        if isinstance(spec, joint.DeviceJointSpec):
            joint_workload(device, spec, joint_etas(spec.dim, etas, largest))
            continue
        tr = traces.simulate(systems.get(spec.name), STEPS, np.random.default_rng(1))
        for eta in (e for e in etas if e <= largest):
            for mode in MODES:
                for lik in LIKELIHOODS:
                    measure(device, board, spec.id, eta, mode, lik, tr, STEPS)


def joint_etas(dim: int, etas: list[int], largest: int) -> list[int]:
    """The η of `etas` a joint system of `dim` components runs at on an image holding η ≤ `largest`: those
    whose answer fits a frame (joint.posterior_fits; the firmware refuses the others' CONFIGURE)."""
    return [e for e in etas if e <= largest and joint.posterior_fits(dim, e)]


def joint_workload(device: link.Device, spec, etas: list[int]) -> None:
    """A joint system in both modes at every η of `etas`: STEPS steps of one trace each."""
    trace = joint.simulate(spec, spec.defaults, STEPS, seed=1)
    for eta in etas:
        for mode in MODES.values():
            cfg = joint.resolve(spec, eta=eta, mode=mode)
            device.reset()
            send_configure(device, cfg)  # a joint system's: the kernel likelihood
            for i in range(STEPS):
                device.step(int(trace.k[i]), i > 0, 0.0, trace.observation(i), dim_obs=cfg.dim_obs)


def high_water(board: str, etas: list[int], image: Path | None = None) -> tuple[int, int]:
    """(bytes of stack used at most, bytes reserved) on `board` after the workload, running `image` (default
    the board's image under build/)."""
    image = image or qemu.image_path(board)
    stack = elf_info.section(image, ".stack")
    if stack is None:
        sys.exit(f"{image} has no .stack section: this tool reads the stack the linker script reserves")
    base, size = stack
    with qemu.boot(board, gdb=True) as instance:
        subprocess.run(
            [sys.executable, "-m", "uxhost", "flash", "--board", board, "--gdb", instance.gdb_address, str(image)],
            check=True,
            capture_output=True,
        )
        with link.Device.open(instance.url, timeout=600) as device:
            info = device.hello(timeout=link.BOOT_HELLO_TIMEOUT)
            workload(device, board, etas, info.max_eta)
        # The vector table first: what GDB reads must be this image, running (its first word is the stack's
        # top, which only this image's reservation gives).
        vectors = stack_bound_module().read_elf(image).sections[".vectors"]
        out = subprocess.run(
            [
                "gdb-multiarch",
                "-batch",
                "-ex",
                f"target remote {instance.gdb_address}",
                "-ex",
                f"x/4xw {vectors[0]:#x}",
                "-ex",
                f"x/{size // 4}xw {base:#x}",
                str(image),
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    words = [
        int(w, 16)
        for line in out.splitlines()
        if line.startswith("0x") and ":" in line
        for w in line.split(":", 1)[1].split()
    ]
    if len(words) != 4 + size // 4:
        sys.exit(f"read {len(words)} words from GDB, expected {4 + size // 4}:\n{out}")
    if words[:4] != list(struct.unpack("<4I", vectors[3][:16])):
        sys.exit(f"GDB at {instance.gdb_address} reads a vector table that is not {image}'s: {out[:300]}")
    words = words[4:]
    first = next((i for i, w in enumerate(words) if w != 0), len(words))
    if first == len(words):
        sys.exit(f"{board}: the stack of {image} reads all zero after the workload: it never ran there")
    return size - 4 * first, size


def arguments(ap) -> None:
    ap.add_argument("--boards", default=",".join(qemu.boards()), help="comma-separated emulated boards")
    ap.add_argument("--etas", default="8,32", help="η of the workload (those above an image's largest are skipped)")


def run(args) -> list[dict]:
    etas = sorted(int(e) for e in args.etas.split(","))
    marks = []
    for board in args.boards.split(","):
        used, size = high_water(board, etas)
        marks.append(dict(board=board, etas=etas, used=used, reserved=size, bound=static_bound(qemu.image_path(board))))
    return marks


def report(marks: list[dict], args) -> None:
    for m in marks:
        bound = m["bound"]
        print(
            f"{m['board']} (η ≤ {max(m['etas'])}): stack high-water mark {m['used']:,} B, static worst case "
            f"{bound.total:,} B (measured/static {m['used'] / bound.total:.3f}), reserved {m['reserved']:,} B; "
            f"deepest path: {bound.path_text()}",
            flush=True,
        )
