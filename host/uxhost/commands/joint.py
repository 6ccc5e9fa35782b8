"""The joint (vector-state) systems' side of `uxhost stream`, `validate`, `plot` and `simulate`: each of
those commands hands a joint system's trace or dump to the function of the same name here."""

from __future__ import annotations

from ..errors import UserError
from ..joint import JointDump, is_joint, trace_meta
from ..outputs import check_output


def is_joint_dump(dump) -> bool:
    """Whether a dump (uxhost.dump.load_dump's) is a joint system's run."""
    return isinstance(dump, JointDump)


def wants_joint_trace(args) -> bool:
    """Whether `stream` runs a joint system: --system names one, or the trace's header does."""
    return is_joint(args.system or trace_meta(args.trace).get("system"))


def config_for(args, specs, where: str):
    """The JointConfig the options ask for, among the specs a device (or the table) gives."""
    from uxemu.joint_filter import JOINT_MODES

    from ..joint import resolve

    spec = specs.get(args.system)
    if spec is None or not hasattr(spec, "dim"):
        raise UserError(f"no joint system {args.system!r} in {where}")
    if args.likelihood not in (None, "kernel"):
        raise UserError("--likelihood: a joint system has the kernel likelihood only")
    if args.mode not in (None, *JOINT_MODES):
        raise UserError(f"--mode {args.mode}: a joint system has the modes {', '.join(JOINT_MODES)} only")
    return resolve(
        spec,
        args.params,
        args.prior,
        16 if args.eta is None else args.eta,
        "refined" if args.mode is None else args.mode,
    )


def stream(args) -> int:
    from ..joint import dim_obs_of, joint_specs
    from ..streaming import device_for, stream_trace
    from ..traces import load_trace

    if args.resume is not None:
        raise UserError("--resume: a joint system's run cannot be resumed; stream it again")
    meta = trace_meta(args.trace)
    source = ""
    if not args.system:
        args.system, source = meta["system"], f" (system from {args.trace}'s header)"
        if args.params is None and meta.get("params"):
            args.params, source = meta["params"], f" (system and parameters from {args.trace}'s header)"
    spec = joint_specs()[args.system]
    trace = load_trace(args.trace, dim_obs=dim_obs_of(spec), dim=spec.dim)
    config_for(args, joint_specs(), "the system table")  # the options checked before a device is opened
    if not str(args.output).lower().endswith(".jsonl"):
        raise UserError(f"{args.output}: a joint system's dump is JSONL: name it *.jsonl")
    check_output(args.output, args.force)
    with device_for(args.port, args.board, args.elf, args.timeout, args.baud, args.retries) as (device, qemu):
        summary = stream_trace(
            device,
            trace,
            lambda specs, where: config_for(args, specs, where),
            args.output,
            trace_path=str(args.trace),
            qemu=qemu,
            expect_board=args.board or args.expect_board,
        )
    print(f"model: {summary.config.describe(summary.spec)}{source}")
    print(f"streamed {args.trace} to {device.url}: dump {args.output}")
    for line in summary.lines():
        print("  " + line)
    return 0


def _truth(args, dump):
    from ..traces import load_trace

    if getattr(args, "trace", None) is None:
        return None
    cfg = dump.header.config
    trace = load_trace(args.trace, dim_obs=cfg.dim_obs, dim=cfg.dim)
    if len(trace) < len(dump):
        raise UserError(f"{args.trace} has {len(trace)} rows, the dump {len(dump)} steps")
    return None if trace.x is None else trace.x[: len(dump)]


def plot(args, dump) -> int:
    from ..plot import plot_dump

    at = None
    if getattr(args, "at", None):
        try:
            at = [int(v) for v in args.at.split(",") if v.strip()]
        except ValueError:
            raise UserError(f"--at {args.at!r}: step indices separated by commas") from None
    if not dump.steps:
        raise UserError("the dump has no steps to plot")
    outside = [i for i in at or () if not 0 <= i < len(dump)]
    if outside:
        raise UserError(f"--at {outside[0]}: the dump has steps 0 … {len(dump) - 1}")
    out = plot_dump(dump, args.output, truth=_truth(args, dump), at_steps=at)
    print(f"wrote {out}")
    return 0


def simulate(args) -> int:
    from ..config import parse_params
    from ..joint import joint_specs, simulate as simulate_joint

    spec = joint_specs()[args.system]
    if args.traces != 1:
        raise UserError("--traces: a joint system is simulated one trace at a time")
    trace = simulate_joint(spec, parse_params(spec, args.params), args.steps, args.seed)
    trace.to_csv(args.output)
    print(f"wrote 1 trace of {spec.name}, {args.steps} steps, seed {args.seed}: {args.output}")
    return 0


__all__ = ["is_joint", "is_joint_dump", "plot", "simulate", "stream", "wants_joint_trace"]
