"""The cell filter (ux/joint_cells.h) against the joint atom filter, the particle filter, the EKF and the UKF.

Every method runs in C (libuxbench.so) on the same simulated traces of each joint system at its table
defaults — pendulum and cvrange as the joint filtering sweep draws them, bearings as the bearings study does,
reentry (3-D) from the sweep's seeds — and is scored against the simulated state and against the model's own
answer: the 2-D grid filter (uxbench.baselines.joint_grid, 256² points) for pendulum and cvrange, a
REFERENCE_PARTICLES-particle PF for bearings and reentry (its mean only: no density).

- RMSE per state component over every step, per trace, then the mean over traces (a PF point: the mean over
  PF_RUNS seeds per trace); "PF n" is the tuned PF (joint_pf_fast.c), "PF plain n" the plain one (joint_pf.c);
- NLL: the mean over steps of −log p(x_true), clamped at uxemu.metrics' floor — the cells' Gaussian mixture,
  the EKF's and UKF's Gaussian, the PF's weighted KDE (uxbench.joint_metrics), the grid's own; the atom
  filter's is in joint_filtering.md;
- CPU: thread time per step of one whole-trace call, the median of TIMING_ROUNDS rounds in rotating order on
  the first trace (only ratios between methods mean anything on a shared machine);
- paired differences per trace (cells at the default η, and the reference, against the EKF and the UKF): the
  mean over traces of the per-trace RMSE difference and its standard error, which says whether the traces
  resolve a difference at all (on bearings at 20 traces the EKF's vx RMSE is below the reference's own).

    .venv/bin/python -m uxbench joint_cells                      # 20 traces per system (~8 minutes)
    .venv/bin/python -m uxbench joint_cells --traces 2 --out /tmp/c.md
    .venv/bin/python -m uxbench joint_cells --systems bearings --traces 200 \
        --out benchmarks/results/joint_cells_bearings200.md   # differences a few traces cannot resolve

Writes benchmarks/results/joint_cells.md and joint_cells.json.gz beside it.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

from uxemu import joint_systems
from uxemu.metrics import nll

from . import environment, joint_bearings, joint_filtering, joint_native
from . import joint_metrics as jm
from .baselines.joint_grid import joint_grid_filter
from .report import RESULTS, write_study

OUT = RESULTS / "joint_cells.md"
CELL_ETAS = (1, 2, 4, 8, 16, 32, 64)
ATOM_ETAS = (16, 64)  # the joint atom filter, refined: what a vector state ran on before the cells
PARTICLES = (100, 200, 1000)  # the tuned PF (joint_pf_fast.c): the baseline the verdicts use
PLAIN_PARTICLES = (200, 1000)  # the plain PF (joint_pf.c), for the tuned one's speed-up
PF_RUNS = 3  # seeds per trace of each PF point: its scores are their mean
DEFAULT_ETA = 16  # the library's default size (facts DEFAULT_ETA): the NLL target's η
GRID_POINTS = 256
REFERENCE_PARTICLES = joint_bearings.REFERENCE_PARTICLES
TIMING_ROUNDS = 5
STEPS = {"pendulum": 100, "cvrange": 100, "bearings": 80, "reentry": 80}
TRACES_FROM = {
    "pendulum": "as in joint_filtering.md",
    "cvrange": "as in joint_filtering.md",
    "bearings": "as in joint_bearings.md",
    "reentry": "from the sweep's seeds",
}
COMPONENTS = {**joint_filtering.COMPONENTS, "bearings": ("x", "y", "vx", "vy"), "reentry": ("h", "v", "b")}


def trace_seed(model, i: int) -> int:
    """The seeds of the sweep and the study each system's traces come from."""
    return joint_bearings.SEED + i if model.name == "bearings" else joint_filtering.trace_seed(model, i)


def arguments(ap) -> None:
    ap.add_argument("--traces", type=int, default=20, help="traces per system")
    ap.add_argument("--steps", type=int, default=None, help="steps per trace (default: each system's, STEPS)")
    ap.add_argument("--systems", nargs="+", choices=list(STEPS), default=list(STEPS), help="the joint systems run")
    ap.add_argument("--out", type=Path, default=OUT, help="markdown file; the .json.gz goes beside it")


