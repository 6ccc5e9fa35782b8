"""Why GSS at η = 16 is not fitted: its log-likelihood in θ has cliffs where the filter loses a mode.

Along σ_n (σ_v held at 3.08) on trace 0 of the evidence benchmark's recovery traces (500 steps), the ux
filter's log-likelihood (kernel; refined mode with update and density evidence, and mixture mode) minus the
grid filter's, at η = 16, 32 and 64; and, at the cliff, the step that makes it: where the truth is, where
the grid filter's posterior is and how much of its mass lies on the truth's side of 0, and where the ux
posterior is; then what is left in mixture mode, which keeps that mode.

    .venv/bin/python benchmarks/gss_cliffs.py          # ~3 min; writes benchmarks/results/gss_cliffs.md
"""
from __future__ import annotations

import os
import platform
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from evidence import SEED  # noqa: E402
from uxbench.baselines.grid import grid_filter  # noqa: E402
from uxbench.report import commit as checkout_commit  # noqa: E402
from uxemu import fit, native, systems, traces  # noqa: E402

SIGMA_V = 3.08  # the exact likelihood's estimate on this trace (results/evidence.md)
SIGMA_N = np.round(np.linspace(0.70, 1.10, 21), 3)
RUNS = [(16, "update", "refined"), (16, "density", "refined"), (32, "update", "refined"),
        (32, "density", "refined"), (64, "update", "refined"), (16, "update", "mixture"), (32, "update", "mixture")]
GRID_POINTS = 601


def main() -> None:
    t0, commit = time.time(), checkout_commit()
    spec = systems.spec("gss")
    trace = traces.simulate_many(systems.get("gss"), 3, 500, SEED + 1)[0]
    iv, i_n = spec.param_names.index("sigma_v"), spec.param_names.index("sigma_n")
    logliks = {run: fit.LogLikelihood("gss", trace, run[0], run[2], evidence=run[1]) for run in RUNS}
    rows, worst = [], None
    for sn in SIGMA_N:
        params = list(spec.defaults)
        params[iv], params[i_n] = SIGMA_V, float(sn)
        grid = grid_filter(systems.from_param_vector(spec.id, tuple(params)), trace, n_points=GRID_POINTS)
        gaps = [f(params) - grid.log_likelihood for f in logliks.values()]
        rows.append((sn, grid.log_likelihood, gaps))
        if worst is None or gaps[0] < worst[1]:
            worst = (sn, gaps[0], params, grid)
    sn, gap, params, grid = worst
    run = native.load().run_filter(spec.id, trace.k, trace.u, trace.z, 16, params=tuple(params), atoms=False)
    step_gap = np.asarray(run.log_evidence) - grid.log_evidence
    k = int(np.argmin(step_gap))
    side = np.sign(trace.x[k])
    lines = ["# GSS at η = 16: cliffs in the log-likelihood where the filter loses a mode", "",
             f"Measured on {platform.machine()}, load average {os.getloadavg()[0]:.2f}, commit "
             f"{commit}, {time.time() - t0:.0f} s. Regenerate: `.venv/bin/python benchmarks/gss_cliffs.py`.", "",
             f"Trace 0 of `benchmarks/evidence.py`'s recovery traces (gss, 500 steps, seed {SEED + 1}); σ_v = "
             f"{SIGMA_V}; log L of the ux filter (kernel likelihood, native C; refined mode unless the column "
             "says mixture) minus the grid filter's "
             f"({GRID_POINTS} points), in nats, for the whole trace.", "",
             "| σ_n | grid log L | " + " | ".join(f"η = {e} {ev if m == 'refined' else m}" for e, ev, m in RUNS) + " |",
             "|---|---|" + "---|" * len(RUNS)]
    for s, g, gaps in rows:
        lines.append(f"| {s:.2f} | {g:.3f} | " + " | ".join(f"{d:+.3f}" for d in gaps) + " |")
    far = grid.weights[k - 2][np.sign(grid.nodes[k - 2]) == side].sum()
    lines += ["", f"The largest cliff at η = 16 (update evidence) is at σ_n = {sn:.2f} ({gap:+.1f} nats). Its worst "
              f"step is k = {k} ({step_gap[k]:+.1f} nats): z = {trace.z[k]:.2f}, so |x| = √(20 z) ≈ "
              f"{np.sqrt(20 * max(trace.z[k], 0)):.1f}; the truth is x = {trace.x[k]:.2f}, the grid filter's mean "
              f"{grid.mean[k]:.2f} (sd {np.sqrt(grid.var[k]):.2f}), the ux filter's {run.mean[k]:.2f}. Two steps "
              f"earlier the grid filter still held {far:.3f} of its mass on the truth's side of 0 and the ux "
              f"filter's mean was {run.mean[k - 2]:.2f} (grid {grid.mean[k - 2]:.2f}): the ux filter dropped that "
              "mode, because its predictive points — posterior atoms through f plus the process noise's η "
              "atoms, which end near ±2σ_v — did not reach where the likelihood put it.", ""]
    for eta in (16, 32):
        col = RUNS.index((eta, "update", "mixture"))
        mix = np.array([gaps[col] for _, _, gaps in rows])
        mixed = native.load().run_filter(spec.id, trace.k, trace.u, trace.z, eta, mode="mixture", params=tuple(params),
                                         atoms=False)
        lines.append(f"Mixture mode at η = {eta} (docs/semantics.md, \"Filter\") keeps that mode: at k = {k} its mean "
                     f"is {mixed.mean[k]:.2f}, and its gap to the grid stays within {mix.min():+.2f} … {mix.max():+.2f} "
                     f"nats along σ_n. What is left is jitter: neighbouring σ_n values ({SIGMA_N[1] - SIGMA_N[0]:.2f} "
                     f"apart) differ in the gap by up to {np.abs(np.diff(mix)).max():.2f} nats, while the exact log L "
                     f"changes by at most {np.abs(np.diff([g for _, g, _ in rows])).max():.2f} nats over such a step.")
    lines += ["", "The jitter is on the scale `uxemu.fit` reads standard errors from (log L falling by 0.5–4 nats); "
              "its roughness check decides whether the standard errors hold (gss fits at η = 16: "
              "benchmarks/results/evidence.md).", ""]
    out = HERE / "results" / "gss_cliffs.md"
    out.write_text("\n".join(lines))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
