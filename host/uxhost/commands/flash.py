"""`uxhost flash`: put a firmware image on a board through a GDB server or a pyOCD probe, verified."""

from __future__ import annotations

from pathlib import Path

from ..qemu import all_boards
from .common import InputError, positive_float


def register(sub) -> None:
    parser = sub.add_parser(
        "flash",
        help="flash a firmware image through a GDB server or a pyOCD probe, and verify it",
        description="Load a firmware image onto a board and verify it. --gdb HOST:PORT works with any GDB "
        "server: QEMU's (`uxhost qemu --gdb`), OpenOCD (3333), pyOCD gdbserver (3333), J-Link "
        "GDB server (2331); the core starts from the image's own reset vector afterwards. "
        "--probe pyocd programs through a debug probe directly.",
    )
    parser.add_argument("elf", type=Path, help="firmware image (ELF)")
    how = parser.add_mutually_exclusive_group(required=True)
    how.add_argument("--gdb", metavar="HOST:PORT", help="the GDB server to load through")
    how.add_argument("--probe", choices=("pyocd",), help="program through a debug probe with pyOCD")
    parser.add_argument("--target", help="with --probe: the pyOCD target, e.g. stm32f767zi (`uxhost packs targets`)")
    parser.add_argument("--pack", type=Path, help="with --probe: a CMSIS .pack for a target pyOCD does not build in")
    parser.add_argument("--probe-id", help="with --probe: the unique id of the probe to use (default: the only one)")
    parser.add_argument(
        "--board",
        choices=all_boards(),
        help="refuse an image that was built for another board (read from the image); any board "
        "folder of boards/, emulated or hardware",
    )
    parser.add_argument(
        "--timeout", type=positive_float, default=30.0, help="seconds the whole load may take (default: %(default)s)"
    )
    parser.set_defaults(run=run)


def run(args) -> int:
    from ..elf import check_board
    from ..flash import flash_gdb, flash_pyocd

    if not args.elf.is_file():
        raise InputError(f"firmware image {args.elf} does not exist")
    if args.board:
        check_board(args.elf, args.board)
    if args.gdb:
        result = flash_gdb(args.elf, args.gdb, args.timeout)
    else:
        if not args.target:
            raise InputError("--probe pyocd needs --target (e.g. stm32f767zi; `uxhost packs targets` lists them)")
        result = flash_pyocd(args.elf, args.target, args.pack, args.probe_id)
    print(result.line())
    return 0
