"""`uxhost stream`: drive a device through a trace — HELLO, CONFIGURE, one STEP per row — and dump
every posterior as it arrives."""

from __future__ import annotations

from pathlib import Path

from .common import (
    InputError,
    add_device_arguments,
    add_force_argument,
    add_model_arguments,
    given_model_options,
    model_config,
)


def register(sub) -> None:
    parser = sub.add_parser(
        "stream",
        help="stream a trace to a device and dump the posteriors (JSONL or NPZ)",
        description="Stream a trace (CSV k,u,z[,x]) to a device: HELLO (checks the protocol version), "
        "CONFIGURE, then one STEP per row, predicting on all but the first. Each posterior is "
        "appended to the dump as it arrives.",
    )
    parser.add_argument("trace", type=Path, help="trace CSV with columns k,u,z[,x] (other columns are ignored)")
    parser.add_argument(
        "--z-col",
        default="z",
        metavar="NAME",
        help="the trace column that holds the observation (default: %(default)s)",
    )
    add_device_arguments(parser, required=True, verb="stream to it")
    add_model_arguments(parser, system_required=False)
    out = parser.add_mutually_exclusive_group(required=True)
    out.add_argument("-o", "--output", type=Path, help="dump file to write (.jsonl or .npz)")
    out.add_argument(
        "--resume",
        type=Path,
        metavar="DUMP",
        help="continue the cut-short run DUMP of this trace on a fresh device: its steps are "
        "replayed and must come back bit for bit, then the run goes on and DUMP grows. "
        "The configuration is DUMP's own (no model options)",
    )
    add_force_argument(parser, "the -o dump (and a killed .npz run's journal beside it)")
    parser.set_defaults(run=run)


def run(args) -> int:
    from ..streaming import device_for, stream_trace

    if args.resume is not None and args.force:
        raise InputError("--force replaces an -o dump; --resume continues DUMP: pass one of them")
    # Everything that can be checked without the device is checked before it is opened (or booted): the
    # trace, the dump's format, and the model options of a system the system table knows. A system only
    # the device knows is resolved against the device's own description of it.
    if args.resume is not None:
        resume, trace = resumable(args)
        args.output, args.system_source = args.resume, f" (from {args.resume})"
        config = resume.header.config
    else:
        resume, (trace, config) = None, new_run(args)
    with device_for(args.port, args.board, args.elf, args.timeout, args.baud, args.retries) as (device, qemu):
        summary = stream_trace(
            device,
            trace,
            config,
            args.output,
            trace_path=str(args.trace),
            qemu=qemu,
            expect_board=args.board or args.expect_board,
            resume=resume,
        )
    print(f"model: {summary.config.describe(summary.spec)}{args.system_source}")
    print(f"streamed {args.trace} to {device.url}: dump {args.output}")
    for line in summary.lines():
        print("  " + line)
    return 0


def new_run(args):
    """(the trace, the configuration or the function of the device's systems that gives it) of a run to -o:
    the system from --system or the trace's header, the trace read with that system's dimensions."""
    from ..config import table_specs
    from ..joint import dim_obs_of, is_joint, joint_specs, trace_meta
    from ..traces import load_trace
    from .joint import config_for

    meta = trace_meta(args.trace)
    if is_joint(args.system or meta.get("system")):  # its trace is read with its dimensions
        choose_system(args, meta)
        spec = joint_specs()[args.system]
        trace = load_trace(args.trace, dim_obs=dim_obs_of(spec), dim=spec.dim)
        config_for(args, joint_specs(), "the system table")
        check_new_dump(args.output, args.force)
        return trace, lambda specs, where: config_for(args, specs, where)
    trace = load_trace(args.trace, args.z_col)
    check_new_dump(args.output, args.force)
    choose_system(args, trace.meta)
    if args.system in table_specs():
        model_config(args)
    return trace, lambda specs, where: model_config(args, specs, where)


def check_new_dump(path: Path, force: bool) -> None:
    """-o: the dump's format, and a file (or a killed .npz run's journal) already there kept unless --force;
    the refusal names --resume where that file is a run cut short."""
    from ..dump import JOURNAL_SUFFIX, dump_format
    from ..outputs import check_output

    journal = path.with_name(path.name + JOURNAL_SUFFIX)
    also = [journal] if dump_format(path) == "npz" else []
    there = not force and any(p.exists() for p in (path, *also))
    check_output(path, force, also, resume_hint=there and cut_short(path))


def cut_short(path: Path) -> bool:
    """Whether `path` holds a readable dump of a run that stopped before its trace's end (--resume continues it)."""
    from ..dump import DumpError, load_unfinished

    try:
        return not load_unfinished(path).complete
    except (DumpError, InputError, OSError):
        return False


def resumable(args):
    """(the dump --resume names, the trace), checked against each other before any device is opened."""
    from ..dump import load_unfinished
    from ..protocol import PROTOCOL_VERSION
    from ..validate import trace_of_dump

    given = given_model_options(args)
    if given:
        raise InputError(f"--resume runs the configuration recorded in {args.resume}; drop {', '.join(given)}")
    dump = load_unfinished(args.resume)
    if dump.header.protocol != PROTOCOL_VERSION:
        raise InputError(
            f"{args.resume} was recorded over protocol {dump.header.protocol}; a run continues "
            f"exactly only on the protocol it started with ({PROTOCOL_VERSION} here)"
        )
    trace = trace_of_dump(dump, args.trace, args.z_col)
    if len(dump) >= len(trace):
        raise InputError(f"{args.resume} already holds all {len(trace)} steps of {args.trace}: nothing to resume")
    return dump, trace


def choose_system(args, meta: dict) -> None:
    """--system as given, else the system (and, unless --params, the parameters) the trace's header
    (`meta`, its `# key: value` lines) names; a run never falls back to a system the user did not ask for."""
    args.system_source = ""
    if args.system:
        return
    named = meta.get("system")
    if not named:
        raise InputError(f"which system? {args.trace} has no '# system: NAME' header line: pass --system NAME")
    args.system, args.system_source = named, f" (system from {args.trace}'s header)"
    if args.params is None and meta.get("params"):
        args.params = meta["params"]
        args.system_source = f" (system and parameters from {args.trace}'s header)"
