"""What differs for a joint (vector-state) system in `uxhost stream` and `simulate`: its options (several
priors, the kernel likelihood only). Every command streams, validates and plots every system by one path."""

from __future__ import annotations

from .common import InputError
from ..joint import is_joint


def config_for(args, specs, where: str):
    """The JointConfig the options ask for, among the specs a device (or the table) gives."""
    from uxemu.joint_filter import VECTOR_MODES

    from ..joint import resolve

    spec = specs.get(args.system)
    if spec is None or not hasattr(spec, "dim"):
        raise InputError(f"no joint system {args.system!r} in {where}")
    if args.likelihood not in (None, "kernel"):
        raise InputError("--likelihood: a joint system has the kernel likelihood only")
    if args.mode not in (None, *VECTOR_MODES):
        raise InputError(f"--mode {args.mode}: a joint system has the modes {', '.join(VECTOR_MODES)} only")
    return resolve(
        spec,
        args.params,
        args.prior,
        16 if args.eta is None else args.eta,
        args.mode,  # None: the vector state's default
    )


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


__all__ = ["config_for", "is_joint", "simulate"]
