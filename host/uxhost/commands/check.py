"""`uxhost check`: the first thing to run on a board — flash it (optionally), read INFO, check the board and
the versions, stream and validate a standard trace of every system, and write a Markdown report."""

from __future__ import annotations

import contextlib
import os
import shlex
import sys
from pathlib import Path

from .common import InputError, add_force_argument, add_link_arguments, positive_int


def register(sub) -> None:
    from ..check import ETA, STEPS
    from ..config import etas
    from ..qemu import all_boards, boards

    parser = sub.add_parser(
        "check",
        help="check a board end to end and write a Markdown report: INFO, versions, every system "
        "streamed and validated, cycles per step",
        description="Check a board end to end: optionally flash an image (verified), read INFO, check that the "
        "device is the board asked for and was built from this host's C core and protocol, stream "
        "a standard trace of every system the firmware has, validate each against the reference, "
        "and report cycles (and, where the clock is known, µs) per step, the reset cause and the "
        "stack high-water mark, as a Markdown report to post with a question or a bug. Without "
        "--port the board is booted in QEMU. Exit code 0 when the check passes, 1 when it fails, "
        "2 when it could not run.",
    )
    parser.add_argument(
        "--board",
        required=True,
        choices=all_boards(),
        help="the board to check, any folder of boards/; the device must report it in INFO. QEMU "
        f"boards ({', '.join(boards())}) are booted when --port is not given",
    )
    parser.add_argument(
        "--port",
        metavar="URL",
        help="pyserial URL of the board's serial port: /dev/ttyACM0, socket://127.0.0.1:PORT, … "
        "(`uxhost ports` lists them); required for a hardware board",
    )
    parser.add_argument(
        "--elf", type=Path, help="without --port: the image QEMU boots (default: build/BOARD/firmware.elf)"
    )
    flash = parser.add_argument_group("flashing first (optional)")
    flash.add_argument(
        "--flash",
        type=Path,
        metavar="IMAGE",
        help="load this image first and verify it (refused if it was built for another board): "
        "with --port through --gdb or --probe; without --port QEMU boots with an empty flash "
        "and the image is loaded through QEMU's own GDB server, as through a probe's",
    )
    how = flash.add_mutually_exclusive_group()
    how.add_argument("--gdb", metavar="HOST:PORT", help="with --flash and --port: the probe's GDB server")
    how.add_argument("--probe", choices=("pyocd",), help="with --flash and --port: program through a pyOCD probe")
    flash.add_argument("--target", help="with --probe: the pyOCD target, e.g. stm32f767zi")
    flash.add_argument("--pack", type=Path, help="with --probe: a CMSIS .pack for a target pyOCD does not build in")
    flash.add_argument("--probe-id", help="with --probe: the unique id of the probe to use (default: the only one)")
    parser.add_argument(
        "--steps", type=positive_int, default=STEPS, help="steps of each system's standard trace (default: %(default)s)"
    )
    parser.add_argument(
        "--eta",
        type=int,
        choices=etas(),
        default=ETA,
        help="atoms per value, lowered to the firmware's largest (default: %(default)s)",
    )
    parser.add_argument("-o", "--output", type=Path, help="write the report to this file (default: stdout)")
    parser.add_argument(
        "--dumps",
        type=Path,
        metavar="DIR",
        help="keep each system's dump as DIR/SYSTEM.jsonl (`uxhost validate` and `plot` read them), "
        "in an existing folder (default: the dumps are deleted)",
    )
    add_force_argument(parser, "the -o report and the dumps already in --dumps DIR")
    add_link_arguments(parser, "the check fails")
    parser.set_defaults(run=run)


def run(args) -> int:
    import tempfile

    from ..check import run_check

    image = _check_arguments(args)
    with contextlib.ExitStack() as stack:
        workdir = args.dumps or Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="uxhost-check-")))
        device, qemu, reached, flashed = stack.enter_context(_reach(args, image))
        report = run_check(
            device,
            args.board,
            reached,
            command_of(args),
            workdir,
            qemu=qemu,
            flashed=flashed,
            steps=args.steps,
            eta=args.eta,
            log=lambda line: print(line, file=sys.stderr),
            keep=args.dumps is not None,
        )
    text = report.markdown()
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text)
        print(f"{report.summary()}; report written to {args.output}")
    return 0 if report.passed else 1


def _check_output(args) -> None:
    """--output: a file it may write (or replace with --force) in a writable folder."""
    from ..outputs import check_output

    check_output(args.output, args.force)
    folder = args.output.parent
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"{args.output}: the folder {folder} is not writable")


def _check_dumps(args) -> None:
    """--dumps: an existing, writable folder without dumps, unless --force."""
    if not args.dumps.is_dir():
        why = "is not a folder" if args.dumps.exists() else "does not exist"
        raise InputError(f"--dumps {args.dumps} {why} (no folder is created)")
    if not os.access(args.dumps, os.W_OK | os.X_OK):
        raise InputError(f"--dumps {args.dumps}: the folder is not writable")
    there = sorted(p.name for p in args.dumps.glob("*.jsonl"))
    if there and not args.force:
        raise InputError(
            f"--dumps {args.dumps} holds dumps already ({', '.join(there[:3])}"
            f"{', …' if len(there) > 3 else ''}); pass --force to replace them"
        )


