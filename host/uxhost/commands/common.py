"""What several subcommands share: argument types and the model options (system, parameters, η, mode,
likelihood, prior) as a user types them. The work itself is in the library modules (config, traces,
streaming, qemu)."""

from __future__ import annotations

import argparse
import dataclasses
import math

from ..config import LIKELIHOODS, MODES, ModelConfig, etas, find_spec, resolve, table_specs

# uxemu.joint_filter.DEFAULT_VECTOR_MODE, stated here so that building the parser needs no numpy (a test checks).
DEFAULT_VECTOR_MODE = "cells"
from ..errors import InputError, ToolError


def int_at_least(low: int):
    """An argparse type: a whole number ≥ low, else a one-line complaint."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        return value

    return parse


positive_int = int_at_least(1)
non_negative_int = int_at_least(0)


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


# The filter options' defaults are ModelConfig's. The options themselves default to None, so a command can
# tell an option the user gave from one left at its default (stream --resume refuses the former).
FILTER_DEFAULTS = {
    f.name: f.default for f in dataclasses.fields(ModelConfig) if f.name in ("eta", "mode", "likelihood")
}
MODEL_OPTIONS = ("system", "params", "prior", *FILTER_DEFAULTS)


def filter_defaults(overrides: dict | None) -> dict:
    """FILTER_DEFAULTS with a command's own defaults (e.g. uxhost fit's mode) over them."""
    return {**FILTER_DEFAULTS, **(overrides or {})}


def add_model_arguments(
    parser: argparse.ArgumentParser,
    filter_options: bool = True,
    system_required: bool = True,
    defaults: dict | None = None,
    own_model: bool = False,
) -> None:
    """The model options; `defaults` replaces some of FILTER_DEFAULTS for this command (model_config
    must be given the same). `own_model`: --model FILE.py:FUNCTION too, in place of --system (the command
    checks that one of them is given, `system_required` or not)."""
    from ..joint import joint_specs
    from ..user_model import HELP

    known = ", ".join([*table_specs(), *joint_specs()])
    parser.add_argument(
        "--system",
        metavar="NAME",
        required=system_required and not own_model,
        help=f"the system to run, by name (the system table has: {known}; a device may add "
        "its own)" + ("" if system_required else "; default: the trace file's header"),
    )
    if own_model:
        parser.add_argument("--model", metavar="FILE.py:FUNCTION", help=f"{HELP}; in place of --system")
    parser.add_argument(
        "--params",
        metavar="P1,P2,…|NAME=V,…",
        help="model parameters, either the whole vector in the system table's order or "
        "name=value overrides (e.g. sigma_v=2); default: the system's defaults",
    )
    if not filter_options:
        return
    d = filter_defaults(defaults)
    parser.add_argument("--eta", type=int, choices=etas(), help=f"atoms per value (default: {d['eta']})")
    parser.add_argument(
        "--mode",
        choices=MODES,
        help="refined: weight all η² predictive atoms; paper: reduce to η first; mixture: refined, then the "
        "posterior atoms from the filter density's quadrature nodes (scalar systems); cells: at most η Gaussian "
        "cells moved by sigma points (joint systems) "
        f"(default: {d['mode']}; a joint system: {DEFAULT_VECTOR_MODE})",
    )
    parser.add_argument(
        "--likelihood",
        choices=LIKELIHOODS,
        help="kernel: exact marginalisation; sampler: TTR-binned density of the lifted "
        f"observation model (default: {d['likelihood']})",
    )
    parser.add_argument(
        "--prior",
        metavar="KIND:A,B",
        help="prior override, gaussian:MEAN,STD or laplace:MU,SCALE (a joint system: one per state "
        "component, separated by ';'); default: the system's prior",
    )


def add_device_arguments(parser: argparse.ArgumentParser, required: bool, verb: str) -> None:
    """Where the device is (--port, or --board booted in QEMU) and how to talk to it; `verb` ends --board's
    help ("boot this QEMU board and …")."""
    from pathlib import Path

    from ..qemu import all_boards, boards

    where = parser.add_mutually_exclusive_group(required=required)
    where.add_argument(
        "--port", metavar="URL", help="pyserial URL of the device: /dev/ttyACM0, socket://127.0.0.1:PORT, …"
    )
    # Every board folder is a choice, so that a hardware board gets a reason (use --port), not "invalid choice".
    where.add_argument(
        "--board",
        choices=all_boards(),
        help=f"boot this board in QEMU and {verb}. QEMU boards: {', '.join(boards())}; a "
        "hardware board is reached with --port",
    )
    parser.add_argument("--elf", type=Path, help="firmware image for --board (default: build/BOARD/firmware.elf)")
    parser.add_argument(
        "--expect-board",
        metavar="NAME",
        help="with --port: refuse a device that reports another board in INFO (checked "
        "before anything is configured)",
    )
    add_link_arguments(parser, "the run stops")


def add_link_arguments(parser: argparse.ArgumentParser, given_up: str) -> None:
    """How the link talks to a device: --baud, --timeout, --retries; `given_up` ends --retries' help (what
    happens when a request is given up)."""
    from ..link import DEFAULT_RETRIES

    parser.add_argument(
        "--baud",
        type=int,
        default=115200,
        help="UART speed for --port on a real board (default: %(default)s; ignored by sockets)",
    )
    parser.add_argument(
        "--timeout",
        type=positive_float,
        default=10.0,
        help="the longest wait, in seconds, for an answer before the request is resent (the wait "
        "itself is learnt from the device's answer times); a request is given up after "
        "(retries + 1) times this (docs/protocol.md, \"When the host resends\"; default: "
        "%(default)s)",
    )
    parser.add_argument(
        "--retries",
        type=non_negative_int,
        default=DEFAULT_RETRIES,
        help=f"resends of a request that got no answer before {given_up} (default: "
        "%(default)s; a noisy link may need more)",
    )


def add_force_argument(parser: argparse.ArgumentParser, what: str = "the output file") -> None:
    """--force: replace an existing output, which is otherwise refused (uxhost.outputs.check_output)."""
    parser.add_argument("--force", action="store_true", help=f"replace {what} if it exists (default: refuse it)")


def model_config(args, specs=None, where: str = "the system table", defaults: dict | None = None) -> ModelConfig:
    """The configuration the command-line options ask for, among `specs` (default: the system table);
    `defaults` as add_model_arguments was given them."""
    spec = find_spec(table_specs() if specs is None else specs, args.system, where)
    if getattr(args, "mode", None) == "cells":
        raise InputError(
            "--mode cells: the cell filter is for joint (vector-state) systems; a scalar one has refined, paper and mixture"
        )
    d = filter_defaults(defaults)
    chosen = {name: getattr(args, name, None) for name in FILTER_DEFAULTS}
    filt = {name: d[name] if value is None else value for name, value in chosen.items()}
    return resolve(spec, args.params, args.prior, **filt)


def given_model_options(args) -> list[str]:
    """The model options the user typed (as --name), of those add_model_arguments defines."""
    return [f"--{name}" for name in MODEL_OPTIONS if getattr(args, name, None) is not None]


__all__ = [
    "InputError",
    "ToolError",
    "add_device_arguments",
    "add_force_argument",
    "add_model_arguments",
    "given_model_options",
    "model_config",
    "non_negative_int",
    "positive_float",
    "positive_int",
]
