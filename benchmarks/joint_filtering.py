"""The joint filtering benchmark: the joint ux filter against the C bootstrap PF, EKF and UKF and a 2-D
point-mass grid filter (the near-exact reference) on the 2-D joint systems (pendulum, cvrange).

    .venv/bin/python benchmarks/joint_filtering.py            # --quick: 4 traces × 100 steps per system
    .venv/bin/python benchmarks/joint_filtering.py --full     # 50 traces × 100 steps per system
    .venv/bin/python benchmarks/joint_filtering.py --render   # tables and plots again from the saved JSON

What runs and how it is scored: uxbench/joint_filtering.py and uxbench/joint_metrics.py; tables, targets
and plots: uxbench/joint_filtering_report.py. Needs `make bench-lib`. Results (rewritten after every
trace, so a run cut short leaves what it measured): benchmarks/results/joint_filtering.{md,csv,json} and
joint_filtering_SYSTEM.png.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from uxemu import joint_systems  # noqa: E402

from uxbench import joint_filtering as jf  # noqa: E402
from uxbench import joint_filtering_report as report  # noqa: E402
from uxbench import joint_metrics as jm  # noqa: E402
from uxbench.baselines import joint_grid  # noqa: E402


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def meta(size_name: str, size: dict, systems, done: dict, started: float, complete: bool) -> dict:
    state = "complete" if complete else "PARTIAL (the run was still going: " + ", ".join(
        f"{s} {n}/{size['traces']} traces" for s, n in done.items()) + ")"
    header = (f"Joint filtering benchmark, `{size_name}` size ({state}); {cpu_model()}, {os.cpu_count()} cores "
              f"shared; {time.strftime('%Y-%m-%d')}, {time.time() - started:.0f} s. Regenerate: "
              f"`make bench-lib && .venv/bin/python benchmarks/joint_filtering.py --{size_name}`.")
    settings = [
        f"Systems {', '.join(systems)} (table defaults); traces from `joint_systems.simulate` with seeds "
        f"{jf.TRACE_SEED} + 1000·id + i, i < {size['traces']}, {size['steps']} steps each; every method filters the "
        "same observations.",
        "",
        f"- **ux**: the joint ux filter in C (`uxb_joint_ux_run`), refined at η = {', '.join(map(str, jf.ETAS))}, "
        f"paper mode at η = {', '.join(map(str, jf.PAPER_ETAS))}.",
        f"- **PF**: the C bootstrap PF (`uxbench/joint_pf.h`) at {', '.join(map(str, jf.PARTICLES))} particles, "
        f"{size['pf_runs']} seeds per trace (RMSE std over seeds in the JSON).",
        "- **EKF, UKF**: `uxbench/joint_kf.h` (central-difference Jacobians of the model's own functions; UKF "
        "α = 1, β = 2, κ = 3 − n).",
        f"- **grid**: the 2-D point-mass filter (`uxbench/baselines/joint_grid.py`), N = {size['grid_points']} points "
        f"per axis in rotated whitened coordinates, re-laid every step over the predictive's support (± "
        f"{joint_grid.PAD:g} noise sd); run again at N = {2 * size['grid_points']} on {size['conv_traces']} trace(s) "
        "per system for its convergence. Its time is Python's, not comparable with the native columns.",
        "",
        "Scores: RMSE of the posterior mean per component (mean over traces and runs); NLL = mean over steps of "
        "−log p(x_true), clamped at −20 nats per step (floor hits counted); CRPS per component from the "
        "marginals (exact for atoms, closed form for Gaussians); CPU ns/step = the C call's thread CPU time / T "
        f"(median of {jf.TIMING_REPEATS} calls for ux, EKF, UKF; one timing call per PF seed; median over traces).",
        "NLL densities: ux — the predictive mixture Σᵢ wᵢ N(t; f(xᵢ, 0), Q)·p(z | t)/Z over the previous "
        "posterior's atoms (the first step: prior × likelihood), Z by trapezoid quadrature on each component's "
        f"whitened ± {jm.QUAD_HALF:g} sd grid (spacing {jm.QUAD_SPACING:g} sd; prior ± {jm.QUAD_HALF:g} sd at "
        f"{jm.PRIOR_SPACING:g} sd); PF — weighted Gaussian KDE with Scott's rule (bandwidth matrix = unbiased "
        "weighted covariance × n_eff^(−1/3), as scipy's gaussian_kde with weights); EKF/UKF — their Gaussian; "
        "grid — node mass / cell area, bilinear. The column \"NLL (KDE of atoms)\" scores the ux atoms with the "
        "PF's KDE, for comparison only.",
    ]
    return dict(header=header, settings=settings, size=size_name, **size, systems=list(systems),
                etas=jf.ETAS, paper_etas=jf.PAPER_ETAS, particles=jf.PARTICLES, trace_seed=jf.TRACE_SEED,
                complete=complete)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--quick", dest="size", action="store_const", const="quick", help="4 traces per system (default)")
    g.add_argument("--full", dest="size", action="store_const", const="full", help="50 traces per system")
    ap.add_argument("--systems", default="pendulum,cvrange")
    ap.add_argument("--traces", type=int, help="override the size's trace count")
    ap.add_argument("--out", type=Path, default=ROOT / "results")
    ap.add_argument("--render", action="store_true",
                    help="run nothing: render the tables and plots again from OUT/joint_filtering.json")
    args = ap.parse_args(argv)
    if args.render:
        saved = json.loads((args.out / "joint_filtering.json").read_text())
        report.write(saved["records"], saved["meta"], args.out)
        print((args.out / "joint_filtering.md").read_text())
        return 0
    size_name = args.size or "quick"
    size = dict(jf.SIZES[size_name])
    if args.traces:
        size["traces"] = args.traces
    systems = [s for s in args.systems.split(",") if s]
    started = time.time()
    records, done = [], {s: 0 for s in systems}
    for s in systems:
        model = joint_systems.get(s)
        for i in range(size["traces"]):
            records += jf.run_trace(model, i, size, progress=lambda m: print(
                f"[{time.time() - started:7.0f} s] {m}", file=sys.stderr, flush=True))
            done[s] = i + 1
            last = s == systems[-1] and i == size["traces"] - 1
            report.write(records, meta(size_name, size, systems, done, started, last), args.out,
                         plots=last or i == size["traces"] - 1)
    print((args.out / "joint_filtering.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
