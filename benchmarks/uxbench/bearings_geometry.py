"""Bearings-only tracking off its table defaults: how wide the range prior is and how precise the bearing.

The EKF's classic failure on angles alone is a range it cannot see: a prior that is wide in range, a bearing
precise enough that its linearisation at the wrong range is trusted. This study moves the table's `bearings`
(a 4-D joint system) along both axes — the range prior's sd (RANGE_SDS, the table's is 4) and the bearing
noise r (NOISES, the table's 0.02) — the data simulated from the same model the filters are given (well
specified; trace i from seed SEED + i), every method in C (libuxbench.so):

- RMSE per state component against the simulated state (per trace, then the mean over traces);
- NLL: the mean over steps of −log p(x_true) (the cells' mixture, the EKF's and UKF's Gaussian, the PF's KDE);
- "to ref": the position RMSE of the posterior mean against a REFERENCE_PARTICLES-particle PF's, the nearest
  to the exact answer here; "lost": the traces whose position is more than LOST× as far from the truth as the
  reference PF's (a filter that has lost the target);
- the verdict per setting: the cells at each η against the EKF and the UKF (RMSE every component, and NLL).

    .venv/bin/python -m uxbench bearings_geometry                 # 20 traces × 80 steps per setting (~3 min)
    .venv/bin/python -m uxbench bearings_geometry --traces 2 --out /tmp/g.md

Writes benchmarks/results/bearings_geometry.md and bearings_geometry.json.gz beside it.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

from uxemu import joint_systems
from uxemu.metrics import nll

from . import environment, joint_bearings, joint_cells, joint_native
from .report import RESULTS, write_study

OUT = RESULTS / "bearings_geometry.md"
SYSTEM = "bearings"
RANGE_SDS = (2.0, 4.0, 6.0, 8.0)
NOISES = (0.02, 0.01, 0.005)
SEED = joint_bearings.SEED
REFERENCE_PARTICLES = joint_bearings.REFERENCE_PARTICLES
LOST = 3.0
METHODS = (
    ("EKF", dict(kind="kf", method="ekf")),
    ("UKF", dict(kind="kf", method="ukf")),
    ("PF 1000", dict(kind="pf", n=1000, tuned=True)),
    ("cells η=2", dict(kind="cells", eta=2)),
    ("cells η=8", dict(kind="cells", eta=8)),
    ("cells η=16", dict(kind="cells", eta=16)),
)


def arguments(ap) -> None:
    ap.add_argument("--traces", type=int, default=20, help="traces per setting")
    ap.add_argument("--steps", type=int, default=80)
    ap.add_argument("--out", type=Path, default=OUT, help="markdown file; the .json.gz goes beside it")


def setting(range_sd: float, r: float):
    """The table's bearings with the range prior's sd and the bearing noise replaced: the reference model, and
    the same as the C runners' params= and prior=."""
    laws = joint_systems.spec(SYSTEM).prior
    pairs = [(loc, range_sd if c == 0 else scale) for c, (_, loc, scale) in enumerate(laws)]
    model = joint_systems.get(SYSTEM, prior=pairs, r=r)
    return model, dict(
        params=list(model.params), prior=[(law, loc, scale) for (law, _, _), (loc, scale) in zip(laws, pairs)]
    )


def setting_rows(lib, range_sd: float, r: float, traces: int, steps: int, started: float) -> dict:
    """Per method: RMSE per component, NLL, position RMSE to the reference PF and lost traces (means over traces)."""
    model, kw = setting(range_sd, r)
    per = {label: dict(rmse=[], nll=[], to_ref=[], lost=0) for label, _ in METHODS}
    per["reference PF"] = dict(rmse=[], nll=None, to_ref=[], lost=0)
    for i in range(traces):
        x, z = joint_systems.simulate(model, steps, SEED + i)
        ref = lib.run_pf(SYSTEM, z, REFERENCE_PARTICLES, seed=SEED + i, particles=False, **kw).mean
        ref_err = joint_bearings.rmse(ref[:, :2], x[:, :2])
        per["reference PF"]["rmse"].append(np.sqrt(np.mean((ref - x) ** 2, axis=0)))
        for label, how in METHODS:
            mean, logp, _ = joint_cells.run_method(lib, model, how, x, z, seed=7 * (SEED + i) + 1, setting=kw)
            d = per[label]
            d["rmse"].append(np.sqrt(np.mean((np.asarray(mean) - x) ** 2, axis=0)))
            d["nll"].append(nll(logp).mean)
            d["to_ref"].append(joint_bearings.rmse(mean[:, :2], ref[:, :2]))
            d["lost"] += joint_bearings.rmse(mean[:, :2], x[:, :2]) > LOST * ref_err
    print(f"[{time.monotonic() - started:6.1f} s] range sd {range_sd:g}, r {r:g}", file=sys.stderr, flush=True)
    return {
        label: dict(
            rmse=np.mean(d["rmse"], axis=0).tolist(),
            nll=None if d["nll"] is None else float(np.mean(d["nll"])),
            to_ref=float(np.mean(d["to_ref"])) if d["to_ref"] else 0.0,
            lost=int(d["lost"]),
        )
        for label, d in per.items()
    }


