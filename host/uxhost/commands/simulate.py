"""`uxhost simulate`: seeded traces (k,u,z,x) of a benchmark system, as CSV: from its Python twin, or from the
host build of its C model when it has none (or with --engine native)."""

from __future__ import annotations

from pathlib import Path

from .common import InputError, ToolError, add_force_argument, add_model_arguments, non_negative_int, positive_int

# The most rows (--steps × --traces) one run simulates: its arrays take about 40 bytes a row and its CSV about
# 80, so this is under 1 GB; numpy would otherwise try to allocate whatever was typed (745 GiB for 10^11).
MAX_ROWS = 10_000_000
ENGINES = ("auto", "reference", "native")


def register(sub) -> None:
    parser = sub.add_parser(
        "simulate",
        help="write seeded traces of a benchmark system (CSV k,u,z,x)",
        description="Simulate a benchmark system (or a model of your own, --model) from its "
        "prior and write the trace as CSV with columns k,u,z,x (x is the true state).",
    )
    add_model_arguments(parser, filter_options=False, own_model=True)
    parser.add_argument(
        "--steps",
        "-T",
        type=positive_int,
        required=True,
        help=f"steps per trace (at most {MAX_ROWS:,} rows in all: --steps × --traces)",
    )
    parser.add_argument(
        "--seed",
        type=non_negative_int,
        required=True,
        help="the seed, a whole number ≥ 0: of numpy's SeedSequence on the reference, of the C "
        "core's generator on the native engine (below 2^64 there)",
    )
    parser.add_argument(
        "--traces",
        type=positive_int,
        default=1,
        help="number of traces; with more than one, -o trace.csv becomes trace-000.csv, … "
        "(trace i is the same whatever the count)",
    )
    parser.add_argument("-o", "--output", type=Path, required=True, help="CSV file to write")
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default="auto",
        help="reference: the system's Python twin, numpy's generator; native: the host build of "
        "its C model (build/native/libux.so, `make native`), the C core's generator — the same "
        "seed gives another trace of the same law; auto: reference when the system has a "
        "Python twin, else native (default: %(default)s)",
    )
    parser.add_argument(
        "--native-lib",
        type=Path,
        metavar="SO",
        help="host build of the C code the native engine runs (default: $UX_NATIVE_LIB, else " "build/native/libux.so)",
    )
    add_force_argument(parser, "the CSV file(s)")
    parser.set_defaults(run=run)


def output_paths(output: Path, count: int) -> list[Path]:
    if count == 1:
        return [output]
    width = max(3, len(str(count - 1)))
    return [output.with_name(f"{output.stem}-{i:0{width}d}{output.suffix}") for i in range(count)]


def check_size(steps: int, traces: int) -> None:
    """Refuses a run above MAX_ROWS rows before anything is allocated."""
    if steps * traces > MAX_ROWS:
        raise InputError(
            f"--steps {steps} × --traces {traces} is {steps * traces:,} rows; a run simulates at most "
            f"{MAX_ROWS:,} (ask for fewer)"
        )


def finite_or_refused(trace, name: str, index: int) -> None:
    """A trace that overflowed (parameters under which the system diverges: lg's a = 1e308) is refused, not
    written as inf and NaN for a later command to stumble on."""
    import numpy as np

    for column in ("x", "z", "u"):
        values = getattr(trace, column)
        bad = np.flatnonzero(~np.isfinite(values)) if values is not None else ()
        if column == "z":
            bad = [i for i in bad if not np.isnan(values[i])]  # NaN z: a missing observation a model may make
        if len(bad):
            raise InputError(
                f"{name} with these parameters diverges: trace {index}'s {column} is {values[bad[0]]} "
                f"at k={int(trace.k[bad[0]])}"
            )


def _model_of_run(args):
    """The model of your own (--model) or None for a table system, once the options are known to fit."""
    from ..outputs import check_output
    from ..user_model import from_arguments

    check_size(args.steps, args.traces)
    for path in output_paths(args.output, args.traces):
        check_output(path, args.force)
    own = from_arguments(args)
    if own is None and not args.system:
        raise InputError("which system? pass --system NAME, or --model FILE.py:FUNCTION for a model of your own")
    if args.engine == "native" and own is not None:
        raise InputError(
            "--engine native runs a system of the C code; a model of your own (--model) runs on the " "reference"
        )
    return own


def _simulate_joint(args) -> int:
    """A joint system: its Python twin on the reference, else (or with --engine native) its C model."""
    from uxemu import joint_systems

    from . import joint

    twin = args.system in joint_systems.TWINS
    if args.engine == "reference" and not twin:
        raise InputError(
            f"joint system {args.system!r} exists only in C: it has no Python twin in "
            "uxemu.joint_systems (leave --engine out: the native engine simulates it)"
        )
    if args.engine == "native" or not twin:
        return native_joint(args)
    return joint.simulate(args)


def _reference_traces(args, own, spec, params):
    """The traces the reference simulates, and the model's name."""
    import numpy as np
    from uxemu import simulate_many, systems

    try:  # the reference simulates only a system it has a twin of; systems.get says so otherwise
        model = own.model(params) if own is not None else systems.get(spec.name, **dict(zip(spec.param_names, params)))
    except ValueError as exc:
        raise InputError(str(exc)) from None
    # Spawned streams, even for one trace, so that trace i does not depend on how many were asked for.
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused below, in one line
        traces = simulate_many(model, args.traces, args.steps, args.seed)
    return traces, model.name


