"""The cell filter's innovation gate: how often it flags the model's own data, how its test ratio compares with
a calibrated predictive's, whether it flags a reading moved far off, and what dropping that reading buys.

On the traces `joint_fits` fits (TRACES per joint system, joint_fits.STEPS steps, the table's defaults), through
the C core at each η of ETAS:

- **own data**: readings, OUTLIER steps (a Gaussian predictive fails the 5-sd gate on 5.7e-7 of readings), the
  share of test ratios above 3² (2.7e-3 for a Gaussian predictive) and the mean ratio with its standard error
  (the normalised innovation squared: dim_obs = 1 when the predictive's mean and variance are right); the
  EKF's and UKF's normalised innovations squared beside them (RIVALS);
- **a moved reading**: at step STEPS/2 of each trace the reading moved by MOVES noise sd (the kernel's scale
  at the true state). Per size of move: how many of those readings were flagged, and over that step and the
  WINDOW after it the largest distance of the posterior mean from the clean trace's run, in the clean run's
  sd (the largest over the state's components), when the reading is weighed (the default) and when it is
  dropped (`gate_outliers`). A run the filter refuses (a transition that overflows) is counted apart.

    .venv/bin/python -m uxbench joint_gate                 # 50 traces per system (~1 minute)
    .venv/bin/python -m uxbench joint_gate --traces 3 --out /tmp/g.md

Writes benchmarks/results/joint_gate.md and joint_gate.json.gz beside it.
"""

from __future__ import annotations

import math
import statistics
import time
from pathlib import Path

import numpy as np

from uxemu import joint_systems, native
from uxemu.bayes import Status
from uxemu.filter import NIS_LIMIT, OUTLIER_GATE

from . import environment, joint_native
from .joint_fits import STEPS, trace_seed
from .report import RESULTS, markdown_table, write_study
from .rival_status import gated_statuses

OUT = RESULTS / "joint_gate.md"
ETAS = (4, 16)  # the smallest the studies run, and the default
RIVALS = ("ekf", "ukf")  # the Gaussian filters whose innovations are set beside the cells' (c/src/joint_kf.c)
MOVES = (6.0, 10.0, 30.0)  # noise sd a reading is moved by
WINDOW = 10  # steps after the moved reading over which the runs are compared
LOCKED_OUT = 3  # a dropped run that drops more readings than this has lost its data, not one reading
ATOMS, ATOMS_ETA = "atoms", 16  # the joint atom filter (refined mode), its gate on the same readings
MIRROR_TRACE = 120  # benchmarks/results/joint_cells_bearings200.md: the cells at η = 4 follow the mirror image
GAUSSIAN_OUTLIER = math.erfc(OUTLIER_GATE / math.sqrt(2.0))  # P(|N(0,1)| > gate)
GAUSSIAN_3SD = math.erfc(3.0 / math.sqrt(2.0))


def arguments(ap) -> None:
    ap.add_argument("--traces", type=int, default=50, help="traces per system")
    ap.add_argument("--out", type=Path, default=OUT, help="markdown file; the .json.gz goes beside it")


def own_data(nat, name: str, zs: list, method) -> dict:
    """Counts over every reading of the system's own traces `zs`: the cells at η = `method` (an int), the atom
    filter's test ratio (`method` ATOMS: refined, η = ATOMS_ETA), or the EKF's or UKF's normalised innovation
    squared (`method` 'ekf' or 'ukf'), which a 5-sd gate would test. INCONSISTENT: the filters' own statuses;
    the Gaussian filters' as the same test would give them (docs/semantics.md, "Consistency")."""
    ratios, inconsistent = [], 0
    for z in zs:
        if isinstance(method, int):
            run = nat.run_joint_cells(joint_systems.spec(name).id, z, method)
        elif method == ATOMS:
            run = nat.run_joint_filter(joint_systems.spec(name).id, z, ATOMS_ETA, "refined")
        else:
            nis = joint_native.load().run_kf(name, z, method, log_evidence=True).nis
            ratios.extend(nis.tolist())
            inconsistent += int(np.sum(gated_statuses(nis, z.shape[1] if z.ndim > 1 else 1) == Status.INCONSISTENT))
            continue
        ratios.extend(run.test_ratio.tolist())
        inconsistent += int(np.sum(run.status == Status.INCONSISTENT))
    r = np.array(ratios)
    finite = r[np.isfinite(r)]
    return dict(
        readings=int(r.size),
        outliers=int(np.sum(finite > OUTLIER_GATE * OUTLIER_GATE)),  # the cells' OUTLIER steps
        above_3sd=int(np.sum(finite > 9.0)),
        mean_ratio=float(finite.mean()),
        se_ratio=float(finite.std(ddof=1) / math.sqrt(finite.size)),
        nan=int(r.size - finite.size),
        inconsistent=inconsistent,
    )