def _check_reach(args) -> None:
    """How the board is reached: --port for hardware, --elf only for QEMU, --gdb/--probe (and the probe's own
    options) only to flash a board at --port, and each of them with an image."""
    if args.port is not None and args.elf is not None:
        raise InputError("--elf is the image QEMU boots; with --port, pass --flash IMAGE to load one")
    if args.port is None and (args.gdb or args.probe):
        raise InputError(
            f"--{'gdb' if args.gdb else 'probe'} flashes a board at --port; without --port, --flash "
            "loads the image through QEMU's own GDB server"
        )
    stray = [
        f"--{name.replace('_', '-')}" for name in ("target", "pack", "probe_id") if getattr(args, name) is not None
    ]
    if stray and not args.probe:
        raise InputError(f"{', '.join(stray)}: only with --probe pyocd (flashing through a probe)")
    if (args.gdb or args.probe) and args.flash is None:
        raise InputError(f"--{'gdb' if args.gdb else 'probe'}: which image? pass --flash IMAGE")


def _check_flash(args) -> Path:
    """--flash IMAGE: an existing image of the board, with a way to load it; returns it."""
    from ..elf import check_board

    if args.elf is not None:
        raise InputError("--flash IMAGE is the image that runs: drop --elf")
    if not args.flash.is_file():
        raise InputError(f"firmware image {args.flash} does not exist")
    if args.port is not None and not (args.gdb or args.probe):
        raise InputError(
            "--flash with --port: how? pass --gdb HOST:PORT (a probe's GDB server) or --probe pyocd " "--target TARGET"
        )
    if args.probe and not args.target:
        raise InputError("--probe pyocd needs --target (e.g. stm32f767zi; `uxhost packs targets` lists them)")
    check_board(args.flash, args.board)
    return args.flash


def _check_arguments(args) -> Path | None:
    """Everything that can be refused before a device is touched, each as one line; the image to load or boot."""
    from ..elf import check_board
    from ..qemu import boards, emulated, find_firmware

    if args.port is None and not emulated(args.board):
        raise InputError(
            f"{args.board} is a hardware board: QEMU does not emulate it; pass --port with its serial "
            f"port (`uxhost ports` lists them), and --flash IMAGE with --gdb or --probe to flash it "
            f"first; QEMU boards: {', '.join(boards())}"
        )
    if args.output is not None:
        _check_output(args)
    if args.dumps is not None:
        _check_dumps(args)
    _check_reach(args)
    if args.flash is not None:
        return _check_flash(args)
    if args.port is None:
        image = find_firmware(args.board, args.elf)
        check_board(image, args.board)
        return image
    return None


@contextlib.contextmanager
def _reach(args, image: Path | None):
    """(device, QEMU instance or None, how it was reached, the flash's line or None)."""
    from ..flash import flash_gdb, flash_pyocd
    from ..link import Device
    from ..qemu import boot

    def open_device(url):
        return Device.open(url, timeout=args.timeout, retries=args.retries, baudrate=args.baud)

    if args.port is not None:
        flashed = None
        if args.flash is not None:
            result = (
                flash_gdb(args.flash, args.gdb)
                if args.gdb
                else flash_pyocd(args.flash, args.target, args.pack, args.probe_id)
            )
            flashed = result.line()
            print(flashed, file=sys.stderr)
        with open_device(args.port) as device:
            yield device, None, f"{args.port} (at {args.baud} baud)" if "://" not in args.port else args.port, flashed
        return
    if args.flash is not None:
        with boot(args.board, gdb=True) as instance:
            flashed = flash_gdb(image, instance.gdb_address).line()
            print(flashed, file=sys.stderr)
            with open_device(instance.url) as device:
                yield device, instance, f"QEMU {args.board}, booted with an empty flash, at {instance.url}", flashed
        return
    with boot(args.board, image) as instance, open_device(instance.url) as device:
        yield device, instance, f"QEMU {args.board} booting {_shown(image)}, at {instance.url}", None


def _shown(path: Path) -> str:
    """`path` relative to the working folder when it is inside it (build/BOARD/firmware.elf), else as it is."""
    shown = os.path.relpath(os.path.abspath(path))
    return str(path) if shown.startswith("..") else shown


def command_of(args) -> str:
    """The command line that runs this check again (paths as given; no -o, which is where the report went)."""
    words = ["uxhost", "check", "--board", args.board]
    for option in ("port", "elf", "flash", "gdb", "probe", "target", "pack", "probe_id"):
        value = getattr(args, option)
        if value is not None:
            words += [f"--{option.replace('_', '-')}", str(value)]
    words += ["--steps", str(args.steps), "--eta", str(args.eta)]
    return " ".join(shlex.quote(w) for w in words)