def _write_traces(args, traces, own, spec, params, name: str, engine: str) -> None:
    """Each trace to its CSV file (a model of your own's with the header a fit reads), and one line saying where."""
    if own is not None:  # the header a fit reads the simulated values from (a table model carries its own)
        for trace in traces:
            trace.meta = {"system": spec.name, "params": ",".join(repr(float(p)) for p in params)}
    paths = output_paths(args.output, args.traces)
    for trace, path in zip(traces, paths):
        trace.to_csv(path)
    where = paths[0] if len(paths) == 1 else f"{paths[0]} … {paths[-1].name}"
    how = ", native engine" if engine == "native" else ""
    print(f"wrote {len(paths)} trace(s) of {name}, {args.steps} steps, seed {args.seed}{how}: {where}")


def run(args) -> int:
    from uxemu import systems

    from . import joint
    from ..config import find_spec, parse_params, table_specs

    own = _model_of_run(args)
    if own is None and joint.is_joint(args.system):
        return _simulate_joint(args)
    spec = own.spec if own is not None else find_spec(table_specs(), args.system)
    params = parse_params(spec, args.params)
    engine = args.engine
    if engine == "auto":
        engine = "reference" if own is not None or spec.name in systems.TWINS else "native"
    if engine == "native":
        traces, name = native_traces(args, spec, params), spec.name
    else:
        traces, name = _reference_traces(args, own, spec, params)
    for i, trace in enumerate(traces):
        finite_or_refused(trace, spec.name, i)
    _write_traces(args, traces, own, spec, params, name, engine)
    return 0


def native_library(args, name: str):
    """The host library the native engine runs (--native-lib, else uxemu.native's), and the start of what a
    failure says: why the C model is being run."""
    from uxemu import native

    why = (
        "--engine native runs the system's C model"
        if args.engine == "native"
        else f"{name} has no Python twin, so its C model runs"
    )
    try:
        nat = native.Native(args.native_lib) if args.native_lib else native.load()
    except FileNotFoundError as exc:
        raise ToolError(f"{why} in the host library, and {exc}") from None
    except (native.NativeLayoutError, OSError) as exc:
        raise ToolError(f"{why} in the host library, which does not load: {str(exc).splitlines()[0]}") from None
    if args.seed >= 2**64:
        raise InputError(f"--seed {args.seed}: the native engine takes a seed below 2^64")
    return nat, why


def native_run(simulate, why: str, name: str):
    """simulate() with the binding's errors as one line each."""
    from uxemu import native

    try:
        return simulate()
    except native.NativeLayoutError as exc:
        raise ToolError(f"{why} in the host library, which is stale: {str(exc).splitlines()[0]}") from None
    except (ValueError, native.NativeError) as exc:
        raise InputError(f"{name} on the native engine: {exc}") from None


def wrong_library(nat, name: str, system_id: int) -> ToolError:
    return ToolError(
        f"the host library {nat.path} has no system {name} with id {system_id}: pass --native-lib "
        "with the host build of this tree (`make native`)"
    )


def native_traces(args, spec, params) -> list:
    """The traces the host build of the system's C model simulates (uxemu.native.Native.simulate): stream i of
    the seed for trace i, as the reference's spawned streams, but from the C core's generator."""
    nat, why = native_library(args, spec.name)
    model = nat.lib.ux_model_named(spec.name.encode())
    if not model or model.contents.id != spec.id:
        raise wrong_library(nat, spec.name, spec.id)
    return native_run(lambda: nat.simulate(spec.name, args.steps, args.seed, args.traces, params), why, spec.name)


def native_joint(args) -> int:
    """`simulate` of a joint system by the host build of its C model (Native.simulate_joint), written as the
    reference's joint trace (k, u, z0 …, x0 …)."""
    import numpy as np

    from ..config import parse_params
    from uxemu import Trace

    from ..joint import joint_specs

    spec = joint_specs()[args.system]
    if args.traces != 1:
        raise InputError("--traces: a joint system is simulated one trace at a time")
    params = parse_params(spec, args.params)
    nat, why = native_library(args, spec.name)
    found = native_run(lambda: nat.joint_shape(spec.name), why, spec.name)
    if found is None or (found["id"], found["dim"]) != (spec.id, spec.dim):
        raise wrong_library(nat, spec.name, spec.id)
    ((x, z),) = native_run(lambda: nat.simulate_joint(spec.name, args.steps, args.seed, 1, params), why, spec.name)
    bad = np.flatnonzero(~np.isfinite(x).all(axis=1) | np.isinf(z).any(axis=1))
    if bad.size:
        raise InputError(f"{spec.name} with these parameters diverges: the trace is not finite at k={int(bad[0])}")
    meta = {"system": spec.name, "params": ",".join(repr(float(p)) for p in params)}
    Trace(np.arange(args.steps), np.zeros(args.steps), z, x, meta).to_csv(args.output)
    print(f"wrote 1 trace of {spec.name}, {args.steps} steps, seed {args.seed}, native engine: {args.output}")
    return 0
