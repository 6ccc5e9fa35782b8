"""Why `uxemu.fit` and `uxhost fit` fit a joint system on the cell filter only: the joint filters'
log-likelihood along a noise parameter, beside the scalar filter's.

A fit reads standard errors from a quadratic over a region where log L falls by 0.5–4 nats, and climbs it
with Nelder–Mead: both need log L smooth in θ on the scale of a few per cent of a parameter. The scalar
filter's mixture mode (a fit's default) is (benchmarks/results/evidence.md); the joint filter has refined and
paper modes only (uxemu.joint_filter.JOINT_MODES). Here, on five simulated 500-step traces of each joint
system at its table defaults (reentry 80 steps): log L at 13 values of q and of r from 0.85 to 1.15 times the default (steps
of 2.5 %), with the C joint filter (refined) at η = 16, 32, 64 and the cell filter (ux/joint_cells.h) at
η = 16, 64, with its exchange (as it filters) and without ("cells, fitted": as a fit runs it,
uxemu.joint_fit.FIT_EXCHANGE) — the largest |second difference| of log L along the parameter, its range, and the rms residual
of a quartic through the 13 values (what is not smooth: a well-determined parameter has large second
differences from its curvature alone, and a quartic follows the curvature). A smooth log L whose standard
error is about a tenth of the parameter has second differences of about (0.025 / 0.1)² = 0.06 nats at this
step; sv's row (the scalar filter, its default fit's mixture mode, and refined) shows the scale.

    .venv/bin/python -m uxbench joint_loglik   (~3 min)
"""

from __future__ import annotations

import functools
import time
from pathlib import Path

import numpy as np

from uxemu import fit, joint_fit, joint_systems, native, systems, traces

from . import environment
from .report import RESULTS

TRACES, STEPS, SEED = 5, 500, 2041
# reentry's body slows to a stop within about 60 steps, as its other studies run it (80); past that the atom
# filter's points reach speeds whose drag overflows (UX_ERR_DOMAIN).
JOINT_STEPS = {"reentry": 80}
SCALES = np.linspace(0.85, 1.15, 13)
ETAS = (16, 32, 64)
CELL_ETAS = (16, 64)
SCALAR = ("sv", "sigma_eta", 16, (fit.DEFAULT_MODE, "refined"))  # the reference row: system, parameter, η, modes


def along(run, defaults, index) -> np.ndarray:
    """log L at SCALES times the parameter at `index`, the others at their defaults."""
    values = []
    for s in SCALES:
        params = list(defaults)
        params[index] = defaults[index] * s
        values.append(run(tuple(params)))
    return np.array(values)


def log_likelihood(runner, system_id, z, eta, extra, params) -> float:
    """The run's log L; −∞ where the filter refuses the parameters on this trace (a point that is not finite)."""
    try:
        return runner(system_id, z, eta, *extra, params=params).log_likelihood
    except native.NativeDomainError:
        return -np.inf


def _cells_as_fitted(nat):
    """The cell filter as a fit runs it (uxemu.joint_fit.FIT_EXCHANGE)."""
    return functools.partial(nat.run_joint_cells, exchange=joint_fit.FIT_EXCHANGE)


def joint_rows(nat) -> list[dict]:
    rows = []
    for name in joint_systems.names():
        spec, model = joint_systems.spec(name), joint_systems.get(name)
        for i in range(TRACES):
            _, z = joint_systems.simulate(model, JOINT_STEPS.get(name, STEPS), SEED + i)
            runs = [("refined", eta, nat.run_joint_filter, ("refined",)) for eta in ETAS]
            runs += [("cells", eta, nat.run_joint_cells, ()) for eta in CELL_ETAS]
            runs += [("cells, fitted", eta, _cells_as_fitted(nat), ()) for eta in CELL_ETAS]
            for mode, eta, runner, extra in runs:
                for param in ("q", "r"):
                    curve = along(
                        lambda p: log_likelihood(runner, spec.id, z, eta, extra, p),
                        spec.defaults,
                        spec.param_names.index(param),
                    )
                    rows.append(dict(system=name, mode=mode, eta=eta, param=param, trace=i, curve=curve))
    return rows


def scalar_rows(nat) -> list[dict]:
    name, param, eta, modes = SCALAR
    spec = systems.spec(name)
    rows = []
    for i, tr in enumerate(traces.simulate_many(systems.get(name), TRACES, STEPS, SEED)):
        for mode in modes:
            curve = along(
                lambda p: nat.run_filter(spec.id, tr.k, tr.u, tr.z, eta, mode, params=p, atoms=False).log_likelihood,
                spec.defaults,
                spec.param_names.index(param),
            )
            rows.append(dict(system=name, mode=mode, eta=eta, param=param, trace=i, curve=curve))
    return rows


def quartic_residual(curve) -> float:
    """rms (nats) of log L along SCALES off the least-squares quartic through it; ∞ where a value is not finite."""
    c = np.asarray(curve, dtype=np.float64)
    if not np.isfinite(c).all():
        return float("inf")
    fitted = np.polyval(np.polyfit(SCALES - 1.0, c, 4), SCALES - 1.0)
    return float(np.sqrt(np.mean((c - fitted) ** 2)))


def render(rows: list[dict], meta: str) -> str:
    lines = [
        "# The joint filters' log-likelihood in θ: why a joint system is fitted on the cells",
        "",
        meta,
        "",
        __doc__.split("\n\n")[1].replace("\n", " "),
        "",
        "| system | filter | η | parameter | largest \\|second difference\\| (nats): median over traces (largest) "
        "| range of log L over ±15 % (nats): median (largest) | rms off a quartic (nats): median (largest) |",
        "|---|---|---|---|---|---|---|",
    ]
    keys = dict.fromkeys((r["system"], r["mode"], r["eta"], r["param"]) for r in rows)  # in the rows' order
    for system, mode, eta, param in keys:
        curves = [
            r["curve"] for r in rows if (r["system"], r["mode"], r["eta"], r["param"]) == (system, mode, eta, param)
        ]
        d2 = [float(np.abs(np.diff(c, 2)).max()) for c in curves]
        spread = [float(np.ptp(c)) for c in curves]
        rough = [quartic_residual(c) for c in curves]
        kind = "joint" if system in joint_systems.names() else "scalar"
        lines.append(
            f"| {system} | {kind} {mode} | {eta} | {param} | {np.median(d2):.3g} ({max(d2):.3g}) | "
            f"{np.median(spread):.3g} ({max(spread):.3g}) | {np.median(rough):.3g} ({max(rough):.3g}) |"
        )
    return "\n".join(lines) + "\n"


def arguments(p) -> None:
    p.add_argument("--out", type=Path, default=RESULTS / "joint_loglik.md")


def run(args) -> dict:
    env, t0 = environment.block({"traces": TRACES, "steps": STEPS, "joint_steps": JOINT_STEPS}), time.time()
    nat = native.load()
    rows = scalar_rows(nat) + joint_rows(nat)
    env["seconds"] = time.time() - t0
    return dict(env=env, rows=rows)


def report(results: dict, args) -> None:
    meta = f"{environment.line(results['env'])} Regenerate: `.venv/bin/python -m uxbench joint_loglik`."
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(render(results["rows"], meta))
    print(f"wrote {args.out}")
