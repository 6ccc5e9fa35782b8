"""`uxhost validate`: re-run a dump's configuration through the reference and compare every step."""

from __future__ import annotations

from pathlib import Path

import numpy as np

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
    from ..validate import trace_of_dump

    dump = load_dump(args.dump)
    truth = dump.truth
    if args.trace is not None:
        trace = trace_of_dump(dump, args.trace)
        if trace.x is not None:
            truth = trace.x[: len(dump)]
    result = report(dump, truth, str(args.dump), args.rtol, args.reference, args.native_lib, args.exact)
    return 0 if result.ok else 1


def report(dump, truth, name: str, rtol=None, reference=None, native_lib=None, exact: bool = False):
    """Compares, prints the report on stdout and returns the Comparison (a scalar or a vector state's)."""
    from ..validate import LABELS, REFERENCES, compare

    cmp = compare(dump, rtol, reference, native_lib, exact)
    _describe_dump(dump, name)
    print(f"  largest relative difference to {REFERENCES[cmp.policy.reference]}:")
    for q in cmp.quantities:
        held = "" if q in cmp.policy.tolerance else "   (reported, not held to the tolerance)"
        print(f"    {LABELS[q]:<15} {cmp.max_rel[q]:.3e}  (step k={cmp.worst_k[q]}){held}")
    if cmp.ok and exact:
        held = "mean, covariance, atom, weight" if "cov" in cmp.quantities else "atom, weight"
        print(f"  every {held} and log evidence equal bit for bit on every step: OK")
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
        print("  against the true state: " + _accuracy(dump, truth))
    return cmp


def _describe_dump(dump, name: str) -> None:
    """The report's head: what ran where, and the steps whose status says something."""
    from ..dump import status_lines
    from ..validate import is_joint

    h, cfg = dump.header, dump.header.config
    source = f"board {h.board}, firmware {h.firmware_version}" if h.board else "made by the reference"
    dim = f" (dim {cfg.dim})" if is_joint(dump) else ""
    print(
        f"{name}: {len(dump)} steps of {cfg.system}{dim}, η={cfg.eta}, {cfg.mode}, {cfg.likelihood} likelihood "
        f"({source}, {h.real_bytes}-byte reals)"
    )
    for line in status_lines(dump.status_counts()):
        print(f"  {line}")
    if not dump.complete:
        print(f"  note: the run was cut short: {len(dump)} of {h.trace_steps} trace rows")


def _accuracy(dump, truth) -> str:
    """RMSE, NLL and CRPS of a scalar state's posteriors; RMSE per component of a vector state's."""
    from ..validate import accuracy, is_joint

    if is_joint(dump):
        mean = np.array([s.mean for s in dump.steps])
        rmse = np.sqrt(np.mean((mean - np.asarray(truth)[: len(dump)]) ** 2, axis=0))
        return "RMSE " + ", ".join(f"x{c} {v:.4g}" for c, v in enumerate(rmse))
    acc = accuracy(dump, truth)
    floored = f", log p clamped to {acc.log_pdf_floor:g} on {acc.floored} step(s)" if acc.floored else ""
    return f"RMSE {acc.rmse:.4g}, NLL {acc.nll:.4g} (TTR-binned density{floored}), CRPS {acc.crps:.4g}"
