"""Boot a firmware image in QEMU and reach its UART through a pyserial URL.

The board's host UART becomes a TCP server on 127.0.0.1 at a free ephemeral port (``server=on,wait=on``:
the guest starts only when the host connects, so it cannot miss a byte). ``-icount shift=N`` ties the
guest's clock to executed instructions — each instruction takes 2^N ns of virtual time — so SysTick
counts are exactly reproducible: virtual cycles = instructions × 2^N ns × the machine's CPU clock
(25 MHz on the MPS2 images: 1.6 per instruction at N = 6).

What a machine needs comes from its boards/<board>/board.mk: QEMU_MACHINE (-M), QEMU_CPU_HZ (the clock
SysTick counts), QEMU_SERIAL_INDEX (which -serial the host UART is; 0 when absent) and QEMU_ONBOARD_NIC
(a network controller soldered to the board, which wants a peer; absent on boards without one).
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from .errors import InputError, ToolError

REPO_ROOT = Path(__file__).resolve().parents[2]
BOARDS_DIR = REPO_ROOT / "boards"
BUILD_DIR = REPO_ROOT / "build"
QEMU = "qemu-system-arm"
# 64 ns per instruction: 1.6 virtual cycles per instruction, so a single instruction is visible.
DEFAULT_ICOUNT_SHIFT = 6
DEFAULT_BOARD = "mps2-an500"  # the reference target: Cortex-M7 with a double-precision FPU
_READY = "waiting for connection"


class QemuError(ToolError):
    """QEMU is missing, or it did not start."""


def all_boards() -> list[str]:
    """Every board folder of boards/ (one with a board.mk), emulated or not — the Makefile's BOARDS, and
    what --board accepts on every verb: a board added as a folder is known everywhere at once."""
    return sorted(p.parent.name for p in BOARDS_DIR.glob("*/board.mk"))


def boards() -> list[str]:
    """Boards that run under QEMU: folders of boards/ whose board.mk names a QEMU machine."""
    return [board for board in all_boards() if emulated(board)]


def emulated(board: str) -> bool:
    """Whether QEMU runs `board`: its board.mk names a QEMU machine (a hardware board's does not)."""
    return _board_var(board, "QEMU_MACHINE") is not None


def require_emulated(board: str, instead: str) -> None:
    """Refuses, before any work, a board that QEMU cannot boot, as one line ending in `instead` (what to do
    rather: a verb that also takes --port says to use it). Without it a hardware board would fail later,
    inside QEMU's start, with a message about board.mk variables."""
    if board not in all_boards():
        raise InputError(f"no board {board!r} in {BOARDS_DIR} (boards: {', '.join(all_boards()) or 'none'})")
    if not emulated(board):
        raise InputError(f"{board} is a hardware board: QEMU does not emulate it; {instead}")


def board_var(board: str, name: str) -> str | None:
    """A one-word variable of boards/<board>/board.mk (QEMU_MACHINE, BOARD_MAX_ETA, …), None if unset."""
    return _board_var(board, name)


def _board_var(board: str, name: str) -> str | None:
    mk = BOARDS_DIR / board / "board.mk"
    if not mk.is_file():
        return None
    match = re.search(rf"^{name}\s*:?=\s*(\S+)\s*$", mk.read_text(), re.MULTILINE)
    return match.group(1) if match else None


def machine_of(board: str) -> str:
    """The QEMU machine (-M) that emulates `board`."""
    machine = _board_var(board, "QEMU_MACHINE")
    if machine is None:
        known = ", ".join(boards()) or "none"
        raise QemuError(f"board {board!r} has no QEMU machine (boards that do: {known})")
    return machine


def cpu_hz(board: str) -> int:
    """The clock SysTick counts on `board`'s QEMU machine (QEMU_CPU_HZ of its board.mk)."""
    value = _board_var(board, "QEMU_CPU_HZ")
    if value is None or not value.isdigit():
        raise QemuError(f"boards/{board}/board.mk gives no QEMU_CPU_HZ (the machine's CPU clock in Hz)")
    return int(value)


def serial_index(board: str) -> int:
    """Which of QEMU's -serial devices is `board`'s host UART (QEMU_SERIAL_INDEX, default 0)."""
    value = _board_var(board, "QEMU_SERIAL_INDEX") or "0"
    if not value.isdigit():
        raise QemuError(f"boards/{board}/board.mk: QEMU_SERIAL_INDEX must be a number, not {value!r}")
    return int(value)


def image_path(board: str, build_dir: Path | str | None = None) -> Path:
    """Where `make firmware` puts the image of `board`: build/<board>/firmware.elf."""
    return Path(build_dir or BUILD_DIR) / board / "firmware.elf"


def instructions_of(cycles: int, icount_shift: int = DEFAULT_ICOUNT_SHIFT, board: str = DEFAULT_BOARD) -> float:
    """Instructions executed in `cycles` virtual cycles (SysTick at the CPU clock of `board`'s machine
    under -icount shift=N)."""
    return cycles * (1e9 / cpu_hz(board)) / 2**icount_shift


def check_image(elf: Path) -> None:
    """Refuses what QEMU could not load. QEMU reads the image only once the host connects (wait=on),
    so a bad image would otherwise surface as a silent, closed link instead of an error here."""
    try:
        head = elf.read_bytes()[:52]
    except OSError as exc:
        raise QemuError(f"cannot read firmware image {elf}: {exc}") from exc
    problem = None
    if len(head) < 52 or head[:4] != b"\x7fELF":
        problem = "not an ELF file"
    elif head[4] != 1 or head[5] != 1:
        problem = "not a 32-bit little-endian ELF"
    else:
        e_type, e_machine = struct.unpack_from("<HH", head, 16)
        (e_phnum,) = struct.unpack_from("<H", head, 44)
        if e_machine != 40:
            problem = f"built for machine {e_machine}, not ARM"
        elif e_type != 2 or e_phnum == 0:
            problem = "not an executable with loadable segments"
    if problem:
        raise QemuError(f"{elf} is {problem}: build it with `make firmware`")


def _die_with_parent() -> None:
    """In the forked child before QEMU runs (Linux): SIGTERM it when the process that started it dies, even
    by SIGKILL, which leaves no chance to close it — an emulator must not outlive its host and keep a core
    busy. Elsewhere nothing (prctl is Linux's)."""
    if not sys.platform.startswith("linux"):
        return
    parent = os.getppid()
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class QemuInstance:
    """A running QEMU. ``url`` is what :meth:`uxhost.link.Device.open` takes."""

    board: str
    elf: Path | None  # None: booted paused with an empty flash, waiting for an image over GDB
    port: int
    icount_shift: int
    process: subprocess.Popen
    _stderr: object = field(repr=False)
    gdb_port: int | None = None

    @property
    def url(self) -> str:
        return f"socket://127.0.0.1:{self.port}"

    @property
    def gdb_address(self) -> str | None:
        """HOST:PORT of QEMU's GDB server (`uxhost flash --gdb` takes it), when booted paused."""
        return None if self.gdb_port is None else f"127.0.0.1:{self.gdb_port}"

    @property
    def args(self) -> list[str]:
        return list(self.process.args)

    def stderr(self) -> str:
        """What QEMU has written to stderr so far."""
        self._stderr.flush()
        return Path(self._stderr.name).read_text(errors="replace")

    def alive(self) -> bool:
        return self.process.poll() is None

    def check(self) -> None:
        """Raises QemuError, with what QEMU said, if it has exited (e.g. after a guest reset)."""
        code = self.process.poll()
        if code is not None:
            raise QemuError(f"QEMU ({self.board}) exited with code {code}: {self.stderr().strip() or 'no message'}")

    def close(self) -> None:
        """Stops QEMU and reaps it (no zombie), then removes its stderr log."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if not self._stderr.closed:
            self._stderr.close()
            Path(self._stderr.name).unlink(missing_ok=True)

    def __enter__(self) -> "QemuInstance":
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    def __del__(self) -> None:  # a forgotten instance must not leave QEMU running
        try:
            self.close()
        except Exception:
            pass


def _nic_args(qemu_binary: str, board: str) -> tuple[str, ...]:
    """A peer for the on-board Ethernet controller of a board that has one (QEMU_ONBOARD_NIC, e.g. the
    MPS2's lan9118), which the firmware never uses. Without one QEMU warns "nic lan9118.0 has no peer" at
    every start, and `-nic none` does not help: it removes default NICs only, not one soldered to the
    board. A board without a controller gets none: there QEMU would warn that the NIC was not created."""
    if _board_var(board, "QEMU_ONBOARD_NIC") is None:
        return ()
    return _user_nic_args(qemu_binary)


@functools.cache
def _user_nic_args(qemu_binary: str) -> tuple[str, ...]:
    """The user-mode backend with `restrict=on` and IPv4 only never sends a frame unasked and reaches
    nothing outside. It is optional when QEMU is built, so it is asked for only when this QEMU has it."""
    try:
        listing = subprocess.run(
            [qemu_binary, "-M", "none", "-netdev", "help"],
            capture_output=True,
            text=True,
            timeout=10,
            stdin=subprocess.DEVNULL,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    if "user" not in (line.strip() for line in listing.splitlines()):
        return ()
    return ("-nic", "user,restrict=on,ipv6=off")


def command(
    board: str,
    elf: Path | None,
    port: int,
    icount_shift: int | None = DEFAULT_ICOUNT_SHIFT,
    gdb_port: int | None = None,
    reboot: bool = False,
) -> list[str]:
    """The QEMU command line for `board` with its host UART on a TCP server at `port`. With `gdb_port`, a GDB
    server at that port; without `elf` as well: empty flash and the CPU halted at reset — the image arrives
    the way a probe's GDB server would deliver it (`uxhost flash --gdb`), and the guest starts when GDB lets
    it go. `reboot`: a guest reset (the watchdog's) reboots the board instead of ending QEMU."""
    paused = elf is None
    args = [
        QEMU,
        "-M",
        machine_of(board),
        "-nodefaults",
        "-display",
        "none",
        "-monitor",
        "none",
        # A guest that resets itself has failed: exit so that the host notices, instead of rebooting.
        *([] if reboot else ["-no-reboot"]),
        *_nic_args(QEMU, board),
        # Booting an image, QEMU holds the guest until the host connects (wait=on); a paused machine is
        # held by GDB instead, and its UART must not block QEMU's start.
        "-chardev",
        f"socket,id=link,host=127.0.0.1,port={port},server=on,wait={'off' if paused else 'on'}," "nodelay=on",
        # -serial devices attach in order: the UARTs before the host one get a null backend.
        *(["-serial", "null"] * serial_index(board)),
        "-serial",
        "chardev:link",
    ]
    args += ["-S"] if paused else ["-kernel", str(elf)]
    if gdb_port is not None:
        args += ["-gdb", f"tcp:127.0.0.1:{gdb_port}"]
    if icount_shift is not None:
        args += ["-icount", f"shift={icount_shift}"]
    return args


def boot(
    board: str,
    elf_path: Path | str | None = None,
    icount_shift: int | None = DEFAULT_ICOUNT_SHIFT,
    start_timeout: float = 10.0,
    gdb: bool = False,
    debug: bool = False,
    reboot: bool = False,
) -> QemuInstance:
    """Starts QEMU with the image of `board` (default: build/<board>/firmware.elf) and returns once its
    UART server listens. ``icount_shift=None`` runs without -icount (fast, cycle counts not exact).
    ``gdb=True`` boots with an empty flash, halted, with a GDB server (see `command`): no image needed.
    ``debug=True`` runs the image with a GDB server beside it; ``reboot=True`` lets a guest reset reboot
    the board (see `command`)."""
    if shutil.which(QEMU) is None:
        raise QemuError(
            f"{QEMU} not found: run `make deps` (Debian: apt-get install --no-install-recommends " f"qemu-system-arm)"
        )
    machine_of(board)
    elf = None
    if not gdb:
        elf = Path(elf_path) if elf_path is not None else image_path(board)
        if not elf.is_file():
            raise QemuError(f"no firmware image for {board} at {elf}: run `make firmware`")
        check_image(elf)

    last_error = ""
    for _ in range(5):  # another process may take a port between choosing it and QEMU binding it
        port = _free_port()
        gdb_port = _free_port() if gdb or debug else None
        log = tempfile.NamedTemporaryFile(prefix=f"qemu-{board}-", suffix=".log", delete=False)
        process = subprocess.Popen(
            command(board, elf, port, icount_shift, gdb_port, reboot),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=log,
            preexec_fn=_die_with_parent,
        )
        instance = QemuInstance(board, elf, port, icount_shift, process, log, gdb_port)
        deadline = time.monotonic() + start_timeout
        while time.monotonic() < deadline:
            if _listening(port) if gdb else _READY in instance.stderr():
                return instance
            if process.poll() is not None:
                break
            time.sleep(0.01)
        last_error = instance.stderr().strip()
        exited = process.poll()
        instance.close()
        if exited is None:
            raise QemuError(f"QEMU ({board}) did not open its UART server within {start_timeout:g} s: {last_error}")
        if "Address already in use" not in last_error:
            break
    raise QemuError(f"QEMU ({board}) failed to start: {last_error or 'no message'}")


def _listening(port: int) -> bool:
    """Whether a TCP server accepts on 127.0.0.1:port (QEMU's UART once it is up; probing it is harmless,
    unlike probing the GDB server, where a closed connection would let the halted CPU run)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


def find_firmware(board: str, elf: Path | None = None, build_dirs=None) -> Path:
    """The firmware image to boot: --elf as given, else <build>/<board>/firmware.elf from the first of
    `build_dirs` that has it (default: ./build, then the build folder of the checkout uxhost runs from)."""
    if elf is not None:
        if not elf.is_file():
            raise InputError(f"firmware image {elf} does not exist")
        return elf
    dirs = [Path.cwd() / "build", BUILD_DIR] if build_dirs is None else [Path(d) for d in build_dirs]
    for build in dirs:
        candidate = build / board / "firmware.elf"
        if candidate.is_file():
            return candidate
    raise ToolError(
        f"no firmware image for {board} (build/{board}/firmware.elf not found): "
        f"run `make firmware` first, or pass --elf"
    )


def qemu_end(code: int, stderr: str) -> str:
    """'was killed by SIGKILL' or 'exited with code N: <its last error line>'."""
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    # QEMU warns about unused devices on every start; an error line is what tells why it stopped.
    said = [line for line in stderr.strip().splitlines() if "warning:" not in line]
    return f"exited with code {code}" + (f": {said[-1]}" if said else "")
