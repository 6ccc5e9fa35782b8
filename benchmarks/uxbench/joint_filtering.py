"""Joint filtering: the joint ux filter against the C bootstrap PF, EKF, UKF and a 2-D grid filter.

`python -m uxbench joint_filtering` (`--quick`: 4 traces × 100 steps per system, a few minutes; `--full`: 50
traces, 38–47 min on 2 shared cores; `--render`); uxbench.joint_filtering_report renders the results.
Needs `make bench-lib`.

Per system of `uxemu.joint_systems` and trace (`joint_systems.simulate`, fixed seeds), every method filters
the same observations and is scored against the simulated states:

- ux: the joint ux filter in C (uxb_joint_ux_run), refined at ETAS and paper mode at PAPER_ETAS;
- PF: the C bootstrap PF at PARTICLES, `pf_runs` seeds per trace;
- EKF, UKF: the C Kalman filters (uxbench/joint_kf.h);
- grid: the 2-D point-mass filter (uxbench.baselines.joint_grid), the near-exact reference (Python).

A record per (method, size, trace, run): RMSE of the posterior mean per component over the trace; NLL
(mean over steps of −log p(x_true), clamped at uxemu.metrics' floor; densities in uxbench.joint_metrics);
CRPS per component (mean over steps); native CPU ns per step (the C call's thread CPU time / T: median of
TIMING_REPEATS calls for ux and the Kalman filters, the run's own timing call for each PF seed). A method
that fails on a trace leaves a record with its `error` instead, which the report counts.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import numpy as np

from uxemu import joint_systems, native
from uxemu.metrics import nll

from . import joint_metrics as jm
from . import joint_native
from .baselines.joint_grid import PAD, joint_grid_filter
from .report import statement

ETAS = (2, 4, 8, 16, 32, 64)
PAPER_ETAS = (8, 32)
PARTICLES = (10, 20, 50, 100, 200, 500, 1000)
TRACE_SEED = 2026
TIMING_REPEATS = 3
SIZES = {
    # conv_traces: traces on which the grid is run again at twice its points per axis (its convergence)
    "quick": dict(name="quick", traces=4, steps=100, pf_runs=2, grid_points=256, conv_traces=1),
    "full": dict(name="full", traces=50, steps=100, pf_runs=3, grid_points=256, conv_traces=2),
}
RESULTS_FOLDERS = {"full": "."}  # the committed full run: benchmarks/results/joint_filtering.*
COMPONENTS = {"pendulum": ("θ", "ω"), "cvrange": ("p", "v")}
# The 2-D systems: their exact answer is the grid filter and their density is scored on a 2-D grid. The 4-D
# bearings system needs a large-PF reference and 4-D scores first; it is not in this sweep yet.
SYSTEMS = tuple(name for name in joint_systems.names() if joint_systems.spec(name).dim == 2)


def tasks(size: dict) -> list[dict]:
    return [dict(system=name, trace=i, size=size) for name in SYSTEMS for i in range(size["traces"])]


def run_task(task: dict) -> list[dict]:
    return run_trace(joint_systems.get(task["system"]), task["trace"], task["size"])


def report(results: list, size: dict, out_dir, meta: dict | None = None) -> None:
    """Tables, CSV and plots from the tasks' records (each target met or not is in the tables' sentences)."""
    from .joint_filtering_report import write

    write([r for task in results for r in task], settings(size, meta), Path(out_dir))


def settings(size: dict, meta: dict | None) -> dict:
    """The results file's opening: how the numbers were taken (uxbench.report.statement), then the settings."""
    header = statement(meta, size.get("name"), "joint_filtering", "Joint filtering benchmark.").strip()
    lines = [
        f"Systems {', '.join(SYSTEMS)} (table defaults); traces from `joint_systems.simulate` with "
        f"seeds {TRACE_SEED} + 1000·id + i, i < {size['traces']}, {size['steps']} steps each; every method filters "
        "the same observations.",
        "",
        f"- **ux**: the joint ux filter in C (`uxb_joint_ux_run`), refined at η = {', '.join(map(str, ETAS))}, "
        f"paper mode at η = {', '.join(map(str, PAPER_ETAS))}.",
        f"- **PF**: the C bootstrap PF (`uxbench/joint_pf.h`) at {', '.join(map(str, PARTICLES))} particles, "
        f"{size['pf_runs']} seeds per trace (RMSE std over seeds in the raw results).",
        "- **EKF, UKF**: `uxbench/joint_kf.h` (central-difference Jacobians of the model's own functions; UKF "
        "α = 1, β = 2, κ = 3 − n).",
        f"- **grid**: the 2-D point-mass filter (`uxbench/baselines/joint_grid.py`), N = {size['grid_points']} points "
        f"per axis in rotated whitened coordinates, re-laid every step over the predictive's support (± "
        f"{PAD:g} noise sd); run again at N = {2 * size['grid_points']} on {size['conv_traces']} trace(s) "
        "per system for its convergence. Its time is Python's, not comparable with the native columns.",
        "",
        "Scores: RMSE of the posterior mean per component (mean over traces and runs); NLL = mean over steps of "
        "−log p(x_true), clamped at −20 nats per step (floor hits counted); CRPS per component from the "
        "marginals (exact for atoms, closed form for Gaussians); CPU ns/step = the C call's thread CPU time / T "
        f"(median of {TIMING_REPEATS} calls for ux, EKF, UKF; one timing call per PF seed; median over traces).",
        "NLL densities: ux — the predictive mixture Σᵢ wᵢ N(t; f(xᵢ, 0), Q)·p(z | t)/Z over the previous "
        "posterior's atoms (the first step: prior × likelihood), Z by trapezoid quadrature on each component's "
        f"whitened ± {jm.QUAD_HALF:g} sd grid (spacing {jm.QUAD_SPACING:g} sd; prior ± {jm.QUAD_HALF:g} sd at "
        f"{jm.PRIOR_SPACING:g} sd); PF — weighted Gaussian KDE with Scott's rule (bandwidth matrix = unbiased "
        "weighted covariance × n_eff^(−1/3), as scipy's gaussian_kde with weights); EKF/UKF — their Gaussian; "
        "grid — node mass / cell area, bilinear. The column \"NLL (KDE of atoms)\" scores the ux atoms with the "
        "PF's KDE, for comparison only.",
    ]
    return dict(header=header, settings=lines)


