"""Mixture mode against refined mode on the full filtering traces → benchmarks/results/mixture_update.md.

The same traces as the filtering tables (50 × 100 per system, uxbench.filtering's seed); the ux filter in
native C at η = 4 … 32, kernel likelihood, refined and mixture modes; the grid filter (1501 points) as the
exact reference. Per configuration: RMSE; NLL of the filter density at the truth with its floor hits;
steps whose mean is more than 3 grid sd from the grid filter's; the log-likelihood gap to the grid filter,
|log L_ux − log L_grid| per step, averaged over traces; CPU time per step (median of whole-trace calls,
run serially after the accuracy tasks).

    .venv/bin/python benchmarks/mixture_update.py [--traces 50] [--steps 100] [--workers 2]
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import platform
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from uxbench import filtering, metrics  # noqa: E402
from uxbench.report import commit as checkout_commit  # noqa: E402
from uxbench.baselines.grid import grid_filter  # noqa: E402
from uxemu import native, systems  # noqa: E402

SYSTEMS = ("sv", "gss", "cubic")
ETAS = (4, 8, 16, 32)
MODES = ("refined", "mixture")
FAR_SD = 3.0  # a step is "off" when its mean is this many grid sd from the grid filter's
TIMING_TRACES, TIMING_REPEATS = 5, 3


def accuracy(task):
    """One (system, trace): per (η, mode) squared errors, log densities, off steps, log L gap."""
    system, index, size = task
    model = systems.get(system)
    trace = filtering.trace_for(system, index, size)
    grid = grid_filter(model, trace, n_points=size.grid_points)
    grid_sd = np.sqrt(grid.var)
    bench, nat = filtering._lib(), native.load()
    out = {}
    for eta in ETAS:
        for mode in MODES:
            run = bench.run_ux(model.system_id, trace.k, trace.u, trace.z, eta, mode, "kernel", atoms=False,
                               truth=trace.x)
            ev = nat.run_filter(model.system_id, trace.k, trace.u, trace.z, eta, mode=mode, atoms=False)
            out[(eta, mode)] = dict(
                se=float(np.sum((run.mean - trace.x) ** 2)), logpdf=np.asarray(run.logpdf),
                off=int((np.abs(run.mean - grid.mean) > FAR_SD * grid_sd).sum()),
                gap=abs(float(np.sum(ev.log_evidence)) - grid.log_likelihood) / len(trace))
    return system, out


def timing(size):
    """Median CPU ns per step of whole-trace calls, one configuration after the other."""
    bench, rows = filtering._lib(), {}
    for system in SYSTEMS:
        model = systems.get(system)
        traces = [filtering.trace_for(system, i, size) for i in range(min(TIMING_TRACES, size.traces))]
        for eta in ETAS:
            for mode in MODES:
                ns = [bench.run_ux(model.system_id, tr.k, tr.u, tr.z, eta, mode, "kernel", atoms=False).cpu_ns / len(tr)
                      for tr in traces for _ in range(TIMING_REPEATS)]
                rows[(system, eta, mode)] = statistics.median(ns)
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", type=int, default=50)
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", default=str(HERE / "results" / "mixture_update.md"))
    args = ap.parse_args(argv)
    size = dataclasses.replace(filtering.SIZES["full"], traces=args.traces, T=args.steps)
    t0, load0, commit = time.time(), os.getloadavg()[0], checkout_commit()
    tasks = [(s, i, size) for s in SYSTEMS for i in range(args.traces)]
    acc = {s: [] for s in SYSTEMS}
    with ProcessPoolExecutor(args.workers) as pool:
        for done, (system, out) in enumerate(pool.map(accuracy, tasks), 1):
            acc[system].append(out)
            if done % 25 == 0:
                print(f"  {done}/{len(tasks)} traces ({time.time() - t0:.0f} s)", flush=True)
    load1 = os.getloadavg()[0]
    ns = timing(size)
    lines = ["# Mixture mode against refined mode", "",
             f"Measured on {platform.machine()}, commit {commit}, {time.time() - t0:.0f} s; load average "
             f"{load0:.2f} at the start, {load1:.2f} before the timing, {os.getloadavg()[0]:.2f} at the end. "
             "Regenerate: `.venv/bin/python benchmarks/mixture_update.py`.", "",
             f"{args.traces} traces × {args.steps} steps per system (the filtering tables' traces, seed "
             f"{filtering.TRACE_SEED}); ux filter in native C, kernel likelihood; grid filter with "
             f"{size.grid_points} points. NLL: the filter density at the truth (floor "
             f"{metrics.LOG_PDF_FLOOR:g}, hits counted); off: steps whose mean is more than {FAR_SD:g} grid sd from "
             "the grid filter's; log L gap: |log L_ux − log L_grid| / steps, mean over traces; time: CPU ns per "
             f"step, median of {TIMING_TRACES} traces × {TIMING_REPEATS} whole-trace calls, one call at a time.", ""]
    for system in SYSTEMS:
        runs = acc[system]
        steps = args.traces * args.steps
        lines += [f"## {system}", "", "| η | mode | RMSE | NLL | floor hits | off | log L gap / step | ns / step |",
                  "|---|---|---|---|---|---|---|---|"]
        for eta in ETAS:
            for mode in MODES:
                rows = [r[(eta, mode)] for r in runs]
                score = metrics.nll(np.concatenate([r["logpdf"] for r in rows]))
                rmse = np.sqrt(sum(r["se"] for r in rows) / steps)
                lines.append(f"| {eta} | {mode} | {rmse:.4f} | {score.mean:.4f} | {score.floor_hits} | "
                             f"{sum(r['off'] for r in rows)} | {np.mean([r['gap'] for r in rows]):.2e} | "
                             f"{ns[(system, eta, mode)]:,.0f} |")
        lines.append("")
    Path(args.out).write_text("\n".join(lines))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
