#!/usr/bin/env python3
"""Quick benchmark: the ux filter against the bootstrap particle filter and the grid filter.

For each of the paper's three systems, on one set of generated traces (fixed seed), it reports RMSE of
the posterior mean, the spread of the RMSE over seeded runs, NLL and CRPS of the true state, and
milliseconds per filter step (median over traces) for: the 1501-point grid filter (near-exact Bayes),
the ux filter at η = 2/4/8/16/32/64 in refined and paper mode (kernel likelihood), with the native C engine's
time next to it when that is built, and the bootstrap PF at several particle counts. Metric definitions:
uxemu.metrics and benchmarks/README.md.

    .venv/bin/python benchmarks/quick.py            # defaults: 5 traces × T = 100, a few minutes
    .venv/bin/python benchmarks/quick.py --traces 10 --pf-runs 5 --systems gss
"""
from __future__ import annotations

import argparse
import os

# One BLAS thread: every method here is a single-threaded loop over small arrays, where idle BLAS threads
# only add spin time and noise to the per-step timings (and the native engine is single-threaded too).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np  # noqa: E402 (after the thread settings above)

import uxemu as ux  # noqa: E402
from uxbench import metrics  # noqa: E402
from uxbench.baselines import bootstrap_filter, grid_filter  # noqa: E402

HERE = Path(__file__).resolve().parent


@dataclass
class Row:
    method: str
    rmse: float
    rmse_std: float
    nll: float
    floor_hits: int
    steps: int
    crps: float
    ms: float
    native_ms: float | None = None


def ints(text: str) -> list[int]:
    return [int(t) for t in text.split(",") if t]


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--systems", default="sv,gss,cubic", help="comma-separated: sv, gss, cubic")
    p.add_argument("--traces", type=int, default=5, help="generated traces per system")
    p.add_argument("--T", type=int, default=100, help="steps per trace")
    p.add_argument("--seed", type=int, default=2026, help="seed of the traces and of the PF runs")
    p.add_argument("--etas", type=ints, default=[2, 4, 8, 16, 32, 64])
    p.add_argument("--particles", type=ints, default=[10, 20, 50, 100, 500, 1000])
    p.add_argument("--pf-runs", type=int, default=3, help="seeded PF runs per trace (>= 2 for the spread)")
    p.add_argument("--resample", default="systematic", choices=["systematic", "multinomial"])
    p.add_argument("--grid-points", type=int, default=1501)
    p.add_argument("--no-native", action="store_true", help="do not time the native C engine")
    p.add_argument("--out", type=Path, default=HERE / "results" / "quick.md")
    args = p.parse_args(argv)
    if args.pf_runs < 2:
        p.error("--pf-runs must be at least 2 (the RMSE spread needs two runs)")
    return args


def progress(msg: str, t0: float) -> None:
    print(f"[{time.perf_counter() - t0:7.1f} s] {msg}", file=sys.stderr, flush=True)


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def summarise(method, per_trace_rmse, spreads, logps, crps, ms, native_ms=None) -> Row:
    s = metrics.nll(np.concatenate(logps))
    return Row(method, float(np.mean(per_trace_rmse)), float(np.mean(spreads)), s.mean, s.floor_hits, s.steps,
               float(np.mean(np.concatenate(crps))), statistics.median(ms), native_ms)


def run_grid(model, traces, n_points) -> Row:
    rm, lp, cr, ms = [], [], [], []
    for tr in traces:
        run, dt = timed(lambda: grid_filter(model, tr, n_points=n_points))
        rm.append(metrics.rmse(run.mean, tr.x))
        lp.append([metrics.log_pdf_grid(run, i, tr.x[i]) for i in range(len(tr))])
        cr.append([metrics.crps_atoms(run.nodes[i], run.weights[i], tr.x[i]) for i in range(len(tr))])
        ms.append(1e3 * dt / len(tr))
    return summarise(f"grid {n_points} points", rm, [0.0], lp, cr, ms)


def run_ux(model, traces, eta, mode, nat) -> tuple[Row, float]:
    rm, lp, cr, ms, nms, diff = [], [], [], [], [], 0.0
    for tr in traces:
        run, dt = timed(lambda: ux.run_filter(model, tr, eta=eta, mode=mode))
        rm.append(metrics.rmse(run.mean, tr.x))
        lp.append([metrics.log_pdf_value(v, x) for v, x in zip(run.posteriors, tr.x)])
        cr.append([metrics.crps_value(v, x) for v, x in zip(run.posteriors, tr.x)])
        ms.append(1e3 * dt / len(tr))
        if nat is not None:
            nrun, ndt = timed(lambda: nat.run_filter(model.system_id, tr.k, tr.u, tr.z, eta=eta, mode=mode,
                                                     atoms=False))
            nms.append(1e3 * ndt / len(tr))
            diff = max(diff, float(np.max(np.abs(nrun.mean - run.mean) / (1.0 + np.abs(run.mean)))))
    row = summarise(f"ux η={eta} {mode}", rm, [0.0], lp, cr, ms, statistics.median(nms) if nms else None)
    return row, diff


