"""`uxhost fit`: a system's parameters from a trace, by maximising the filter's marginal likelihood."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path

from .common import DEFAULT_VECTOR_MODE, InputError, add_device_arguments, add_force_argument, add_model_arguments

# uxemu.fit.EVIDENCE, stated here so that building the parser needs no numpy.
EVIDENCE = ("update", "density")
DEFAULT_EVIDENCE = "update"


def register(sub) -> None:
    parser = sub.add_parser(
        "fit",
        help="fit a system's parameters to a trace (maximum of the filter's log-likelihood)",
        description="Estimate the parameters named by --free from a trace CSV: the filter's log p(z | θ) is "
        "deterministic, so an ordinary optimiser (Nelder-Mead) climbs it; standard errors come "
        "from its curvature at the optimum. The other parameters stay at --params (default: the "
        "trace header's, else the system's defaults). The filter runs on the host, or with "
        "--port/--board on the device, whose own log-likelihood is climbed.",
    )
    parser.add_argument("trace", type=Path, help="trace CSV with columns k,u,z[,x]")
    parser.add_argument("--z-col", default="z", metavar="NAME", help="the observation column (default: %(default)s)")
    add_model_arguments(parser, system_required=False, defaults=fit_defaults(), own_model=True)
    add_device_arguments(parser, required=False, verb="fit on it (default: on the host)")
    parser.add_argument("--free", required=True, metavar="NAME,…", help="the parameters to estimate, by name")
    parser.add_argument(
        "--start",
        metavar="NAME=V,…",
        help="where the search starts (default: the best of a scan of starts — the system table's "
        "defaults, whatever the trace header says (a --model's: its function's), and for each "
        "positive parameter levels from the trace's own scale, up to 25 filter runs for two)",
    )
    parser.add_argument(
        "--bounds",
        metavar="NAME=LO:HI,…",
        help="limits of the search, per parameter (LO or HI may be empty); a --model's parameter "
        "bounded at 0 is positive, searched on a log scale",
    )
    parser.add_argument(
        "--engine",
        choices=("auto", "native", "reference"),
        default="auto",
        help="native: the C core's host build (fast); reference: the Python twin (default: %(default)s)",
    )
    parser.add_argument(
        "--evidence",
        choices=EVIDENCE,
        default=DEFAULT_EVIDENCE,
        help="which per-step evidence the log-likelihood sums: update (BayesLaplace's η²-point "
        "normaliser, what a device reports) or density (the filter density's quadrature: "
        "the exact evidence of the filter's predictive law) (default: %(default)s)",
    )
    parser.add_argument(
        "--profile",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also the profile-likelihood interval of each parameter: where log L, maximised over the "
        "others, falls by 2 nats (a quadratic's ± 2 standard errors); it follows a skewed log L's "
        "two sides and a parameter the trace cannot tell from 0 (two to seven times the fit's filter runs; "
        "default: off, a joint system: on)",
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the result as JSON")
    add_force_argument(parser, "the --json file")
    parser.set_defaults(run=run)


def fit_defaults() -> dict:
    """The filter options' defaults where a fit's differ from a filter run's: uxemu.fit's mode."""
    from uxemu import fit

    return {"mode": fit.DEFAULT_MODE}


def parse_assignments(text: str | None, option: str, names) -> dict[str, str]:
    """{name: value text} from NAME=V,…, every name one of `names`."""
    out = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or name not in names:
            raise InputError(f"{option} {item.strip()!r}: expected NAME=VALUE with NAME one of {', '.join(names)}")
        out[name] = value.strip()
    return out


def run(args) -> int:
    from uxemu import fit

    from ..config import find_spec, table_specs
    from ..joint import is_joint, trace_meta
    from ..outputs import check_output
    from ..traces import load_trace
    from ..user_model import from_arguments
    from .common import model_config
    from .stream import choose_system

    if args.json is not None:  # before the fit's minutes, not after them
        check_output(args.json, args.force)
    if not args.model and is_joint(args.system or trace_meta(args.trace).get("system")):
        return run_joint(args)
    args.profile = bool(args.profile)
    trace = load_trace(args.trace, args.z_col)
    if args.port or args.board:
        return run_on_device(args, trace)
    own = from_arguments(args)
    if own is None:
        choose_system(args, trace.meta)
        config = model_config(args, defaults=fit_defaults())  # parameters, η, mode, likelihood and prior
        spec = find_spec(table_specs(), config.system)
    else:  # the function's parameters and prior unless --params / --prior say otherwise
        args.system, args.system_source = own.spec.name, f" ({args.model})"
        config = model_config(args, {own.spec.name: own.spec}, f"--model {args.model}", fit_defaults())
        spec = own.spec
    prior = config.prior_law() if own is None or args.prior else None
    system = spec.name if own is None else own.make

    def search(**options):
        return fit.fit(
            system,
            trace,
            eta=config.eta,
            mode=config.mode,
            likelihood=config.likelihood,
            prior=prior,
            engine=args.engine,
            evidence=args.evidence,
            **options,
        )

    return fit_and_report(args, trace, spec, config, search)


def run_joint(args) -> int:
    """A joint (vector-state) system's fit on the host, on the cell filter (uxemu.joint_fit): the trace read
    with the system's dimensions, the options as `uxhost stream` takes them for it."""
    from uxemu import fit
    from uxemu.joint_fit import ATOM_REFUSAL, FIT_MODE, PROFILE_BY_DEFAULT
    from uxemu.systems import PRIOR_LAWS

    from ..joint import dim_obs_of, joint_specs, trace_meta
    from ..traces import load_trace
    from .joint import config_for
    from .stream import choose_system

    if args.port or args.board:
        raise InputError("a joint system is fitted on the host (its cell filter's log-likelihood): drop --port/--board")
    if args.evidence != DEFAULT_EVIDENCE:
        raise InputError(f"--evidence {args.evidence}: a joint system's log-likelihood sums its update evidence")
    choose_system(args, trace_meta(args.trace))
    spec = joint_specs()[args.system]
    config = config_for(args, joint_specs(), "the system table")
    if config.mode != FIT_MODE:  # before the trace is read
        raise InputError(f"{spec.name} is a joint system; mode {config.mode!r} is not fitted: {ATOM_REFUSAL}")
    m = dim_obs_of(spec)
    trace = load_trace(args.trace, dim_obs=m, dim=spec.dim)
    args.z_col = "z0" if m == 1 else f"z0 … z{m - 1}"  # the reading's columns, which a warning may name
    prior = [PRIOR_LAWS[kind](a, b) for kind, a, b in config.priors]
    if args.profile is None:
        args.profile = PROFILE_BY_DEFAULT

    def search(**options):
        return fit.fit(spec.name, trace, eta=config.eta, mode=config.mode, prior=prior, engine=args.engine, **options)

    return fit_and_report(args, trace, spec, config, search)


