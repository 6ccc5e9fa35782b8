"""`uxhost plot`: the posterior band of a dump against the truth and the observations, as PNG."""

from __future__ import annotations

from pathlib import Path

from ..traces import load_trace
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
    from ..validate import check_trace

    if args.output.suffix.lower() != ".png":
        raise InputError(f"{args.output}: the plot is written as PNG; name the file *.png")
    check_output(args.output, args.force)
    from . import joint

    dump = load_dump(args.dump)
    if joint.is_joint_dump(dump):
        return joint.plot(args, dump)
    if not dump.steps:
        raise InputError(f"{args.dump}: the dump has no step records: nothing to plot")
    truth = None
    if args.trace is not None:
        trace = load_trace(args.trace)
        check_trace(dump, trace, args.trace)
        truth = trace.x
    out = plot_dump(dump, args.output, truth=truth)
    print(f"wrote {out}")
    return 0
