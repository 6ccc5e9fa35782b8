"""`uxhost simulate`: seeded traces (k,u,z,x) of a benchmark system, as CSV."""
from __future__ import annotations

from pathlib import Path

from .common import UserError, add_force_argument, add_model_arguments, non_negative_int, positive_int

# The most rows (--steps × --traces) one run simulates: its arrays take about 40 bytes a row and its CSV about
# 80, so this is under 1 GB; numpy would otherwise try to allocate whatever was typed (745 GiB for 10^11).
MAX_ROWS = 10_000_000


def register(sub) -> None:
    parser = sub.add_parser("simulate", help="write seeded traces of a benchmark system (CSV k,u,z,x)",
                            description="Simulate a benchmark system (or a model of your own, --model) from its "
                                        "prior and write the trace as CSV with columns k,u,z,x (x is the true state).")
    add_model_arguments(parser, filter_options=False, own_model=True)
    parser.add_argument("--steps", "-T", type=positive_int, required=True,
                        help=f"steps per trace (at most {MAX_ROWS:,} rows in all: --steps × --traces)")
    parser.add_argument("--seed", type=non_negative_int, required=True,
                        help="seed of numpy's SeedSequence (a whole number ≥ 0)")
    parser.add_argument("--traces", type=positive_int, default=1,
                        help="number of traces; with more than one, -o trace.csv becomes trace-000.csv, … "
                             "(trace i is the same whatever the count)")
    parser.add_argument("-o", "--output", type=Path, required=True, help="CSV file to write")
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
        raise UserError(f"--steps {steps} × --traces {traces} is {steps * traces:,} rows; a run simulates at most "
                        f"{MAX_ROWS:,} (ask for fewer)")


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
            raise UserError(f"{name} with these parameters diverges: trace {index}'s {column} is {values[bad[0]]} "
                            f"at k={int(trace.k[bad[0]])}")


def run(args) -> int:
    from . import joint
    from ..outputs import check_output
    from ..user_model import from_arguments

    check_size(args.steps, args.traces)
    for path in output_paths(args.output, args.traces):
        check_output(path, args.force)
    own = from_arguments(args)
    if own is None and not args.system:
        raise UserError("which system? pass --system NAME, or --model FILE.py:FUNCTION for a model of your own")
    if own is None and joint.is_joint(args.system):
        return joint.simulate(args)
    import numpy as np
    from uxemu import simulate_many, systems

    from ..config import find_spec, parse_params, table_specs

    spec = own.spec if own is not None else find_spec(table_specs(), args.system)
    params = parse_params(spec, args.params)
    try:  # the reference simulates only a system it has a twin of; systems.get says so otherwise
        model = own.model(params) if own is not None else systems.get(spec.name, **dict(zip(spec.param_names, params)))
    except ValueError as exc:
        raise UserError(str(exc)) from None
    # Spawned streams, even for one trace, so that trace i does not depend on how many were asked for.
    with np.errstate(over="ignore", invalid="ignore"):  # an overflow is refused below, in one line
        traces = simulate_many(model, args.traces, args.steps, args.seed)
    for i, trace in enumerate(traces):
        finite_or_refused(trace, spec.name, i)
    if own is not None:  # the header a fit reads the simulated values from (a table model carries its own)
        for trace in traces:
            trace.meta = {"system": spec.name, "params": ",".join(repr(float(p)) for p in params)}
    paths = output_paths(args.output, args.traces)
    for trace, path in zip(traces, paths):
        trace.to_csv(path)
    where = paths[0] if len(paths) == 1 else f"{paths[0]} … {paths[-1].name}"
    print(f"wrote {len(paths)} trace(s) of {model.name}, {args.steps} steps, seed {args.seed}: {where}")
    return 0
