"""`uxhost flash`: put a firmware image on a board through a GDB server or a pyOCD probe, verified."""
from __future__ import annotations

from pathlib import Path

from ..qemu import boards
from .common import UserError, positive_float


def register(sub) -> None:
    parser = sub.add_parser(
        "flash", help="flash a firmware image through a GDB server or a pyOCD probe, and verify it",
        description="Load a firmware image onto a board and verify it. --gdb HOST:PORT works with any GDB "
                    "server: QEMU's (`uxhost qemu --gdb`), OpenOCD (3333), pyOCD gdbserver (3333), J-Link "
                    "GDB server (2331). The core starts from the image's own reset vector afterwards.")
    parser.add_argument("elf", type=Path, help="firmware image (ELF)")
    parser.add_argument("--gdb", metavar="HOST:PORT", required=True, help="the GDB server to load through")
    parser.add_argument("--board", choices=boards(),
                        help="refuse an image that was built for another board (read from the image)")
    parser.add_argument("--timeout", type=positive_float, default=30.0,
                        help="seconds the whole load may take (default: %(default)s)")
    parser.set_defaults(run=run)


def run(args) -> int:
    from ..elf import check_board
    from ..flash import flash_gdb

    if not args.elf.is_file():
        raise UserError(f"firmware image {args.elf} does not exist")
    if args.board:
        check_board(args.elf, args.board)
    print(flash_gdb(args.elf, args.gdb, args.timeout).line())
    return 0