def run_on_device(args, trace) -> int:
    """The fit of the log-likelihood the device computes (uxhost.device_fit), on --port or a QEMU --board."""
    from uxemu import fit

    from ..config import table_specs
    from ..device_fit import DeviceLogLikelihood
    from ..streaming import device_for
    from .common import model_config
    from .stream import choose_system

    if args.model:  # refused before its file runs
        raise InputError(
            "--model is Python, fitted on the host; a device fits the systems its firmware has: "
            "drop --port/--board or --model"
        )
    for option, value, default in (("--engine", args.engine, "auto"), ("--evidence", args.evidence, DEFAULT_EVIDENCE)):
        if value != default:
            raise InputError(
                f"{option} {value}: with --port/--board the device computes the log-likelihood " "(its update evidence)"
            )
    choose_system(args, trace.meta)
    if args.system in table_specs():  # checked before the device is opened; one only it has, against its own
        model_config(args, defaults=fit_defaults())

    def config(specs, where):
        return model_config(args, specs, where, fit_defaults())

    with device_for(args.port, args.board, args.elf, args.timeout, args.baud, args.retries) as (device, qemu):
        loglik = DeviceLogLikelihood(device, trace, config, qemu, args.board or args.expect_board)
        return fit_and_report(
            args,
            trace,
            loglik.spec,
            loglik.config,
            lambda **options: fit.maximise(loglik, **options),
            largest_eta=loglik.info.max_eta,
        )


def fit_and_report(args, trace, spec, config, search, largest_eta: int | None = None) -> int:
    """Parses --free/--start/--bounds against `spec`, runs `search(free=, bounds=, start=, fixed=, progress=,
    profile=, stage=)` (a uxemu.fit call) with a progress bar, and prints (and --json writes) the result.
    `largest_eta`: the device's (its INFO's max_eta) where the runs are a device's, so the elapsed time is said
    too (the host's CPU time is only the link's); None on the host."""
    import time

    from tqdm import tqdm

    options = search_options(args, spec, config)
    # The bar names the part of the work under way (uxemu.fit.STAGES): a profile is most of a --profile fit.
    with tqdm(unit=" runs", file=sys.stderr, desc="fit", leave=False, disable=None) as bar:

        def progress(evaluations, value):
            bar.update()
            if math.isfinite(value):
                bar.set_postfix_str(f"log L {value:.3f}")

        began = time.perf_counter()
        try:
            result = search(**options, progress=progress, profile=args.profile, stage=bar.set_description_str)
        except (ValueError, OSError) as exc:
            raise InputError(str(exc)) from None
        elapsed = time.perf_counter() - began
    no_stderr = {n: why for n in result.free if (why := result.why_no_stderr(n)) is not None}
    print_result(args, trace, spec, config, result, elapsed if largest_eta is not None else None)
    print_notes(args, config, result, no_stderr, largest_eta)
    if args.json is not None:
        write_json(args, trace, spec, config, result, elapsed, no_stderr)
    return 0 if result.converged else 1