def methods(model) -> list[tuple[str, dict]]:
    """(label, how to run it) of every timed method, in table order."""
    out = [(f"cells η={eta}", dict(kind="cells", eta=eta)) for eta in CELL_ETAS]
    out += [(f"atoms η={eta}", dict(kind="atoms", eta=eta)) for eta in ATOM_ETAS]
    out += [(f"PF {n}", dict(kind="pf", n=n, tuned=True)) for n in PARTICLES]
    out += [(f"PF plain {n}", dict(kind="pf", n=n, tuned=False)) for n in PLAIN_PARTICLES]
    return out + [("EKF", dict(kind="kf", method="ekf")), ("UKF", dict(kind="kf", method="ukf"))]


def run_method(lib, model, how: dict, x, z, seed: int, timing: bool = False, setting=None):
    """(posterior means, log-densities at x or None, the C call's CPU ns); `setting` (params=, prior=) replaces
    the table's parameters or prior in every filter, as joint_native's runners take them."""
    name, kw = model.name, setting or {}
    if how["kind"] == "cells":
        r = lib.run_cells(name, z, how["eta"], at=None if timing else x, **kw)
        return r.mean, r.logpdf, r.cpu_ns
    if how["kind"] == "atoms":
        r = lib.run_ux(name, z, how["eta"], mode="refined", atoms=False, **kw)
        return r.mean, None, r.cpu_ns
    if how["kind"] == "pf":
        r = lib.run_pf(name, z, how["n"], seed=seed, particles=not timing, tuned=how["tuned"], **kw)
        logp = None if timing else [jm.kde_logpdf(r.x[t], r.w[t], x[t]) for t in range(len(z))]
        return r.mean, logp, r.cpu_ns
    r = lib.run_kf(name, z, how["method"], **kw)
    logp = None if timing else [jm.gaussian_logpdf(r.mean[t], r.cov[t], x[t]) for t in range(len(z))]
    return r.mean, logp, r.cpu_ns


def reference(lib, model, x, z, seed: int):
    """The model's own answer on one trace: (label, means, log-densities or None)."""
    if model.dim == 2:
        r = joint_grid_filter(model, z, GRID_POINTS, truth=x)
        return f"grid {GRID_POINTS}²", r.mean, r.logpdf
    r = lib.run_pf(model.name, z, REFERENCE_PARTICLES, seed=seed, particles=False)
    return f"PF {REFERENCE_PARTICLES:,}", r.mean, None


def score(mean, logp, x) -> dict:
    out = dict(rmse=np.sqrt(np.mean((np.asarray(mean) - x) ** 2, axis=0)).tolist())
    out["nll"] = None if logp is None else nll(logp).mean
    return out


def score_system(lib, model, traces: int, steps: int, started: float) -> tuple[dict, np.ndarray]:
    """Every method's and the reference's per-trace scores, and the first trace's observations (for timing)."""
    table = methods(model)
    scores, first = {}, None
    for i in range(traces):
        x, z = joint_systems.simulate(model, steps, trace_seed(model, i))
        first = z if first is None else first
        label, mean, logp = reference(lib, model, x, z, seed=10_000 + i)
        scores.setdefault(f"reference: {label}", []).append(score(mean, logp, x))
        for label, how in table:
            runs = PF_RUNS if how["kind"] == "pf" else 1
            each = [score(*run_method(lib, model, how, x, z, seed=1000 * i + s)[:2], x) for s in range(runs)]
            scores.setdefault(label, []).append(
                dict(
                    rmse=np.mean([e["rmse"] for e in each], axis=0).tolist(),
                    nll=None if each[0]["nll"] is None else float(np.mean([e["nll"] for e in each])),
                )
            )
        print(f"joint_cells: {model.name} trace {i + 1}/{traces} ({time.monotonic() - started:.0f} s)", file=sys.stderr)
    return scores, first


def time_methods(lib, model, z) -> dict:
    """Median CPU µs per step of each method over TIMING_ROUNDS rounds, the order rotated by one each round."""
    table = methods(model)
    cpu = {label: [] for label, _ in table}
    for r in range(TIMING_ROUNDS):
        for label, how in table[r % len(table) :] + table[: r % len(table)]:
            cpu[label].append(run_method(lib, model, how, None, z, seed=1, timing=True)[2] / len(z) / 1e3)
    return {label: statistics.median(times) for label, times in cpu.items()}


