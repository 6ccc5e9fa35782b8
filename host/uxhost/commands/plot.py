"""`uxhost plot`: the posterior band of a dump against the truth and the observations, as PNG."""

from __future__ import annotations

from pathlib import Path

from .common import InputError, add_force_argument


def register(sub) -> None:
    parser = sub.add_parser(
        "plot",
        help="draw a dump's posterior mean and 5-95%% band (PNG)",
        description="Draw the posterior mean and the 5–95 %% quantile band of each step "
        "against the true state (from the dump or --trace), the observations "
        "and the cycles per step.",
    )
    parser.add_argument("dump", type=Path, help="dump file (.jsonl or .npz)")
    parser.add_argument("--trace", type=Path, help="trace with the true state x, if the dump lacks it")
    parser.add_argument("-o", "--output", type=Path, required=True, help="PNG file to write")
    parser.add_argument(
        "--at",
        metavar="I,J,…",
        help="joint systems: the step indices whose atoms are drawn as a 2-D scatter "
        "(default: the first, middle and last)",
    )
    add_force_argument(parser, "the PNG")
    parser.set_defaults(run=run)


def run(args) -> int:
    from ..dump import load_dump
    from ..outputs import check_output
    from ..plot import plot_dump
    from ..validate import is_joint, trace_of_dump

    if args.output.suffix.lower() != ".png":
        raise InputError(f"{args.output}: the plot is written as PNG; name the file *.png")
    check_output(args.output, args.force)
    dump = load_dump(args.dump)
    if not dump.steps:
        raise InputError(f"{args.dump}: the dump has no step records: nothing to plot")
    if args.at and not is_joint(dump):
        raise InputError("--at: the atoms' scatter is drawn for a joint system's dump only")
    at = _steps_at(args.at, len(dump)) if args.at else None
    truth = None
    if args.trace is not None:
        trace = trace_of_dump(dump, args.trace)
        truth = None if trace.x is None else trace.x[: len(dump)]
    out = plot_dump(dump, args.output, truth=truth, at_steps=at)
    print(f"wrote {out}")
    return 0


def _steps_at(text: str, steps: int) -> list[int]:
    """--at: step indices, each in the dump."""
    try:
        at = [int(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise InputError(f"--at {text!r}: step indices separated by commas") from None
    outside = [i for i in at if not 0 <= i < steps]
    if outside:
        raise InputError(f"--at {outside[0]}: the dump has steps 0 … {steps - 1}")
    return at
