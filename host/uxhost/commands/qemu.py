"""`uxhost qemu`: boot a firmware image in QEMU and serve its UART at a pyserial URL until Ctrl-C."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from ..qemu import DEFAULT_BOARD, all_boards, boards, find_firmware, qemu_end, require_emulated
from .common import ToolError


def register(sub) -> None:
    from ..qemu import DEFAULT_ICOUNT_SHIFT

    parser = sub.add_parser(
        "qemu",
        help="boot the firmware in QEMU and print its pyserial URL",
        description="Boot a firmware image in QEMU with its UART on a free local TCP port, "
        "print the pyserial URL (socket://127.0.0.1:PORT) on stdout and keep "
        "running until Ctrl-C. The guest starts when the first host connects.",
    )
    parser.add_argument(
        "--board",
        choices=all_boards(),
        default=DEFAULT_BOARD,
        help=f"the board to emulate, one QEMU runs: {', '.join(boards())} (boards/<board>/"
        "board.mk says what each is; default: %(default)s)",
    )
    parser.add_argument("--elf", type=Path, help="firmware image (default: build/BOARD/firmware.elf)")
    parser.add_argument(
        "--gdb",
        action="store_true",
        help="boot with an empty flash, halted, and a GDB server: print its HOST:PORT on a second "
        "line, then load an image with `uxhost flash --gdb HOST:PORT` as through a probe",
    )
    parser.add_argument(
        "--icount-shift",
        type=int,
        default=DEFAULT_ICOUNT_SHIFT,
        metavar="N",
        help="QEMU -icount shift: each instruction takes 2^N ns of virtual time, which makes "
        "cycle counts exactly reproducible (default: %(default)s)",
    )
    parser.set_defaults(run=run)


def run(args) -> int:
    from .. import qemu

    from ..elf import check_board

    # A hardware board has no emulator to boot, but `flash` reaches it; --gdb here is QEMU's own server.
    require_emulated(
        args.board,
        f"flash it with `uxhost flash --probe` or a probe's GDB server; QEMU boards: " f"{', '.join(boards())}",
    )
    image = None
    if not args.gdb:
        image = find_firmware(args.board, args.elf)
        check_board(image, args.board)
    with qemu.boot(args.board, image, icount_shift=args.icount_shift, gdb=args.gdb) as instance:
        print(instance.url, flush=True)
        if args.gdb:
            print(instance.gdb_address, flush=True)
            what = f"halted with an empty flash, GDB server at {instance.gdb_address}"
        else:
            what = f"running {image}"
        print(f"QEMU {args.board} {what} (pid {instance.process.pid}); Ctrl-C stops it", file=sys.stderr)
        try:
            while instance.alive():
                time.sleep(0.2)
        except KeyboardInterrupt:
            print("stopping QEMU", file=sys.stderr)
            return 0
        raise ToolError(f"QEMU ({args.board}) {qemu_end(instance.process.returncode, instance.stderr())}")
