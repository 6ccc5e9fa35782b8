"""The joint (vector-state) systems' side of `uxhost stream` and `simulate`: their options (several priors, the
kernel likelihood only) and their trace's header. `validate` and `plot` take every dump alike."""

from __future__ import annotations

from .common import InputError
from ..joint import is_joint, trace_meta


def wants_joint_trace(args) -> bool:
    """Whether `stream` runs a joint system: --system names one, or the trace's header does."""
    return is_joint(args.system or trace_meta(args.trace).get("system"))


def config_for(args, specs, where: str):
    """The JointConfig the options ask for, among the specs a device (or the table) gives."""
    from uxemu.joint_filter import JOINT_MODES

    from ..joint import resolve

    spec = specs.get(args.system)
    if spec is None or not hasattr(spec, "dim"):
        raise InputError(f"no joint system {args.system!r} in {where}")
    if args.likelihood not in (None, "kernel"):
        raise InputError("--likelihood: a joint system has the kernel likelihood only")
    if args.mode not in (None, *JOINT_MODES):
        raise InputError(f"--mode {args.mode}: a joint system has the modes {', '.join(JOINT_MODES)} only")
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
    from .stream import check_new_dump

    meta = trace_meta(args.trace)
    source = ""
    if not args.system:
        args.system, source = meta["system"], f" (system from {args.trace}'s header)"
        if args.params is None and meta.get("params"):
            args.params, source = meta["params"], f" (system and parameters from {args.trace}'s header)"
    spec = joint_specs()[args.system]
    trace = load_trace(args.trace, dim_obs=dim_obs_of(spec), dim=spec.dim)
    config_for(args, joint_specs(), "the system table")  # the options checked before a device is opened
    check_new_dump(args.output, args.force)  # names --resume where the file is a run cut short
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


def simulate(args) -> int:
    from ..config import parse_params
    from ..joint import joint_specs, simulate as simulate_joint

    spec = joint_specs()[args.system]
    if args.traces != 1:
        raise InputError("--traces: a joint system is simulated one trace at a time")
    trace = simulate_joint(spec, parse_params(spec, args.params), args.steps, args.seed)
    trace.to_csv(args.output)
    print(f"wrote 1 trace of {spec.name}, {args.steps} steps, seed {args.seed}: {args.output}")
    return 0


__all__ = ["is_joint", "simulate", "stream", "wants_joint_trace"]