def search_options(args, spec, config) -> dict:
    """uxemu.fit's free=, fixed=, start=, bounds= from --free/--start/--bounds (and the fixed parameters' values)."""
    free = [n.strip() for n in args.free.split(",") if n.strip()]
    unknown = [n for n in free if n not in spec.param_names]
    if unknown or not free:
        raise InputError(
            f"--free: system {spec.name} has parameters {', '.join(spec.param_names)}; "
            f"got {', '.join(unknown) or 'none'}"
        )
    # The free parameters start where the library starts them (its scan from the defaults and the trace's
    # scale), not at --params or the trace header's values.
    fixed = {n: v for n, v in zip(spec.param_names, config.params) if n not in free}
    try:
        start = {n: float(v) for n, v in parse_assignments(args.start, "--start", free).items()}
        bounds = {n: parse_bound(n, v) for n, v in parse_assignments(args.bounds, "--bounds", free).items()}
    except ValueError as exc:
        raise InputError(f"--start/--bounds: {exc}") from None
    return dict(free=free, fixed=fixed, start=start, bounds=bounds)


def parse_bound(name: str, text: str) -> tuple[float | None, float | None]:
    """(LO, HI) of --bounds NAME=LO:HI (None where empty); ValueError unless LO < HI, neither NaN."""
    lo, sep, hi = text.partition(":")
    if not sep:
        raise ValueError(f"{name}={text}: expected LO:HI")
    low, high = (float(lo) if lo.strip() else None), (float(hi) if hi.strip() else None)
    if any(b is not None and math.isnan(b) for b in (low, high)) or (None not in (low, high) and not low < high):
        raise ValueError(f"{name}={text}: expected LO below HI")  # an empty or NaN range has no point to search
    return low, high


def print_result(args, trace, spec, config, result, elapsed: float | None) -> None:
    """The table of estimates and the line of the optimum (`elapsed`: said too, for a device's runs)."""
    simulated = simulated_values(trace, spec)
    print(
        f"fit {', '.join(result.free)} of {spec.name} to {args.trace} ({len(trace)} steps){args.system_source}: "
        f"η={config.eta}, {config.mode}, {config.likelihood} likelihood, {result.engine} engine, "
        f"{result.evidence} evidence"
    )
    print(
        f"  {'parameter':<12}{'estimate':>12}{'std. error':>12}"
        + (f"{'profile interval':>26}" if args.profile else "")
        + (f"{'simulated':>12}" if simulated else "")
    )
    for n in result.free:
        line = f"  {n:<12}{result.estimate[n]:>12.5g}{result.stderr[n]:>12.3g}"
        if args.profile:
            line += f"{'[%.5g, %.5g]' % result.interval[n]:>26}"
        if simulated:
            off = (result.estimate[n] - simulated[n]) / result.stderr[n] if result.stderr[n] > 0 else math.nan
            line += f"{simulated[n]:>12.5g}  " + (f"({off:+.1f} se)" if math.isfinite(off) else "(no standard error)")
            if args.profile:
                low, high = result.interval[n]
                line += " inside the interval" if low <= simulated[n] <= high else " outside the interval"
        print(line)
    # Never "converged" below a run the fit saw: the warning (print_notes) says where that run was.
    state = (
        "converged"
        if result.converged
        else "NOT converged: a filter run was better (warning below)"
        if result.better_seen is not None
        else f"NOT converged ({result.message})"
    )
    print(
        f"  log-likelihood {result.log_likelihood:.4f} at the optimum; {result.evaluations} filter runs, "
        f"{result.seconds:.1f} s CPU{'' if elapsed is None else f', {elapsed:.1f} s elapsed'}; {state}"
    )


