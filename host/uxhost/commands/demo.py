"""`uxhost demo`: simulate, stream to QEMU, validate and plot in one go (what `make demo` runs)."""

from __future__ import annotations

from pathlib import Path

from ..qemu import DEFAULT_BOARD, all_boards, boards
from .common import positive_int


def register(sub) -> None:
    from ..demo import SEED, STEPS

    parser = sub.add_parser(
        "demo",
        help="simulate a GSS trace, filter it on the firmware in QEMU, validate and plot",
        description="Simulate a seeded Gordon-Salmond-Smith trace, boot the firmware in QEMU, stream the trace, "
        "validate every posterior against the Python reference and write OUT/trace.csv, "
        "OUT/dump.jsonl and OUT/plot.png. Needs the firmware image (`make firmware`). "
        "Exit code 0 when the device agrees with the reference, 1 when it does not.",
    )
    parser.add_argument("--out", type=Path, default=Path("out/demo"), help="output folder (default: %(default)s)")
    parser.add_argument(
        "--board",
        choices=all_boards(),
        default=DEFAULT_BOARD,
        help=f"the board to emulate, one QEMU runs: {', '.join(boards())} (default: %(default)s)",
    )
    parser.add_argument("--elf", type=Path, help="firmware image (default: build/BOARD/firmware.elf)")
    parser.add_argument("--steps", type=positive_int, default=STEPS, help="trace length (default: %(default)s)")
    parser.add_argument("--seed", type=int, default=SEED, help="trace seed (default: %(default)s)")
    parser.add_argument(
        "--eta", type=int, choices=(1, 2, 4, 8, 16, 32, 64), default=16, help="atoms per value (default: %(default)s)"
    )
    parser.set_defaults(run=run)


def run(args) -> int:
    from ..demo import run_demo
    from ..qemu import require_emulated

    require_emulated(
        args.board, f"pick a board QEMU runs ({', '.join(boards())}), or follow docs/hardware.md " "for this one"
    )
    result, config = run_demo(args.out, board=args.board, elf=args.elf, steps=args.steps, seed=args.seed, eta=args.eta)
    for line in result.lines(config, args.seed):
        print(line)
    return 0 if result.ok else 1
