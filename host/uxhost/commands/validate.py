"""`uxhost validate`: re-run a dump's configuration through the reference and compare every step."""

from __future__ import annotations

from pathlib import Path

from ..traces import load_trace
from .common import positive_float


def register(sub) -> None:
    parser = sub.add_parser(
        "validate",
        help="compare a dump with the Python reference; exit 1 outside the tolerance",
        description="Re-run the dump's configuration through the Python reference (same prior, η, mode, "
        "likelihood, same observations) and report the largest relative difference of the "
        "posterior mean, variance, atom positions and weights, and the first step outside the "
        "tolerance. With the true state (in the dump or --trace): RMSE, NLL and CRPS. "
        "Exit code 0 within tolerance, 1 outside it, 2 on an error.",
    )
    parser.add_argument("dump", type=Path, help="dump file (.jsonl or .npz)")
    parser.add_argument("--trace", type=Path, help="the trace the dump was made from (for the true state x)")
    parser.add_argument(
        "--rtol",
        type=positive_float,
        help="one relative tolerance for every quantity held to one (default: 1e-9 on everything for a "
        "double build; 1e-3 on the mean and 1e-2 on the law for a float build)",
    )
    parser.add_argument(
        "--reference",
        choices=("run", "step"),
        help="run: the reference filters the whole trace on its own (default for a double "
        "build); step: each reference step starts from the device's previous posterior "
        "(default for a float build, whose long runs drift for rounding reasons)",
    )
    parser.add_argument(
        "--exact",
        action="store_true",
        help="equality of every bit: the atoms, weights and log evidence of every step (a joint "
        "system's mean and covariance too) equal the reference's own run (a float build: the host "
        "float build's, libux_float.so)",
    )
    parser.add_argument(
        "--native-lib",
        type=Path,
        metavar="SO",
        help="host build of the firmware's C code (libux.so), the reference for a system that "
        "has no Python twin (default: $UX_NATIVE_LIB, else build/native/libux.so)",
    )
    parser.set_defaults(run=run)


def run(args) -> int:
    from ..dump import load_dump
    from ..validate import check_trace
    from . import joint

    dump = load_dump(args.dump)
    if joint.is_joint_dump(dump):
        return joint.validate(args, dump)
    truth = dump.truth
    if args.trace is not None:
        trace = load_trace(args.trace)
        check_trace(dump, trace, args.trace)
        if trace.x is not None:
            truth = trace.x
    result = report(dump, truth, str(args.dump), args.rtol, args.reference, args.native_lib, args.exact)
    return 0 if result.ok else 1


def report(dump, truth, name: str, rtol=None, reference=None, native_lib=None, exact: bool = False):
    """Compares, prints the report on stdout and returns the Comparison."""
    from ..validate import LABELS, QUANTITIES, accuracy, compare

    h, cfg = dump.header, dump.header.config
    cmp = compare(dump, rtol, reference, native_lib, exact)
    source = f"board {h.board}, firmware {h.firmware_version}" if h.board else "made by the reference"
    print(
        f"{name}: {len(dump)} steps of {cfg.system}, η={cfg.eta}, {cfg.mode}, {cfg.likelihood} likelihood "
        f"({source}, {h.real_bytes}-byte reals)"
    )
    if dump.missing:
        print(f"  {dump.missing} step(s) without observation (predict only, status NO_EVIDENCE)")
    if dump.refocused:
        print(f"  {dump.refocused} update(s) refocused onto the likelihood's region (status REFOCUSED)")
    if dump.outliers:
        print(f"  {dump.outliers} observation(s) failed the innovation gate (status OUTLIER)")
    if dump.departed:
        print(f"  {dump.departed} posterior(s) departed from the model's own after an outlier (status DEPARTED)")
    if not dump.complete:
        print(f"  note: the run was cut short: {len(dump)} of {h.trace_steps} trace rows")
    how = (
        "the reference's own run of the trace"
        if cmp.policy.reference == "run"
        else "one reference step from each previous device posterior"
    )
    print(f"  largest relative difference to {how}:")
    for q in QUANTITIES:
        held = "" if q in cmp.policy.tolerance else "   (reported, not held to the tolerance)"
        print(f"    {LABELS[q]:<15} {cmp.max_rel[q]:.3e}  (step k={cmp.worst_k[q]}){held}")
    if cmp.ok and exact:
        print("  every atom, weight and log evidence equal bit for bit on every step: OK")
    elif cmp.ok:
        print(f"  within tolerance {cmp.policy.describe()} on every step: OK")
    else:
        k, q, diff, tol = cmp.first_bad
        if q in ("status", "count"):
            print(f"  FAILED: step k={k} is the first outside tolerance: its {LABELS[q]} differs from the reference's")
        else:
            print(f"  FAILED: step k={k} is the first outside tolerance {tol:g} ({LABELS[q]}: {diff:.3e})")
    if cmp.log_likelihood is not None:
        print(
            f"  log-likelihood log p(z) {cmp.log_likelihood:.6f} over {cmp.steps} steps "
            f"(reference {cmp.reference_log_likelihood:.6f})"
        )
    if truth is not None:
        acc = accuracy(dump, truth)
        floored = f", log p clamped to {acc.log_pdf_floor:g} on {acc.floored} step(s)" if acc.floored else ""
        print(
            f"  against the true state: RMSE {acc.rmse:.4g}, NLL {acc.nll:.4g} "
            f"(TTR-binned density{floored}), CRPS {acc.crps:.4g}"
        )
    return cmp
