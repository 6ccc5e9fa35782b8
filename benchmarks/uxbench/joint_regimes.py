"""Joint regimes: the cell filter (the joint systems' default) against the exact answer off its benchmark
settings — noise ratios, wide and offset priors, misspecified data — and whether its status says so when wrong.

The 2-D joint systems (pendulum, cvrange), where the grid filter (`baselines/joint_grid.py`, GRID_POINTS² nodes)
is the exact answer, each on SEEDS traces of STEPS steps per cell, with the EKF and UKF (c/src/joint_kf.c) beside
the cells (their status: the cells' own gate and consistency test on their innovations, `rival_status.py`):

- **noise** (9 cells): the table's q scaled by Q_SCALES and r by R_SCALES, data simulated from those parameters;
- **prior** (4 cells): the filter's prior sd PRIOR_WIDTHS × the table's, its mean on the trace's true x₀
  (centred) or OFFSET of those sd away from it (offset); the data from the table's model;
- **misspecified** (3 cells, the table's model): the reading at the half moved OUTLIER_R noise sd (outlier);
  every reading from the half on moved SHIFT_R noise sd (level shift); STUCK readings from the half on equal to
  the one at the half (stuck).

Per step and state component, as `regimes` scores the scalar filter (`regime_metrics`): mean error
|m − m*| / √v* and variance ratio v / v* of the marginals; a step is **wrong** when some component is (mean error
> 0.5 or ratio outside 0.5–2) and **silent** when it is wrong with status OK. At η of ETAS; the grid at
twice GRID_POINTS per axis on each cell's first seed says how exact the grid is, and a cell where it is not exact enough
(REFERENCE_SD, REFERENCE_VAR) is shown but not counted.

    .venv/bin/python -m uxbench joint_regimes               # ~10 minutes
    .venv/bin/python -m uxbench joint_regimes --seeds 1 --out /tmp/r.md

Writes benchmarks/results/joint_regimes.md and joint_regimes.json.gz beside it.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from uxemu import joint_systems, native
from uxemu.bayes import Status
from uxemu.laws import Normal

from . import environment, joint_native
from .baselines.joint_grid import joint_grid_filter
from .regime_metrics import WRONG_MEAN_SD, WRONG_VAR_RATIO, Score, combine, score_run, var_range
from .report import RESULTS, markdown_table, write_study
from .rival_status import gated_statuses

OUT = RESULTS / "joint_regimes.md"
SYSTEMS = ("pendulum", "cvrange")  # the 2-D systems: the grid filter is their exact answer
STEPS, SEEDS, SEED = 200, 3, 73000
ETAS = (4, 16)
RIVALS = ("ekf", "ukf")  # scored beside the cells, their statuses from the cells' tests (rival_status)
Q_SCALES = (0.1, 1.0, 10.0)  # × the table's q (a variance intensity)
R_SCALES = (0.3, 1.0, 3.0)  # × the table's r (a standard deviation)
PRIOR_WIDTHS = (1.0, 5.0)
OFFSET = 1.5  # prior sd between the offset prior's mean and the true x0
OUTLIER_R, SHIFT_R, STUCK = 20.0, 3.0, 30
GRID_POINTS = 256  # its check: twice as many per axis
# A cell is judged only where the grid is exact enough to judge it: the check's nodes move the exact mean by at
# most REFERENCE_SD of its sd and each variance by at most REFERENCE_VAR of itself (on the cell's first seed).
REFERENCE_SD, REFERENCE_VAR = 0.1, 0.1


def arguments(ap) -> None:
    ap.add_argument("--seeds", type=int, default=SEEDS, help="traces per cell")
    ap.add_argument("--steps", type=int, default=STEPS, help="steps per trace")
    ap.add_argument("--grid", type=int, default=GRID_POINTS, help="the exact grid's nodes per axis (its check: twice)")
    ap.add_argument("--systems", nargs="+", choices=SYSTEMS, default=list(SYSTEMS))
    ap.add_argument("--out", type=Path, default=OUT, help="markdown file; the .json.gz goes beside it")


# -- the cells ------------------------------------------------------------------------------------------------
def cells() -> list[dict]:
    """Every cell of one system, in table order."""
    out = [dict(group="noise", q=q, r=r, label=f"q ×{q:g}, r ×{r:g}") for q in Q_SCALES for r in R_SCALES]
    out += [
        dict(group="prior", width=w, placement=p, label=f"prior sd ×{w:g}, {p}")
        for w in PRIOR_WIDTHS
        for p in ("centred", "offset")
    ]
    out += [dict(group="misspecified", data=d, label=d) for d in ("outlier", "level shift", "stuck")]
    return out


def model_of(name: str, cell: dict):
    """The filter's model: the table's with the cell's noise scales (the data's model too)."""
    spec = joint_systems.spec(name)
    params = dict(zip(spec.param_names, joint_systems.get(name).params))
    if cell["group"] == "noise":
        params["q"], params["r"] = params["q"] * cell["q"], params["r"] * cell["r"]
    return joint_systems.get(name, **params)


def trace(name: str, cell: dict, seed: int, steps: int = STEPS):
    """(the filter's model with its prior, x, z) of one cell on one seed."""
    model = model_of(name, cell)
    x, z = joint_systems.simulate(model, steps, SEED + 1000 * joint_systems.spec(name).id + seed)
    if cell["group"] == "prior":
        sd = np.sqrt([law.var() for law in model.prior]) * cell["width"]
        mean = x[0] + (OFFSET * sd if cell["placement"] == "offset" else 0.0)
        model = dataclasses.replace(model, prior=tuple(Normal(float(m), float(s)) for m, s in zip(mean, sd)))
    elif cell["group"] == "misspecified":
        z = misspecified(model, x, z, cell["data"])
    return model, x, z


def misspecified(model, x, z, data: str) -> np.ndarray:
    z, half = np.array(z, dtype=np.float64), len(z) // 2
    r = np.asarray(model.loc_scale(x[[half]])[1])[0]
    if data == "outlier":
        z[half] = z[half] + OUTLIER_R * r
    elif data == "level shift":
        z[half:] = z[half:] + SHIFT_R * r
    else:
        z[half : half + STUCK] = z[half]
    return z


# -- scoring --------------------------------------------------------------------------------------------------
def score(run, exact) -> Score:
    """A joint run against the grid's, on each component's marginal (regime_metrics.score_run)."""
    marginals = lambda cov: np.diagonal(cov, axis1=1, axis2=2)  # noqa: E731
    grid = SimpleNamespace(mean=exact.mean, var=marginals(exact.cov), log_likelihood=float(np.sum(exact.log_evidence)))
    return score_run(run.mean, marginals(run.cov), run.status, float(run.log_likelihood), grid)


def grid_check(model, z, exact, points: int) -> dict:
    """How far `points`² nodes move the exact answer: the largest mean change in its sd, |variance ratio − 1|."""
    fine = joint_grid_filter(model, z, points=points)
    ev = np.diagonal(fine.cov, axis1=1, axis2=2)
    return dict(
        mean_sd=float(np.max(np.abs(exact.mean - fine.mean) / np.sqrt(ev))),
        var_ratio=float(np.max(np.abs(np.diagonal(exact.cov, axis1=1, axis2=2) / ev - 1.0))),
    )


def rival_run(name: str, model, z, prior, method: str):
    """The EKF's or UKF's run (c/src/joint_kf.c) as a cell run reads: the statuses the cells' own tests give
    its normalised innovations squared (OUTLIER, INCONSISTENT), as a gated EKF that monitors them would say."""
    kf = joint_native.load().run_kf(name, z, method, params=list(model.params), prior=prior, log_evidence=True)
    status = gated_statuses(kf.nis, model.dim_obs)
    return SimpleNamespace(mean=kf.mean, cov=kf.cov, status=status, log_likelihood=float(np.sum(kf.log_evidence)))


def run_cell(nat, name: str, cell: dict, seeds: int, steps: int = STEPS, grid: int = GRID_POINTS) -> dict:
    spec = joint_systems.spec(name)
    scores = {str(m): [] for m in ETAS + RIVALS}
    check = None
    for seed in range(seeds):
        model, _, z = trace(name, cell, seed, steps)
        exact = joint_grid_filter(model, z, points=grid)
        prior = [("gaussian", law.mean(), float(np.sqrt(law.var()))) for law in model.prior]
        for eta in ETAS:
            run = nat.run_joint_cells(spec.id, z, eta, params=list(model.params), prior=prior)
            scores[str(eta)].append(score(run, exact))
        for method in RIVALS:
            scores[method].append(score(rival_run(name, model, z, prior, method), exact))
        if seed == 0:
            check = grid_check(model, z, exact, 2 * grid)
    return dict(cell=cell, grid_check=check, records={m: combine(s).as_dict() for m, s in scores.items()})


def run(args) -> dict:
    started = time.monotonic()
    if args.seeds < 1 or args.steps < 2 or args.grid < 8:
        raise SystemExit("uxbench joint_regimes: at least 1 seed of 2 steps, and a grid of 8 nodes per axis")
    nat = native.load()
    sizes = dict(seeds=args.seeds, steps=args.steps, etas=ETAS, grid=args.grid, check=2 * args.grid)
    env = environment.block(sizes)
    systems = {}
    for name in args.systems:
        systems[name] = []
        for c in cells():
            systems[name].append(run_cell(nat, name, c, args.seeds, args.steps, args.grid))
            print(f"[{time.monotonic() - started:6.0f} s] {name} {c['label']}", file=sys.stderr, flush=True)
    meta = {**env, "command": args.command, "wall_s": time.monotonic() - started}
    record = dict(meta=meta, systems=systems)
    return dict(markdown=markdown(record), record=record)


def report(results: dict, args) -> None:
    write_study(results, args)


# -- the report -----------------------------------------------------------------------------------------------
def rows(results: list[dict]) -> list[list[str]]:
    out = []
    for r in results:
        c = r["grid_check"]
        for method, s in r["records"].items():
            flagged = ", ".join(f"{Status(int(k)).name} {n}" for k, n in s["statuses"].items()) or "—"
            out.append(
                [
                    r["cell"]["label"] + ("" if judged(r) else " (not judged)"),
                    f"{c['mean_sd']:.2g} / {c['var_ratio']:.2g}",
                    filter_name(method),
                    f"{s['worst_sd']:.3g}",
                    var_range(s),
                    f"{s['log_l_gap']:+.3g}",
                    str(s["wrong"]),
                    f"**{s['silent']}**" if s["silent"] else "0",
                    flagged,
                ]
            )
    return out


def filter_name(method: str) -> str:
    return f"cells η = {method}" if method.isdigit() else method.upper()


def judged(result: dict) -> bool:
    """Whether the grid is exact enough on this cell to judge the filter by it."""
    c = result["grid_check"]
    return c["mean_sd"] <= REFERENCE_SD and c["var_ratio"] <= REFERENCE_VAR


def headline(record: dict) -> list[list[str]]:
    out = []
    for name, results in record["systems"].items():
        fit = [r for r in results if judged(r)]
        unjudged = "; ".join(r["cell"]["label"] for r in results if not judged(r)) or "none"
        for method in [str(m) for m in ETAS + RIVALS]:
            silent = sum(r["records"][method]["silent"] for r in fit)
            wrong = sum(r["records"][method]["wrong"] for r in fit)
            steps = sum(r["records"][method]["steps"] for r in fit)
            worst = max(fit, key=lambda r: r["records"][method]["silent"])["cell"]["label"] if fit and silent else "—"
            row = [name, filter_name(method), f"{len(fit)}/{len(results)}", str(steps), str(wrong), str(silent), worst]
            out.append(row + [unjudged])
    return out


def markdown(record: dict) -> str:
    meta = record["meta"]
    lo, hi = WRONG_VAR_RATIO
    parts = [
        "# Joint regimes: the cell filter against the grid filter off its benchmark settings",
        "",
        f"`{meta.get('command', '.venv/bin/python -m uxbench joint_regimes')}` (`uxbench/joint_regimes.py`). "
        + environment.line(meta),
        "",
        f"Cells of {meta['sizes']['steps']} steps × {meta['sizes']['seeds']} seeds; exact: the grid filter at "
        f"{meta['sizes']['grid']}² nodes. "
        f"A step is wrong when a component's mean is more than {WRONG_MEAN_SD} exact sd off or its variance "
        f"outside {lo}–{hi}× the exact; silent when wrong with status OK. log L gap: filter − exact, the largest "
        "over the seeds. Noise cells scale the table's q and r (data and filter alike); prior cells widen the "
        f"filter's prior and centre it on the true x₀ or {OFFSET:g} of its sd away; misspecified cells move one "
        f"reading {OUTLIER_R:g} noise sd (outlier), every reading from the half {SHIFT_R:g} sd (level shift), or "
        f"repeat one reading {STUCK} times (stuck). The EKF's and UKF's statuses are the cells' own tests on "
        "their normalised innovations squared: OUTLIER above the 5-sd gate, INCONSISTENT while the running mean "
        "of those ratios is above 3 (docs/semantics.md, \"Consistency\"), as a gated EKF that monitors its "
        "innovations would report.",
        "",
        "## Headline",
        "",
        f"Counted over the cells the grid can judge ({meta['sizes']['check']}² nodes move the exact mean by at most "
        f"{REFERENCE_SD:g} sd and each variance by {REFERENCE_VAR:.0%}); the others' rows are below, marked.",
        "",
        markdown_table(
            ["system", "filter", "cells judged", "steps", "wrong", "silent", "most silent steps", "not judged (grid)"],
            headline(record),
        ),
        "",
    ]
    for name, results in record["systems"].items():
        checks = [r["grid_check"] for r in results if r["grid_check"] is not None]
        parts += [
            f"## {name}",
            "",
            f"The grid at {record['meta']['sizes']['check']}² nodes moves the exact mean by at most "
            f"{max(c['mean_sd'] for c in checks):.2g} sd and its variance by "
            f"{max(c['var_ratio'] for c in checks):.2g} (each cell's first seed; per cell in the column "
            "\"grid moved\": where it is not small against the filter's errors, the cell's row measures the grid too).",
            "",
            markdown_table(
                [
                    "cell",
                    "grid moved (sd / var)",
                    "filter",
                    "worst sd",
                    "var ratio",
                    "log L gap",
                    "wrong",
                    "silent",
                    "flagged",
                ],
                rows(results),
            ),
            "",
        ]
    return "\n".join(parts)