def print_notes(args, config, result, no_stderr: dict, largest_eta: int | None) -> None:
    """The notes (a parameter without a standard error) and warnings (an optimum some run beat; standard errors
    that do not hold), one line each."""
    from uxemu import fit

    if result.stderr_reliable or result.smooth:  # a log L not smooth: the warning says why none of them holds
        for n, why in no_stderr.items():
            print(
                f"  note: {n} has no standard error: {why}"
                + ("" if args.profile else "; --profile gives an interval that needs none")
            )
    if result.outliers:
        print(f"  warning: {outlier_warning(result.outliers, args.z_col)}")
    if result.inconsistent:
        print(f"  warning: {inconsistent_warning(result.inconsistent)}")
    if result.better_seen is not None:
        print(
            f"  warning: {result.why_not_best} (--start "
            + ",".join(f"{n}={v:.6g}" for n, v in result.better_seen[0].items())
            + ")"
        )
    if not result.stderr_reliable:
        smoother = not result.smooth and config.mode not in (fit.DEFAULT_MODE, DEFAULT_VECTOR_MODE)
        follows = result.smooth and not args.profile
        print(
            f"  warning: {result.why_unreliable}"
            + ("" if result.smooth else larger_eta_hint(config.eta, largest_eta))
            + (f", as does --mode {fit.DEFAULT_MODE}" if smoother else "")
            + ("; --profile gives intervals that follow them" if follows else "")
        )


def outlier_warning(ks, z_col: str, shown: int = 5) -> str:
    """The influential outliers at the optimum (uxemu.fit.influential_outliers), by k (the first `shown`)."""
    from uxemu import fit
    from uxemu.filter import OUTLIER_GATE

    named = ", ".join(f"k={k}" for k in ks[:shown]) + (f" and {len(ks) - shown} more" if len(ks) > shown else "")
    return (
        f"{len(ks)} influential outlier(s) at the optimum: {named} (beyond the innovation gate, "
        f"{OUTLIER_GATE:g} standard deviations, and {fit.OUTLIER_NATS:g} nats below the median step's evidence); "
        f"an outlier can pull the estimate far off: check it, or leave its {z_col!r} empty (missing) and fit again"
    )


def inconsistent_warning(ks, shown: int = 5) -> str:
    """The steps the filter calls INCONSISTENT at the optimum (docs/semantics.md, "Consistency"), by k."""
    from uxemu.filter import NIS_LIMIT

    named = ", ".join(f"k={k}" for k in ks[:shown]) + (f" and {len(ks) - shown} more" if len(ks) > shown else "")
    return (
        f"{len(ks)} step(s) INCONSISTENT at the optimum: {named} (the running mean of the test ratios above "
        f"{NIS_LIMIT:g}): even fitted, the model's predictions do not fit these readings — a noise or a level that "
        "changes, a stuck sensor — and the estimate and its standard errors describe a model the data do not follow"
    )


def write_json(args, trace, spec, config, result, elapsed: float, no_stderr: dict) -> None:
    """--json FILE: the result, the options it was fitted with, and its notes' and warnings' data."""
    better = result.better_seen
    args.json.write_text(
        json.dumps(
            {
                "system": spec.name,
                "model": args.model,
                "trace": str(args.trace),
                "steps": len(trace),
                "eta": config.eta,
                "mode": config.mode,
                "likelihood": config.likelihood,
                "engine": result.engine,
                "evidence": result.evidence,
                "estimate": result.estimate,
                "stderr": result.stderr,
                "no_stderr": no_stderr,
                "params": dict(zip(spec.param_names, result.params)),
                "log_likelihood": result.log_likelihood,
                "evaluations": result.evaluations,
                "cpu_seconds": result.seconds,
                "elapsed_seconds": elapsed,
                "converged": result.converged,
                # The run that beat the optimum (null where none did): the optimum is not the maximum.
                "better_seen": None
                if better is None
                else {"params": better[0], "log_likelihood": better[1], "why": result.why_not_best},
                "roughness": result.roughness,
                "jitter": result.jitter,
                "stderr_reliable": result.stderr_reliable,
                "interval": {n: list(v) for n, v in result.interval.items()},
                "outliers": list(result.outliers),  # k of the influential outliers at the optimum
                "inconsistent": list(result.inconsistent),  # k of the INCONSISTENT steps at the optimum
            },
            indent=2,
        )
        + "\n"
    )


def larger_eta_hint(eta: int, largest_eta: int | None) -> str:
    """The option that smooths a rough log L: the next η the protocol allows (etas()), if the device (its
    `largest_eta`; None: the host, any η) takes it."""
    from ..config import etas

    larger = [e for e in etas() if e > eta]
    if not larger:
        return f" (but {eta} is the largest η there is)"
    if largest_eta is not None and larger[0] > largest_eta:
        return (
            f" (this firmware takes η ≤ {largest_eta}: the host's fit, without --port/--board, takes --eta {larger[0]})"
        )
    return f" (--eta {larger[0]})"


def simulated_values(trace, spec) -> dict[str, float] | None:
    """The parameters a simulated trace's header names (`# system:` this system, `# params:`), else None."""
    if trace.meta.get("system") != spec.name or not trace.meta.get("params"):
        return None
    try:
        values = [float(v) for v in trace.meta["params"].split(",")]
    except ValueError:
        return None
    return dict(zip(spec.param_names, values)) if len(values) == len(spec.params) else None