def system_rows(lib, model, traces: int, steps: int, started: float) -> list[dict]:
    scores, first = score_system(lib, model, traces, steps, started)
    cpu = time_methods(lib, model, first)
    rows = []
    for label, per_trace in scores.items():
        nlls = [s["nll"] for s in per_trace]
        rows.append(
            dict(
                method=label,
                rmse=np.mean([s["rmse"] for s in per_trace], axis=0).tolist(),
                nll=None if None in nlls else float(np.mean(nlls)),
                cpu_us=cpu.get(label),
                rmse_traces=[s["rmse"] for s in per_trace],  # for the paired differences
                nll_traces=None if None in nlls else nlls,
            )
        )
    return rows


def run(args) -> dict:
    started = time.monotonic()
    if args.traces < 1 or (args.steps is not None and args.steps < 2):
        raise SystemExit("uxbench joint_cells: at least 1 trace of 2 steps")
    steps = {name: args.steps or STEPS[name] for name in args.systems}
    lib = joint_native.load()
    env = environment.block({"traces": args.traces, "steps": steps})
    systems = {name: system_rows(lib, joint_systems.get(name), args.traces, n, started) for name, n in steps.items()}
    record = dict(meta={**env, "command": args.command, "wall_s": time.monotonic() - started}, systems=systems)
    return dict(markdown=markdown(record), record=record)


# -- the report -----------------------------------------------------------------------------------------------
def _by_label(rows) -> dict:
    return {r["method"]: r for r in rows}


def _as_accurate(a: dict, b: dict) -> bool:
    """a's RMSE at most b's in every component."""
    return all(x <= y for x, y in zip(a["rmse"], b["rmse"]))


def paired(a: dict, b: dict) -> list[tuple[float, float]]:
    """Per component, then NLL where both have one: the mean over traces of a's score − b's, and its standard
    error (the traces' spread / √n; 0 for one trace)."""
    diffs = [np.asarray(a["rmse_traces"]) - np.asarray(b["rmse_traces"])]
    if a.get("nll_traces") and b.get("nll_traces"):
        diffs.append((np.asarray(a["nll_traces"]) - np.asarray(b["nll_traces"]))[:, None])
    d = np.concatenate(diffs, axis=1)
    se = d.std(axis=0, ddof=1) / np.sqrt(len(d)) if len(d) > 1 else np.zeros(d.shape[1])
    return list(zip(d.mean(axis=0).tolist(), se.tolist()))


def paired_lines(name: str, by: dict) -> list[str]:
    """The default-η cells and the reference against the EKF and UKF, per trace."""
    labels = [f"cells η={DEFAULT_ETA}"] + [k for k in by if k.startswith("reference")]
    names = list(COMPONENTS[name]) + ["NLL"]
    out = []
    for label in labels:
        for rival in ("EKF", "UKF"):
            if "rmse_traces" not in by[label]:  # a record from before the per-trace scores
                continue
            parts = [f"{n} {m:+.4f} ± {e:.4f}" for n, (m, e) in zip(names, paired(by[label], by[rival]))]
            out.append(f"- {label} − {rival}, per trace (mean ± se): {', '.join(parts)}.")
    return out


