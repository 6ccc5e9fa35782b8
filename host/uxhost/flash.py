"""Putting a firmware image on a board, and checking it got there.

- Through any GDB server (`flash_gdb`): QEMU's gdbstub in CI, OpenOCD, pyOCD's gdbserver or J-Link's on
  hardware. gdb-multiarch loads the image, compares every section with the target's memory, points SP and
  PC at the image's own reset values (read from its vector table, so no server-specific reset command is
  needed) and detaches, which lets the core run.
- Through a pyOCD probe (`flash_pyocd`): the target's flash algorithm from pyOCD's built-in targets or a
  CMSIS pack; pyOCD verifies what it programs.

Every failure is an InputError or a ToolError that says what to do; nothing here waits for hardware longer than its timeout.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from .elf import vector_table_address
from .errors import InputError, ToolError

GDB = "gdb-multiarch"


@dataclass(frozen=True)
class FlashResult:
    image: Path
    via: str  # "GDB server 127.0.0.1:3333", "pyOCD probe 0669FF…"
    sections: tuple[str, ...]  # the sections verified after loading
    load_bytes: int
    seconds: float

    def line(self) -> str:
        return (
            f"flashed {self.image} ({self.load_bytes} bytes) through {self.via} in {self.seconds:.1f} s; "
            f"verified {', '.join(self.sections)}"
        )


def _gdb_commands(address: str, vectors: int) -> list[str]:
    return [
        "set confirm off",
        "set pagination off",
        "set remotetimeout 5",
        "set tcp auto-retry off",
        "set tcp connect-timeout 5",  # a missing server fails now, not after 15 s
        f"target extended-remote {address}",
        "load",
        "compare-sections",
        f"set $sp = *(unsigned int *){vectors:#x}",
        f"set $pc = *(unsigned int *){vectors + 4:#x}",
        "detach",
    ]


def flash_gdb(elf: Path, address: str, timeout: float = 30.0) -> FlashResult:
    """Loads `elf` through the GDB server at HOST:PORT, verifies it, and starts it."""
    if shutil.which(GDB) is None:
        raise ToolError(f"{GDB} not found: run `make deps` (Debian: apt-get install --no-install-recommends {GDB})")
    if not re.fullmatch(r"[^:\s]+:\d+", address):
        raise InputError(f"--gdb {address!r}: expected HOST:PORT, e.g. 127.0.0.1:3333")
    args = [GDB, "-q", "-nx", "-batch"]
    for cmd in _gdb_commands(address, vector_table_address(elf)):
        args += ["-ex", cmd]
    start = time.monotonic()
    try:
        res = subprocess.run(
            args + [str(elf)], capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
        )
    except subprocess.TimeoutExpired:
        raise ToolError(f"the GDB server at {address} did not finish loading {elf} within {timeout:g} s") from None
    out = res.stdout + res.stderr
    verified = re.findall(r"Section (\S+), range .*: matched\.", out)
    mismatched = re.findall(r"Section (\S+), range .*: MIS-MATCHED!", out)
    loaded = re.search(r"load size (\d+)", out)
    if loaded is None:
        reason = _first_error(out) or f"{GDB} exited with code {res.returncode}"
        raise ToolError(f"could not load {elf} through the GDB server at {address}: {reason}")
    if mismatched or not verified:
        raise ToolError(
            f"{elf} was loaded through {address} but memory does not match it "
            f"({', '.join(mismatched) or 'no section compared'}): is the flash write-protected?"
        )
    if "detached" not in out:
        raise ToolError(
            f"{elf} was loaded and verified through {address}, but the core could not be started: "
            f"{_first_error(out) or 'no message'}"
        )
    return FlashResult(elf, f"GDB server {address}", tuple(verified), int(loaded.group(1)), time.monotonic() - start)


def _first_error(text: str) -> str | None:
    for line in text.splitlines():
        if re.search(r"(error|refused|timed out|not responding|Cannot|No such|failed)", line, re.I):
            return line.strip()
    return None


def flash_pyocd(elf: Path, target: str, pack: Path | None = None, probe: str | None = None) -> FlashResult:
    """Programs `elf` through a debug probe with pyOCD (which verifies what it writes) and resets the
    core. `target` is a pyOCD target name, built in or from `pack`; `probe` a probe's unique id."""
    from pyocd.core.helpers import ConnectHelper
    from pyocd.flash.file_programmer import FileProgrammer

    from .packs import check_target

    if pack is None:
        target = check_target(target)
    elif not Path(pack).is_file():
        raise InputError(f"CMSIS pack {pack} does not exist")
    probes = ConnectHelper.get_all_connected_probes(blocking=False, unique_id=probe)
    if not probes:
        which = f"with id {probe} " if probe else ""
        raise ToolError(
            f"no debug probe {which}is connected (pyOCD sees none): plug in the board's USB, check "
            "its udev rules, or flash through a GDB server with --gdb"
        )
    options = {"pack": str(pack)} if pack else {}
    start = time.monotonic()
    with ConnectHelper.session_with_chosen_probe(
        unique_id=probes[0].unique_id, target_override=target, blocking=False, options=options
    ) as session:
        FileProgrammer(session).program(str(elf), file_format="elf")
        session.target.reset()
    return FlashResult(
        elf,
        f"pyOCD probe {probes[0].unique_id} ({target})",
        ("flash (pyOCD verify)",),
        Path(elf).stat().st_size,
        time.monotonic() - start,
    )
