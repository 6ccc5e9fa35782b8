"""The joint filtering benchmark's runs and scores (benchmarks/joint_filtering.py is its command line;
uxbench.joint_filtering_report renders the results).

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

import numpy as np

from uxemu import joint_systems, native
from uxemu.metrics import nll

from . import joint_metrics as jm
from . import joint_native
from .baselines.joint_grid import joint_grid_filter

ETAS = (2, 4, 8, 16, 32, 64)
PAPER_ETAS = (8, 32)
PARTICLES = (10, 20, 50, 100, 200, 500, 1000)
TRACE_SEED = 2026
TIMING_REPEATS = 3
SIZES = {
    # conv_traces: traces on which the grid is run again at twice its points per axis (its convergence)
    "quick": dict(traces=4, steps=100, pf_runs=2, grid_points=256, conv_traces=1),
    "full": dict(traces=50, steps=100, pf_runs=3, grid_points=256, conv_traces=2),
}
COMPONENTS = {"pendulum": ("θ", "ω"), "cvrange": ("p", "v")}


def trace_seed(model, i: int) -> int:
    return TRACE_SEED + 1000 * model.system_id + i


def _record(system, method, size, trace, run, mean, truth, logp, crps, ns, **extra) -> dict:
    err = np.sqrt(np.mean((np.asarray(mean) - truth) ** 2, axis=0))
    score = nll(logp)
    rec = dict(system=system, method=method, size=size, trace=trace, run=run, rmse=err.tolist(),
               nll=score.mean, nll_floor_hits=score.floor_hits, steps=score.steps,
               crps=np.mean(crps, axis=0).tolist(), ns_per_step=ns)
    rec.update(extra)
    return rec


def _ns(cpu_ns_list, T) -> float:
    return statistics.median(cpu_ns_list) / T


def run_ux(lib, model, x, z, trace, eta, mode) -> dict:
    T = len(z)
    r = lib.run_ux(model.name, z, eta, mode=mode, params=model.params)
    ns = _ns([lib.run_ux(model.name, z, eta, mode=mode, atoms=False, params=model.params).cpu_ns
              for _ in range(TIMING_REPEATS)], T)
    logp = [jm.ux_logpdf(model, z[t], x[t], None if t == 0 else r.atoms(t - 1), t) for t in range(T)]
    kde = [jm.kde_logpdf(*r.atoms(t), x[t]) for t in range(T)]
    crps = [jm.crps_marginals(*r.atoms(t), x[t]) for t in range(T)]
    return _record(model.name, f"ux {mode}", eta, trace, 0, r.mean, x, logp, crps, ns,
                   nll_kde=nll(kde).mean, fallbacks=int((r.status != 0).sum()))


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
    return _record(model.name, method.upper(), 0, trace, 0, r.mean, x, logp, crps, ns,
                   skipped=int(r.skipped.sum()))


def run_grid(model, x, z, trace, points) -> dict:
    t0 = time.process_time_ns()
    r = joint_grid_filter(model, z, points, truth=x)
    cpu = time.process_time_ns() - t0
    return _record(model.name, "grid", points, trace, 0, r.mean, x, r.logpdf, r.crps, None,
                   python_ns_per_step=cpu / len(z))


def run_trace(model, trace: int, size: dict, lib=None, progress=None) -> list[dict]:
    """Every method on one trace of `model`; records as dicts (JSON-ready)."""
    lib = lib or joint_native.load()
    x, z = joint_systems.simulate(model, size["steps"], trace_seed(model, trace))
    jobs = [(run_grid, (model, x, z, trace, size["grid_points"]), ("grid", size["grid_points"]))]
    if trace < size["conv_traces"]:
        jobs.append((run_grid, (model, x, z, trace, 2 * size["grid_points"]), ("grid", 2 * size["grid_points"])))
    jobs += [(run_ux, (lib, model, x, z, trace, eta, "refined"), ("ux refined", eta)) for eta in ETAS]
    jobs += [(run_ux, (lib, model, x, z, trace, eta, "paper"), ("ux paper", eta)) for eta in PAPER_ETAS]
    jobs += [(run_pf, (lib, model, x, z, trace, n, run), ("PF", n)) for n in PARTICLES for run in range(size["pf_runs"])]
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