def verdicts(name: str, rows: list[dict]) -> list[str]:
    """Issue 41's done-when items, read off the table."""
    by = _by_label(rows)
    cells = [r for r in rows if r["method"].startswith("cells")]
    out = []
    pf200, pf1000 = by["PF 200"], by["PF 1000"]
    hits = [c["method"] for c in cells if _as_accurate(c, pf1000) and c["cpu_us"] <= pf200["cpu_us"]]
    out.append(f"- As accurate as PF 1000 in every component and at most PF 200's cost: {', '.join(hits) or 'none'}.")
    for n in PARTICLES:
        pf = by[f"PF {n}"]
        dom = [c["method"] for c in cells if _as_accurate(c, pf) and c["cpu_us"] <= pf["cpu_us"]]
        out.append(f"- PF {n} dominated (RMSE every component and CPU) by: {', '.join(dom) or 'none'}.")
    default = by[f"cells η={DEFAULT_ETA}"]
    rivals = {k: by[k]["nll"] for k in ("UKF", "PF 1000") if by[k]["nll"] is not None}
    rivals.update({r["method"]: r["nll"] for r in rows if r["method"].startswith("reference") and r["nll"] is not None})
    best = min(rivals, key=rivals.get)
    out.append(
        f"- NLL at η = {DEFAULT_ETA}: {default['nll']:.4f}; best of UKF, PF 1000 and the reference: {best} "
        f"{rivals[best]:.4f} (difference {default['nll'] - rivals[best]:+.4f} nats; target ≤ +0.1)."
    )
    wins = [
        c["method"] for c in cells if all(_as_accurate(c, by[k]) and c["nll"] < by[k]["nll"] for k in ("EKF", "UKF"))
    ]
    out.append(f"- Lower RMSE in every component and lower NLL than both EKF and UKF: {', '.join(wins) or 'none'}.")
    out += paired_lines(name, by)
    for n in PLAIN_PARTICLES:
        out.append(
            f"- The tuned PF {n} against the plain one: CPU {by[f'PF plain {n}']['cpu_us'] / by[f'PF {n}']['cpu_us']:.2f}× "
            f"faster, RMSE ratio {' / '.join(f'{t / p:.3f}' for t, p in zip(by[f'PF {n}']['rmse'], by[f'PF plain {n}']['rmse']))}."
        )
    for eta in ATOM_ETAS:
        a, c = by[f"atoms η={eta}"], by[f"cells η={eta}"]
        ratio = " / ".join(f"{x / y:.3f}" for x, y in zip(c["rmse"], a["rmse"]))
        out.append(
            f"- Cells against the atom filter at η = {eta}: RMSE ratio {ratio}, CPU ratio "
            f"{c['cpu_us'] / a['cpu_us']:.3f}."
        )
    return out


def system_markdown(name: str, rows: list[dict]) -> list[str]:
    comps = ", ".join(COMPONENTS[name])
    lines = [
        f"## {name}",
        "",
        f"| method | RMSE ({comps}) | NLL | CPU µs/step |",
        "|---|---|---:|---:|",
    ]
    for r in rows:
        rmse = " / ".join(f"{v:.4f}" for v in r["rmse"])
        nll_s = "—" if r["nll"] is None else f"{r['nll']:.4f}"
        cpu = "—" if r["cpu_us"] is None else f"{r['cpu_us']:,.2f}"
        lines.append(f"| {r['method']} | {rmse} | {nll_s} | {cpu} |")
    return lines + [""] + verdicts(name, rows) + [""]


def markdown(record: dict) -> str:
    meta = record["meta"]
    lines = [
        "# The cell filter: cells against atoms, particles, EKF and UKF",
        "",
        f"`python -m uxbench joint_cells` at commit {meta['commit']} ({meta['cpu']}, {meta['cpus']} CPUs, load "
        f"average {float(meta['load_avg']):.2f}, {meta['wall_s']:.0f} s): {meta['sizes']['traces']} traces per "
        f"system ({'; '.join(f'{k} {v} steps, {TRACES_FROM[k]}' for k, v in meta['sizes']['steps'].items())}), "
        f"every method in C. RMSE per component against the simulated state (per trace, then the mean); NLL the "
        f"mean over steps of −log p(x_true) (cells: their Gaussian mixture; EKF, UKF: their Gaussian; PF: weighted "
        f"KDE; grid: its own density); the reference is the {GRID_POINTS}² grid filter (2-D) or a "
        f"{REFERENCE_PARTICLES:,}-particle PF's mean (bearings, reentry). CPU: thread time per step of one whole-trace "
        f"call, median of {TIMING_ROUNDS} rotating rounds on the first trace. PF: {PF_RUNS} seeds per trace, scores "
        f"their mean; \"PF n\" the tuned loop per system (joint_pf_fast.c), \"PF plain n\" the generic one (joint_pf.c).",
        "",
    ]
    for name, rows in record["systems"].items():
        lines += system_markdown(name, rows)
    return "\n".join(lines)


report = write_study  # the markdown at --out, the record beside it
