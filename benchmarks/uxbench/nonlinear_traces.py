"""The scalar filter on many traces of the nonlinear systems against the grid filter: how many steps are silently
wrong (the regime map's measure) where the map's three traces per cell are too few to say.

For each system of SYSTEMS at its table defaults, `--traces` traces of STEPS steps (`simulate` with
`default_rng(SEED + i)`), sv's same traces with the reading at the half moved by OUTLIER sd of the trace's
readings, and gss off its defaults (VARIANTS: precise sensors, a quiet state; fewer traces, a finer grid);
each through the C core in each mode of MODES at each η of ETAS, scored step by step against the
point-mass grid filter of the model on the same data (uxbench.regimes' grid size and tails) as
uxbench.regime_metrics scores the regime map.

    .venv/bin/python -m uxbench nonlinear_traces                 # 30 traces per set, 10 per variant (~4 minutes)
    .venv/bin/python -m uxbench nonlinear_traces --traces 3 --out /tmp/n.md

Writes benchmarks/results/nonlinear_traces.md and nonlinear_traces.json.gz beside it.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from uxemu import native, systems
from uxemu.traces import Trace, simulate

from . import environment
from . import regime_metrics as metrics
from .baselines.grid import grid_filter
from .regimes import GRID_POINTS, GRID_TAIL, half, outlier
from .report import RESULTS, markdown_table, write_study

OUT = RESULTS / "nonlinear_traces.md"
SYSTEMS = ("gss", "sv")
MODES = ("refined", "mixture")
ETAS = (4, 8, 16, 32, 64)
STEPS = 200
SEED = 5000
OUTLIER = 20.0  # × the trace's reading sd, added to sv's reading at the half
# gss off its defaults (model and data), each (label, what, parameters, traces at most, grid points): a sensor 5 and
# 20 times more precise and a state noise ten times quieter; fewer traces, a finer grid (at σ_n = 1/5 4001 points give
# 8001's log L to 0.01 nats; at σ_n = 1/20 16001's means and variances to 1e-9 on the first trace, at σ_v = 0.3
# 8001's to 1e-13)
VARIANTS = (
    ("σ_n = 1/5", "its sensor 5× more precise", dict(sigma_n=1.0 / 5.0), 10, 4001),
    ("σ_n = 1/20", "its sensor 20× more precise", dict(sigma_n=1.0 / 20.0), 10, 4001),
    ("σ_v = 0.3", "its state noise 10× quieter", dict(sigma_v=0.3), 10, 4001),
)


def arguments(ap) -> None:
    ap.add_argument("--traces", type=int, default=30, help="traces per set")
    ap.add_argument("--out", type=Path, default=OUT, help="markdown file; the .json.gz goes beside it")


def trace_sets(traces: int) -> dict[str, tuple]:
    """label → (model, traces, grid points): each system's own traces, sv's with one reading moved, and gss's
    with a precise sensor."""
    sets = {}
    for name in SYSTEMS:
        model = systems.get(name)
        drawn = [simulate(model, STEPS, np.random.default_rng(SEED + i)) for i in range(traces)]
        sets[name] = (model, drawn, GRID_POINTS)
    moved = [Trace(tr.k, tr.u, outlier(tr.z, OUTLIER * float(np.std(tr.z))), tr.x) for tr in sets["sv"][1]]
    sets["sv outlier"] = (sets["sv"][0], moved, GRID_POINTS)
    for label, _, params, most, points in VARIANTS:
        model = systems.get("gss", **params)
        drawn = [simulate(model, STEPS, np.random.default_rng(SEED + i)) for i in range(min(traces, most))]
        sets[f"gss {label}"] = (model, drawn, points)
    return sets


def score_set(nat, model, traces: list[Trace], points: int) -> dict:
    """mode → η → the runs' combined score (regime_metrics.combine) against the grid filter."""
    exact = [grid_filter(model, tr, n_points=points, tail=GRID_TAIL) for tr in traces]

    def run_filter(tr, eta, mode):
        return nat.run_filter(model.system_id, tr.k, tr.u, tr.z, eta=eta, mode=mode, params=model.params, atoms=False)

    return metrics.score_modes(run_filter, traces, exact, MODES, ETAS)


def run(args) -> dict:
    started = time.monotonic()
    if args.traces < 1:
        raise SystemExit("uxbench nonlinear_traces: at least 1 trace")
    nat = native.load()
    env = environment.block({"traces": args.traces, "steps": STEPS, "seed": SEED, "etas": ETAS, "outlier": OUTLIER})
    sets = {label: score_set(nat, *found) for label, found in trace_sets(args.traces).items()}
    record = dict(meta={**env, "command": args.command, "seconds": time.monotonic() - started}, sets=sets)
    return dict(markdown=markdown(record), record=record)


def report(results: dict, args) -> None:
    write_study(results, args)


# -- the report -----------------------------------------------------------------------------------------------
def rows(record: dict) -> list[list[str]]:
    def columns(cells: list[dict]) -> list[str]:
        at16 = cells[ETAS.index(16)]
        return [f"{c['silent']} / {c['wrong']}" for c in cells] + [f"{at16['worst_sd']:.3g}", metrics.var_range(at16)]

    return metrics.mode_rows(record["sets"], ETAS, columns)


def markdown(record: dict) -> str:
    meta = record["meta"]
    traces = meta["sizes"]["traces"]
    header = ["traces", "mode"] + [f"η = {eta}: silent / wrong" for eta in ETAS]
    header += ["η = 16: worst mean error (sd)", "η = 16: variance ratio"]
    variants = "; ".join(
        f"\"gss {label}\": gss with {what} (model and data), {most} traces at most, against a grid of {points} points"
        for label, what, _, most, points in VARIANTS
    )
    return "\n".join(
        [
            "# The nonlinear systems on many traces, against the grid filter",
            "",
            f"`{meta.get('command', 'python -m uxbench nonlinear_traces')}`. {environment.describe(meta)}.",
            "",
            f"{traces} traces of {STEPS} steps per set (`simulate`, `default_rng({SEED} + i)`), table defaults; "
            f"\"sv outlier\": sv's traces with the reading at step {half(STEPS)} moved by {OUTLIER:g} sd of the "
            f"trace's readings; {variants}. The C core against the "
            f"grid filter ({GRID_POINTS} points, tails cut at {GRID_TAIL:g}), scored as the regime map scores (`uxbench.regime_metrics`): a step is wrong when its "
            f"mean is more than {metrics.WRONG_MEAN_SD:g} exact sd off or its variance outside "
            f"{metrics.WRONG_VAR_RATIO[0]:g}–{metrics.WRONG_VAR_RATIO[1]:g}× the exact one, silent when it is "
            "wrong and its status is OK. Counts are steps summed over the traces.",
            "",
            markdown_table(header, rows(record)),
            "",
        ]
    )
