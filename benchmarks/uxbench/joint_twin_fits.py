"""What the 2-se criterion allows with an exact likelihood: cvrange's linear twin fitted on its Kalman filter.

`joint_fits` asks a fit on a joint system to land within 2 of its standard errors of the truth on 90 % of the
traces, and no filter's fit (cells, EKF, UKF) reaches it. This study asks the same of a fit whose likelihood is
exact: cvrange's dynamics, noise and prior at the table's defaults, with its range sensor replaced by a position
sensor (z = p + N(0, r²), the "linear twin"), so that the Kalman filter's log L is the model's own. TRACES traces
of STEPS steps (the first `joint_fits.TRACES_SHOWN` from joint_fits' own cvrange seeds), q and r free, fitted by
the same search (`uxemu.fit.maximise`, no start: the scan from the data's scale) and judged as joint_fits judges
(`joint_fits.judged`), with each fit's profile-likelihood interval.

    .venv/bin/python -m uxbench joint_twin_fits             # ~3 minutes
    .venv/bin/python -m uxbench joint_twin_fits --traces 20 --out /tmp/t.md

Writes benchmarks/results/joint_twin_fits.md and joint_twin_fits.json.gz beside it.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from uxemu import fit, joint_systems
from uxemu.traces import Trace

from . import environment
from .baselines.joint_kalman import kalman_log_likelihood
from .joint_fits import TARGET, chance_at_least, judged, nominal_rate, trace_seed
from .report import RESULTS, markdown_table, write_study

OUT = RESULTS / "joint_twin_fits.md"
SYSTEM = "cvrange"  # its dynamics, noise, prior and parameters; its sensor made linear
FREE = ("q", "r")
STEPS = 300  # joint_fits.STEPS["cvrange"]
TRACES = 500
SHOWN = 50  # the first traces: joint_fits' own cvrange seeds and count


def arguments(ap) -> None:
    ap.add_argument("--traces", type=int, default=TRACES, help="traces fitted (the first 50 on joint_fits' seeds)")
    ap.add_argument("--out", type=Path, default=OUT, help="markdown file; the .json.gz goes beside it")


def linear_twin(params):
    """cvrange's model at `params` (its table's order) with a position sensor in place of the range."""
    spec = joint_systems.spec(SYSTEM)
    model = joint_systems.get(SYSTEM, **dict(zip(spec.param_names, params)))
    r = float(params[spec.param_names.index("r")])
    return dataclasses.replace(model, loc_scale=lambda x: (x[:, :1].copy(), np.full((x.shape[0], 1), r)))


class TwinLogLikelihood(fit.Evaluated):
    """θ ↦ the linear twin's exact log L on a trace (the Kalman filter), as `fit.maximise` climbs any."""

    evidence = "update"
    engine, source = "kalman", "the Kalman filter"

    def __init__(self, trace: Trace):
        self.spec, self.trace = joint_systems.spec(SYSTEM), trace

    def _value(self, params) -> float:
        r = params[self.spec.param_names.index("r")]
        return kalman_log_likelihood(linear_twin(params), self.trace.z, r)


def fit_twin(i: int) -> dict:
    """Trace i of the twin at the table's defaults, fitted on its exact log L, against its truth."""
    spec = joint_systems.spec(SYSTEM)
    truth = joint_systems.get(SYSTEM).params
    _, z = joint_systems.simulate(linear_twin(truth), STEPS, trace_seed(SYSTEM, i))
    trace = Trace(np.arange(STEPS), np.zeros(STEPS), z)
    r = fit.maximise(TwinLogLikelihood(trace), FREE, profile=True)
    return judged(SYSTEM, i, r, dict(zip(spec.param_names, truth)))


def run(args) -> dict:
    if args.traces < 1:
        raise SystemExit("uxbench joint_twin_fits: at least 1 trace")
    started = time.monotonic()
    env = environment.block({"traces": args.traces, "steps": STEPS, "system": SYSTEM, "free": FREE})
    fits = []
    for i in range(args.traces):
        fits.append(fit_twin(i))
        if (i + 1) % 50 == 0 or i + 1 == args.traces:
            print(f"[{time.monotonic() - started:6.0f} s] fit {i + 1}/{args.traces}", file=sys.stderr, flush=True)
    record = dict(meta={**env, "command": args.command, "wall_s": time.monotonic() - started}, fits=fits)
    return dict(markdown=markdown(record), record=record)


report = write_study


# -- the report -----------------------------------------------------------------------------------------------
def counts(fits: list[dict]) -> list[str]:
    n = len(fits)
    within = sum(f["within"] for f in fits)
    per_param = " · ".join(f"{p} {sum(abs(f['z'][p]) <= 2 for f in fits)}" for p in FREE)
    mean_z = " · ".join(f"{p} {statistics.fmean(f['z'][p] for f in fits):+.2f}" for p in FREE)
    inside = sum(bool(f["in_interval"]) for f in fits)
    return [
        f"{n}",
        f"{within}/{n} ({within / n:.1%})",
        per_param,
        mean_z,
        f"{inside}/{n} ({inside / n:.1%})",
        str(sum(f["converged"] for f in fits)),
    ]


def markdown(record: dict) -> str:
    fits, meta = record["fits"], record["meta"]
    rows = [["the first " + str(min(SHOWN, len(fits))), *counts(fits[:SHOWN])]]
    if len(fits) > SHOWN:
        rows.append(["all", *counts(fits)])
    p = nominal_rate(len(FREE))
    within = sum(f["within"] for f in fits)
    se = math.sqrt(within / len(fits) * (1 - within / len(fits)) / len(fits))
    return "\n".join(
        [
            "# What 2 standard errors allow with an exact likelihood: cvrange's linear twin",
            "",
            f"`.venv/bin/python -m uxbench joint_twin_fits`. {environment.line({**meta, 'seconds': meta['wall_s']})} "
            "cvrange's model at its table defaults with "
            "a position sensor z = p + N(0, r²) in place of its range; each trace fitted by `uxemu.fit.maximise` "
            "on the Kalman filter's log L (exact), q and r free, no start, with its profile intervals; judged as "
            f"`joint_fits` judges (within 2 se: both parameters). The first {SHOWN} traces use joint_fits' cvrange "
            f"seeds. Nominal: two exactly normal estimates with exact standard errors are both within on {p:.1%} "
            f"of traces ({50 * p:.1f} of 50; 45 or more in {chance_at_least(45, 50, p):.0%} of such studies); "
            f"joint_fits' target is {TARGET:.0%}.",
            "",
            markdown_table(
                ["traces", "n", "within 2 se", "per parameter", "mean z", "in its profile interval", "converged"],
                rows,
            ),
            "",
            f"Within 2 se on all traces: {within / len(fits):.1%} ± {se:.1%} (one binomial se).",
            "",
        ]
    )