def moved_readings(nat, name: str, i: int, eta: int) -> dict:
    """Trace i with the reading at its half moved by each of MOVES noise sd: per move, flagged?, and each run's
    distance from the clean run over the window (None for a run the filter refuses)."""
    spec, model = joint_systems.spec(name), joint_systems.get(name)
    x, clean_z = joint_systems.simulate(model, STEPS[name], trace_seed(name, i))
    k = STEPS[name] // 2
    clean = nat.run_joint_cells(spec.id, clean_z, eta)
    by_move = {}
    for move in MOVES:
        z = np.array(clean_z, dtype=np.float64)
        z[k] = z[k] + move * np.asarray(model.loc_scale(x[[k]])[1])[0]
        by_move[move] = moved_runs(nat, spec.id, z, eta, clean, k, i)
    return by_move


def moved_runs(nat, system_id: int, z, eta: int, clean, k: int, i: int) -> dict:
    """The moved trace weighed and dropped: flagged?, each run's distance, the readings the dropping run dropped."""
    out = dict(trace=i, flagged=None, weighed=None, dropped=None, dropped_steps=None)
    for key, gate_outliers in (("weighed", False), ("dropped", True)):
        try:
            run = nat.run_joint_cells(system_id, z, eta, gate_outliers=gate_outliers)
        except (native.NativeError, ValueError):
            continue
        out["flagged"] = bool(run.status[k] == Status.OUTLIER)
        out[key] = distance(run, clean, k)
        if gate_outliers:  # more than the moved one: the gate locked the filter out of its data
            out["dropped_steps"] = int(np.sum(run.status == Status.OUTLIER))
    return out


def moved_table(nat, name: str, eta: int, traces: int) -> dict:
    """{move: one result per trace}: each trace simulated and run clean once for every move."""
    per_trace = [moved_readings(nat, name, i, eta) for i in range(traces)]
    return {str(m): [t[m] for t in per_trace] for m in MOVES}


def distance(run, clean, k: int) -> float:
    """The largest |mean − clean mean| / clean sd over the components and the steps k … k + WINDOW."""
    end = min(k + WINDOW + 1, clean.mean.shape[0])
    sd = np.sqrt(np.diagonal(clean.cov[k:end], axis1=1, axis2=2))
    return float(np.max(np.abs(run.mean[k:end] - clean.mean[k:end]) / sd))


def mirror_trace(nat) -> dict:
    """Bearings trace MIRROR_TRACE of `joint_cells --systems bearings` at η = 4, where the cells take the mirror
    image of the target when it crosses x = 0: the steps flagged, and the position error at the end, weighed and
    dropped."""
    from . import joint_cells

    spec, model = joint_systems.spec("bearings"), joint_systems.get("bearings")
    steps = joint_cells.STEPS["bearings"]
    x, z = joint_systems.simulate(model, steps, joint_cells.trace_seed(model, MIRROR_TRACE))
    out = dict(trace=MIRROR_TRACE, steps=steps)
    for key, gate_outliers in (("weighed", False), ("dropped", True)):
        run = nat.run_joint_cells(spec.id, z, 4, gate_outliers=gate_outliers)
        out[key] = dict(
            flagged=[int(k) for k in np.flatnonzero(run.status == Status.OUTLIER)],
            departed=[int(k) for k in np.flatnonzero(run.status == Status.DEPARTED)],
            end_error=[float(v) for v in run.mean[-1, :2] - x[-1, :2]],
        )
    return out


def run(args) -> dict:
    started = time.monotonic()
    if args.traces < 1:
        raise SystemExit("uxbench joint_gate: at least 1 trace")
    nat = native.load()
    env = environment.block({"traces": args.traces, "steps": STEPS, "etas": ETAS, "moves": MOVES, "window": WINDOW})
    names = joint_systems.names()
    own = {}
    for name in names:
        zs = [
            joint_systems.simulate(joint_systems.get(name), STEPS[name], trace_seed(name, i))[1]
            for i in range(args.traces)
        ]
        own[name] = {str(m): own_data(nat, name, zs, m) for m in ETAS + (ATOMS,) + RIVALS}
    moved = {name: {str(eta): moved_table(nat, name, eta, args.traces) for eta in ETAS} for name in names}
    meta = {**env, "command": args.command, "wall_s": time.monotonic() - started}
    record = dict(meta=meta, own=own, moved=moved, mirror=mirror_trace(nat))
    return dict(markdown=markdown(record), record=record)


def report(results: dict, args) -> None:
    write_study(results, args)


# -- the report -----------------------------------------------------------------------------------------------
def own_rows(record: dict) -> list[list[str]]:
    rows = []
    for name, by_method in record["own"].items():
        for method, c in by_method.items():
            n = c["readings"] - c["nan"]
            rows.append(
                [
                    name,
                    filter_label(method),
                    str(c["readings"]),
                    f"{c['outliers']} ({c['outliers'] / n:.2g})",
                    f"{c['above_3sd']} ({c['above_3sd'] / n:.2g})",
                    f"{c['mean_ratio']:.3f} ± {c['se_ratio']:.3f}",
                    f"{c['inconsistent']} ({c['inconsistent'] / c['readings']:.2g})" if "inconsistent" in c else "—",
                    str(c["nan"]),
                ]
            )
    return rows