def run(args) -> dict:
    started = time.monotonic()
    if args.traces < 1 or args.steps < 2:
        raise SystemExit("uxbench bearings_geometry: at least 1 trace of 2 steps")
    lib = joint_native.load()
    env = environment.block({"traces": args.traces, "steps": args.steps})
    settings = [
        dict(range_sd=sd, r=r, rows=setting_rows(lib, sd, r, args.traces, args.steps, started))
        for sd in RANGE_SDS
        for r in NOISES
    ]
    record = dict(meta={**env, "command": args.command, "wall_s": time.monotonic() - started}, settings=settings)
    return dict(markdown=markdown(record), record=record)


# -- the report -----------------------------------------------------------------------------------------------
def beats(rows: dict, label: str, rival: str) -> bool:
    """label's RMSE below rival's in every component and its NLL below rival's."""
    a, b = rows[label], rows[rival]
    return all(x < y for x, y in zip(a["rmse"], b["rmse"])) and a["nll"] < b["nll"]


def verdict(rows: dict) -> str:
    cells = [label for label, _ in METHODS if label.startswith("cells")]
    wins = [c.removeprefix("cells ") for c in cells if beats(rows, c, "EKF") and beats(rows, c, "UKF")]
    return ", ".join(wins) or "none"


def summary_table(settings: list[dict]) -> list[str]:
    shown = ("EKF", "UKF", "PF 1000", "cells η=8", "cells η=16")
    lines = [
        "| range sd | r | " + " | ".join(f"{m}: to ref · NLL · lost" for m in shown) + " | cells beating EKF and UKF |",
        "|---:|---:|" + "---|" * len(shown) + "---|",
    ]
    for s in settings:
        rows = s["rows"]
        cells = [f"{rows[m]['to_ref']:.3g} · {rows[m]['nll']:.3f} · {rows[m]['lost']}" for m in shown]
        lines.append(f"| {s['range_sd']:g} | {s['r']:g} | " + " | ".join(cells) + f" | {verdict(rows)} |")
    return lines


def setting_table(s: dict) -> list[str]:
    lines = [
        f"### range sd {s['range_sd']:g}, r {s['r']:g}",
        "",
        "| method | RMSE (x, y, vx, vy) | NLL | position to reference | lost traces |",
        "|---|---|---:|---:|---:|",
    ]
    for label, r in s["rows"].items():
        nll_s = "—" if r["nll"] is None else f"{r['nll']:.4f}"
        rmse = " / ".join(f"{v:.4g}" for v in r["rmse"])
        lines.append(f"| {label} | {rmse} | {nll_s} | {r['to_ref']:.4g} | {r['lost']} |")
    return lines + [""]


def markdown(record: dict) -> str:
    meta = record["meta"]
    size = meta["sizes"]
    lines = [
        "# Bearings-only tracking off its defaults: range prior and bearing noise",
        "",
        f"`python -m uxbench bearings_geometry` at commit {meta['commit']} ({meta['cpu']}, {meta['cpus']} CPUs, "
        f"{meta['wall_s']:.0f} s): {size['traces']} traces × {size['steps']} steps per setting, simulated from the "
        f"model the filters are given (seeds {SEED} + i), every method in C. The table's setting is range sd 4, "
        f"r 0.02 (joint_cells.md). Per method: RMSE per component against the truth; NLL, the mean over steps of "
        f"−log p(x_true); \"to ref\", the position RMSE against a {REFERENCE_PARTICLES:,}-particle PF's mean; "
        f"\"lost\", the traces whose position RMSE is more than {LOST:g}× the reference PF's. PF 1000 is the tuned "
        f"PF, one seed per trace. \"Cells beating EKF and UKF\": the η at which the cell filter's RMSE is below both "
        f"in every component and its NLL below both.",
        "",
        *summary_table(record["settings"]),
        "",
        "## Per setting",
        "",
    ]
    for s in record["settings"]:
        lines += setting_table(s)
    return "\n".join(lines)


report = write_study  # the markdown at --out, the record beside it