def trace_seed(model, i: int) -> int:
    return TRACE_SEED + 1000 * model.system_id + i


def _record(system, method, size, trace, run, mean, truth, logp, crps, ns, **extra) -> dict:
    err = np.sqrt(np.mean((np.asarray(mean) - truth) ** 2, axis=0))
    score = nll(logp)
    rec = dict(
        system=system,
        method=method,
        size=size,
        trace=trace,
        run=run,
        rmse=err.tolist(),
        nll=score.mean,
        nll_floor_hits=score.floor_hits,
        steps=score.steps,
        crps=np.mean(crps, axis=0).tolist(),
        ns_per_step=ns,
    )
    rec.update(extra)
    return rec


def _ns(cpu_ns_list, T) -> float:
    return statistics.median(cpu_ns_list) / T


def run_ux(lib, model, x, z, trace, eta, mode) -> dict:
    T = len(z)
    r = lib.run_ux(model.name, z, eta, mode=mode, params=model.params)
    ns = _ns(
        [
            lib.run_ux(model.name, z, eta, mode=mode, atoms=False, params=model.params).cpu_ns
            for _ in range(TIMING_REPEATS)
        ],
        T,
    )
    logp = [jm.ux_logpdf(model, z[t], x[t], None if t == 0 else r.atoms(t - 1), t) for t in range(T)]
    kde = [jm.kde_logpdf(*r.atoms(t), x[t]) for t in range(T)]
    crps = [jm.crps_marginals(*r.atoms(t), x[t]) for t in range(T)]
    return _record(
        model.name,
        f"ux {mode}",
        eta,
        trace,
        0,
        r.mean,
        x,
        logp,
        crps,
        ns,
        nll_kde=nll(kde).mean,
        fallbacks=int((r.status != 0).sum()),
    )


def run_pf(lib, model, x, z, trace, n, run) -> dict:
    T = len(z)
    seed = trace_seed(model, trace) * 1000 + run
    r = lib.run_pf(model.name, z, n, seed, params=model.params)
    ns = lib.run_pf(model.name, z, n, seed, particles=False, params=model.params).cpu_ns / T
    logp = [jm.kde_logpdf(r.x[t], r.w[t], x[t]) for t in range(T)]
    crps = [jm.crps_marginals(r.x[t], r.w[t], x[t]) for t in range(T)]
    return _record(model.name, "PF", n, trace, run, r.mean, x, logp, crps, ns, fallbacks=int(r.fallback.sum()))


def run_kf(lib, model, x, z, trace, method) -> dict:
    T = len(z)
    r = lib.run_kf(model.name, z, method, params=model.params)
    ns = _ns([lib.run_kf(model.name, z, method, params=model.params).cpu_ns for _ in range(TIMING_REPEATS)], T)
    logp = [jm.gaussian_logpdf(r.mean[t], r.cov[t], x[t]) for t in range(T)]
    crps = [jm.crps_gaussian_marginals(r.mean[t], r.cov[t], x[t]) for t in range(T)]
    return _record(model.name, method.upper(), 0, trace, 0, r.mean, x, logp, crps, ns, skipped=int(r.skipped.sum()))


def run_grid(model, x, z, trace, points) -> dict:
    t0 = time.process_time_ns()
    r = joint_grid_filter(model, z, points, truth=x)
    cpu = time.process_time_ns() - t0
    return _record(
        model.name, "grid", points, trace, 0, r.mean, x, r.logpdf, r.crps, None, python_ns_per_step=cpu / len(z)
    )


def run_trace(model, trace: int, size: dict, lib=None, progress=None) -> list[dict]:
    """Every method on one trace of `model`; records as dicts (JSON-ready)."""
    lib = lib or joint_native.load()
    x, z = joint_systems.simulate(model, size["steps"], trace_seed(model, trace))
    jobs = [(run_grid, (model, x, z, trace, size["grid_points"]), ("grid", size["grid_points"]))]
    if trace < size["conv_traces"]:
        jobs.append((run_grid, (model, x, z, trace, 2 * size["grid_points"]), ("grid", 2 * size["grid_points"])))
    jobs += [(run_ux, (lib, model, x, z, trace, eta, "refined"), ("ux refined", eta)) for eta in ETAS]
    jobs += [(run_ux, (lib, model, x, z, trace, eta, "paper"), ("ux paper", eta)) for eta in PAPER_ETAS]
    jobs += [
        (run_pf, (lib, model, x, z, trace, n, run), ("PF", n)) for n in PARTICLES for run in range(size["pf_runs"])
    ]
    jobs += [(run_kf, (lib, model, x, z, trace, m), (m.upper(), 0)) for m in ("ekf", "ukf")]
    out = []
    for fn, args, (method, n) in jobs:
        try:
            out.append(fn(*args))
        except (native.NativeError, ValueError, np.linalg.LinAlgError) as e:  # kept and reported, not hidden
            out.append(dict(system=model.name, method=method, size=n, trace=trace, error=f"{type(e).__name__}: {e}"))
    if progress:
        progress(f"{model.name} trace {trace + 1}/{size['traces']} done")
    return out
