"""The `uxhost` command line: one subcommand per module in `uxhost.commands`.

Exit codes: 0 success; 1 a validation outside its tolerance; 2 an error (bad arguments, a missing or
silent device, a malformed trace or dump), reported as one line on stderr; 130 interrupted (Ctrl-C).
Set UXHOST_DEBUG=1 to get the full traceback of an error instead of the one line.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading

from .commands import COMMANDS, load

EXIT_ERROR, EXIT_INTERRUPTED = 2, 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="uxhost",
        description="Stream sensor traces to a ux-filter device (a board, QEMU or loop://), "
        "dump the posteriors and validate them against the Python reference.",
    )
    parser.add_argument(
        "--version",
        action=_Versions,
        help="print uxhost's version, the C core's and the link protocol's, one a line, and exit",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        load(name).register(sub)
    return parser


class _Versions(argparse.Action):
    """--version: the package's, the C core's and the protocol's versions. argparse's own version action
    takes one string and reflows it into a paragraph; these are read only when asked for."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from .versions import version_lines

        print("\n".join(version_lines()))
        parser.exit()


def _expected_errors() -> tuple[type[BaseException], ...]:
    """Failures a user can cause or fix: reported as one line and exit status 2, never as a traceback. The
    library's own are ValueError (InputError, DumpError, ProtocolError) or OSError (ToolError, QemuError, any
    file that cannot be read or written) subclasses; the link's and the serial port's errors come as they are."""
    import serial

    from .dump import DumpError
    from .errors import InputError, ToolError
    from .link import LinkError
    from .protocol import ProtocolError

    return (InputError, DumpError, ProtocolError, ToolError, OSError, LinkError, serial.SerialException)


def _terminate(signum, frame):
    # SystemExit unwinds through every `with`: dumps are closed and QEMU is stopped on `kill` as on Ctrl-C.
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    previous = (
        signal.signal(signal.SIGTERM, _terminate) if threading.current_thread() is threading.main_thread() else None
    )
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        print(f"uxhost {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except _expected_errors() as exc:
        if os.environ.get("UXHOST_DEBUG"):
            raise
        print(f"uxhost {args.command}: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_ERROR
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)


def _one_line(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    if isinstance(exc, OSError) and exc.filename and exc.strerror:
        text = f"{exc.filename}: {exc.strerror}"
    return " ".join(text.split())