def filter_label(method: str) -> str:
    if method.isdigit():
        return f"cells η = {method}"
    return f"atom filter η = {ATOMS_ETA}" if method == ATOMS else method.upper()


def moved_rows(record: dict) -> list[list[str]]:
    rows = []
    for name, by_eta in record["moved"].items():
        for eta, by_move in by_eta.items():
            for move, runs in by_move.items():
                flagged = [r["flagged"] for r in runs if r["flagged"] is not None]
                rows.append([name, eta, f"{float(move):g}", f"{sum(flagged)}/{len(runs)}"] + _spread(runs))
    return rows


def _spread(runs: list[dict]) -> list[str]:
    """Median (largest) distance from the clean run, weighed and dropped, and the runs refused."""
    out = []
    for key in ("weighed", "dropped"):
        d = [r[key] for r in runs if r[key] is not None]
        out.append(f"{statistics.median(d):.2f} ({max(d):.3g})" if d else "—")
    out.append(str(sum(r[key] is None for r in runs for key in ("weighed", "dropped"))))
    out.append(str(sum((r["dropped_steps"] or 0) > LOCKED_OUT for r in runs)))
    return out


def markdown(record: dict) -> str:
    meta = record["meta"]
    gaussian = f"{GAUSSIAN_OUTLIER:.2g}"
    return "\n".join(
        [
            "# The cell filter's innovation gate on the joint systems",
            "",
            f"`{meta.get('command', '.venv/bin/python -m uxbench joint_gate')}`: the traces `joint_fits` "
            f"fits ({meta['sizes']['traces']} per system, the table's defaults), native core, gate "
            f"{OUTLIER_GATE:g} sd (docs/semantics.md, \"Cell filter\"). {environment.line(meta)}",
            "",
            "## The model's own data",
            "",
            f"A Gaussian predictive of the right mean and variance fails the gate on {gaussian} of readings, "
            f"exceeds 3² on {GAUSSIAN_3SD:.2g}, and its mean test ratio is 1. The cells' ratio above 5² is their "
            "OUTLIER status, and the joint atom filter's (refined mode, docs/semantics.md \"Joint filter\") "
            "its own; beside them, the EKF's and UKF's normalised innovation squared on the same readings "
            "(what the same gate would test; NaN where the update was skipped). INCONSISTENT: steps whose status "
            "is (the Gaussian filters: would be, by the same test of their ratios) INCONSISTENT, the running mean "
            f"of the test ratios above {NIS_LIMIT:g} at a reading that passes the gate (docs/semantics.md, "
            '"Consistency").',
            "",
            markdown_table(
                [
                    "system",
                    "filter",
                    "readings",
                    "ratio > 25 (share)",
                    "ratio > 9 (share)",
                    "mean ratio ± se",
                    "INCONSISTENT (share)",
                    "NaN",
                ],
                own_rows(record),
            ),
            "",
            "## A reading moved off",
            "",
            f"The reading at each trace's half moved by the given number of noise sd; flagged: OUTLIER at that step; "
            f"distance: the largest |mean − clean run's mean| / clean sd over that step and the {WINDOW} after it "
            "(median over traces, largest in brackets), the reading weighed (the default) or dropped "
            f"(`gate_outliers`); refused: runs the filter refused; the last column: dropping runs that dropped more "
            f"than {LOCKED_OUT} readings (after a drop the filter's predictive drifts from the data, and the readings "
            "that follow can fail the gate too: a lock-out, as an EKF's gate can have).",
            "",
            markdown_table(
                [
                    "system",
                    "η",
                    "moved (sd)",
                    "flagged",
                    "distance, weighed",
                    "distance, dropped",
                    "refused",
                    f"dropped > {LOCKED_OUT} readings",
                ],
                moved_rows(record),
            ),
            "",
            "## The bearings trace whose cells take the mirror image",
            "",
            mirror_text(record["mirror"]),
            "",
        ]
    )


def _steps(ks: list[int]) -> str:
    """Step numbers with runs written first–last: 41, 43–59."""
    runs, out = [], []
    for k in ks:
        if runs and k == runs[-1][1] + 1:
            runs[-1][1] = k
        else:
            runs.append([k, k])
    for a, b in runs:
        out.append(str(a) if a == b else f"{a}–{b}")
    return ", ".join(out) or "none"


def mirror_text(m: dict) -> str:
    """Where the gate fires on that trace, where the cells say DEPARTED, and where each run ends."""
    parts = []
    for key in ("weighed", "dropped"):
        r = m[key]
        flagged = _steps(r["flagged"])
        departed = f"; DEPARTED at steps {_steps(r['departed'])}" if r.get("departed") else ""
        parts.append(
            f"- {key}: OUTLIER at steps {flagged}{departed}; at step {m['steps'] - 1} the mean is "
            f"({r['end_error'][0]:+.1f}, {r['end_error'][1]:+.1f}) from the target's position (x, y)."
        )
    return (
        f"Bearings trace {m['trace']} of `joint_cells --systems bearings` ({m['steps']} steps), cells at η = 4, "
        "whose target crosses x = 0 where y/x cannot tell (x, y) from (−x, −y):\n\n" + "\n".join(parts)
    )