def run_pf(model, traces, n, runs, seed, resample) -> Row:
    rm, sp, lp, cr, ms = [], [], [], [], []
    for t_idx, tr in enumerate(traces):
        means = []
        for r in range(runs):
            rng = np.random.default_rng(np.random.SeedSequence([seed, n, t_idx, r]))
            run, dt = timed(lambda: bootstrap_filter(model, tr, n, rng, resample=resample))
            means.append(run.mean)
            rm.append(metrics.rmse(run.mean, tr.x))
            lp.append([metrics.log_pdf_particles(run.particles[i], run.weights[i], tr.x[i]) for i in range(len(tr))])
            cr.append([metrics.crps_atoms(run.particles[i], run.weights[i], tr.x[i]) for i in range(len(tr))])
            ms.append(1e3 * dt / len(tr))
        sp.append(metrics.rmse_spread(np.array(means), tr.x))
    return summarise(f"PF {n} ({resample})", rm, sp, lp, cr, ms)


def likelihood_call_ms(model, trace) -> float:
    x = np.array([float(trace.x[0])])
    reps = [timed(lambda: model.log_likelihood(float(trace.z[0]), x))[1] for _ in range(5)]
    return 1e3 * statistics.median(reps)


def shown(path: Path) -> str:
    """A path relative to the repository when it lies inside it (results files travel between machines)."""
    try:
        return str(Path(path).resolve().relative_to(HERE.parent))
    except ValueError:
        return str(path)


def load_average() -> str:
    try:
        return "/".join(f"{v:.1f}" for v in os.getloadavg())
    except OSError:
        return "unknown"


def load_native(disabled: bool):
    """The native engine, or (None, reason) when it cannot be timed."""
    if disabled:
        return None, "native engine: not timed (--no-native)"
    try:
        from uxemu import native
    except ImportError as exc:
        return None, f"native engine: uxemu.native does not import ({exc})"
    if not native.available():
        return None, f"native engine: not built ({shown(native.library_path())} missing; run `make native`)"
    return native.load(), f"native engine: {shown(native.library_path())}"


def fmt(v, spec):
    return "—" if v is None else format(v, spec)


def table(rows) -> list[str]:
    out = ["| method | RMSE | RMSE std | NLL | NLL floor hits | CRPS | ms/step | native ms/step |",
           "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        out.append(f"| {r.method} | {r.rmse:.4f} | {r.rmse_std:.4f} | {r.nll:.3f} | {r.floor_hits}/{r.steps} | "
                   f"{r.crps:.4f} | {r.ms:.3f} | {fmt(r.native_ms, '.4f')} |")
    return out


def main(argv=None) -> int:
    args = parse(argv)
    t0 = time.perf_counter()
    nat, native_note = load_native(args.no_native)
    progress(native_note, t0)
    command = "python benchmarks/quick.py " + " ".join(sys.argv[1:] if argv is None else argv)
    lines = ["# Quick benchmark", "", f"Command: `{command.strip()}`", "",
             f"{args.traces} traces × T = {args.T} per system (uxemu.simulate_many, seed {args.seed}); "
             f"PF: {args.pf_runs} seeded runs per trace, {args.resample} resampling every step; "
             f"grid: {args.grid_points} points. RMSE: mean over traces (and runs) of the per-trace RMSE; "
             "RMSE std: mean over traces of the std over runs (0 for deterministic filters); NLL: mean "
             f"−log p(x_true), log p floored at {metrics.LOG_PDF_FLOOR:g} (floor hits counted); CRPS: mean exact "
             "CRPS; ms/step: median over traces (and runs) of wall time / T, one process, one BLAS thread, metrics excluded.",
             "", f"{native_note}. Load average (1/5/15 min) at start: {load_average()} on "
             f"{os.cpu_count()} CPUs: timings are of a machine shared with that load.", ""]
    for name in args.systems.split(","):
        model = ux.systems.get(name)
        traces = ux.simulate_many(model, args.traces, args.T, args.seed)
        rows = [run_grid(model, traces, args.grid_points)]
        progress(f"{name}: grid done", t0)
        worst = 0.0
        for eta in args.etas:
            for mode in ("refined", "paper"):
                row, diff = run_ux(model, traces, eta, mode, nat)
                rows.append(row)
                worst = max(worst, diff)
                progress(f"{name}: {row.method} done", t0)
        for n in args.particles:
            rows.append(run_pf(model, traces, n, args.pf_runs, args.seed, args.resample))
            progress(f"{name}: {rows[-1].method} done", t0)
        block = [f"## {name}", ""] + table(rows) + [""]
        block += [f"One call of model.log_likelihood on a single point: {likelihood_call_ms(model, traces[0]):.3f} ms "
                  "(the fixed cost inside every PF and grid step).", ""]
        if nat is not None:
            block += [f"Native vs reference posterior means: largest relative difference {worst:.3g}.", ""]
        print("\n".join(block), flush=True)
        lines += block
    lines.append(f"Total wall time: {time.perf_counter() - t0:.0f} s; load average at the end: {load_average()}.")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    progress(f"wrote {args.out}", t0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
