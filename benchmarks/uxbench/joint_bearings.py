"""The 4-D bearings system: the joint ux filter against the particle filter, the EKF and the UKF.

The joint filtering sweep scores the 2-D systems against a grid filter and on a 2-D density grid; neither
reaches d = 4. Here every method runs on the same simulated traces of `bearings` (table defaults,
`joint_systems.simulate`, seeds SEED + i), all in C through libuxbench.so (uxbench.joint_native), and is
scored against the truth and against a REFERENCE_PARTICLES-particle bootstrap PF, the nearest this study has
to the exact posterior:

- position RMSE (x, y) and velocity RMSE (vx, vy) against the simulated state, over every step, per trace,
  then the mean over traces (the filtering tables' convention);
- position distance to the reference PF's mean, the same way: how far each posterior mean is from the
  model's own answer, apart from the luck of the draw;
- thread CPU time per step of one whole-trace C call, the median over TIMING_ROUNDS rounds in rotating order
  on the first trace (only the ratios between methods mean anything on a shared machine).

    .venv/bin/python -m uxbench joint_bearings                     # 20 traces × 80 steps (~1 minute)
    .venv/bin/python -m uxbench joint_bearings --traces 3 --out /tmp/b.md

Writes benchmarks/results/joint_bearings.md and joint_bearings.json.gz beside it.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import numpy as np

from uxemu import joint_systems

from . import environment, joint_native
from .report import RESULTS, write_study

OUT = RESULTS / "joint_bearings.md"
SYSTEM = "bearings"
SEED = 41000  # trace i is simulated from SEED + i
REFERENCE_PARTICLES = 100_000
PARTICLES = (100, 200, 1000, 10_000)
ETAS = (8, 16, 32, 64)  # refined and paper
TIMING_ROUNDS = 5


def arguments(ap) -> None:
    ap.add_argument("--traces", type=int, default=20)
    ap.add_argument("--steps", type=int, default=80)
    ap.add_argument("--out", type=Path, default=OUT, help="markdown file; the .json.gz goes beside it")


def methods() -> list[tuple[str, dict]]:
    """(label, how to run it) of every method, in table order."""
    out = [(f"PF {n}", dict(kind="pf", n=n)) for n in PARTICLES]
    out += [("EKF", dict(kind="kf", method="ekf")), ("UKF", dict(kind="kf", method="ukf"))]
    out += [
        (f"ux {mode} η={eta}", dict(kind="ux", eta=eta, mode=mode)) for mode in ("refined", "paper") for eta in ETAS
    ]
    return out


def run_method(lib, how: dict, z, seed: int):
    if how["kind"] == "pf":
        return lib.run_pf(SYSTEM, z, how["n"], seed=seed, particles=False)
    if how["kind"] == "kf":
        return lib.run_kf(SYSTEM, z, how["method"])
    return lib.run_ux(SYSTEM, z, how["eta"], mode=how["mode"], atoms=False)


def rmse(a, b) -> float:
    """Root mean squared Euclidean distance between rows of a and b."""
    return float(np.sqrt(np.mean(np.sum((np.asarray(a) - np.asarray(b)) ** 2, axis=1))))


def cpu_per_step(lib, how: dict, z) -> float:
    """Thread CPU µs per step of one whole-trace call."""
    return run_method(lib, how, z, seed=1).cpu_ns / len(z) / 1e3


def score_traces(lib, model, table, traces: int, steps: int, started: float) -> tuple[dict, np.ndarray]:
    """Each method's per-trace scores ({label: {position, velocity, to_reference}}, the reference PF first)
    and the first trace's observations."""
    methods_ = [("reference PF", None), *table]
    scores = {label: dict(position=[], velocity=[], to_reference=[]) for label, _ in methods_}
    first_z = None
    for i in range(traces):
        x, z = joint_systems.simulate(model, steps, SEED + i)
        first_z = z if i == 0 else first_z
        ref = lib.run_pf(SYSTEM, z, REFERENCE_PARTICLES, seed=SEED + i, particles=False).mean
        for label, how in methods_:
            mean = ref if how is None else run_method(lib, how, z, seed=7 * (SEED + i) + 1).mean
            scores[label]["position"].append(rmse(mean[:, :2], x[:, :2]))
            scores[label]["velocity"].append(rmse(mean[:, 2:], x[:, 2:]))
            scores[label]["to_reference"].append(rmse(mean[:, :2], ref[:, :2]))
        print(f"[{time.monotonic() - started:6.1f} s] trace {i + 1}/{traces}", file=sys.stderr, flush=True)
    return scores, first_z


def time_methods(lib, table, z) -> dict:
    """{label: median CPU µs per step} over TIMING_ROUNDS rounds in rotating order, one call of every method
    a round."""
    cpu = {label: [] for label, _ in table}
    for _ in range(TIMING_ROUNDS):
        for label, how in table:
            cpu[label].append(cpu_per_step(lib, how, z))
    return {label: statistics.median(times) for label, times in cpu.items()}


def run(args) -> dict:
    started = time.monotonic()
    if args.traces < 1 or args.steps < 2:
        raise SystemExit("uxbench joint_bearings: at least 1 trace of 2 steps")
    env = environment.block({"traces": args.traces, "steps": args.steps})
    lib, model = joint_native.load(), joint_systems.get(SYSTEM)
    table = methods()
    scores, first_z = score_traces(lib, model, table, args.traces, args.steps, started)
    cpu = time_methods(lib, table, first_z)
    rows = [
        dict(
            method=label,
            position=float(np.mean(s["position"])),
            velocity=float(np.mean(s["velocity"])),
            to_reference=float(np.mean(s["to_reference"])),
            cpu_us=cpu.get(label),  # None for the reference PF, which is not timed
        )
        for label, s in scores.items()
    ]
    record = dict(meta={**env, "command": args.command, "wall_s": time.monotonic() - started}, rows=rows)
    return dict(markdown=markdown(record), record=record)


def markdown(record: dict) -> str:
    meta, rows = record["meta"], record["rows"]
    size = meta["sizes"]
    lines = [
        "# The 4-D bearings system: joint ux filter, particle filter, EKF, UKF",
        "",
        f"`python -m uxbench joint_bearings` at commit {meta['commit']} ({meta['cpu']}, {meta['cpus']} CPUs, load "
        f"average {float(meta['load_avg']):.2f}): {size['traces']} traces × {size['steps']} steps of `bearings` at its table "
        f"defaults (seeds {SEED} + i), every method in C (libuxbench.so). RMSE against the simulated state, per "
        f"trace over every step, then the mean over traces; \"to reference\": the position RMSE of the posterior "
        f"mean against a {REFERENCE_PARTICLES:,}-particle PF's on the same trace. CPU: thread time per step of one "
        f"whole-trace call, median of {TIMING_ROUNDS} rotating rounds on the first trace.",
        "",
        "| method | position RMSE | velocity RMSE | position to reference | CPU µs/step |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        cpu = "—" if r["cpu_us"] is None else f"{r['cpu_us']:,.1f}"
        lines.append(f"| {r['method']} | {r['position']:.3f} | {r['velocity']:.3f} | {r['to_reference']:.3f} | {cpu} |")
    return "\n".join(lines) + "\n"


report = write_study  # the markdown at --out, the record beside it
