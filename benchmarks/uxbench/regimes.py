"""Regimes: the BayesLaplace filter where users are, against the exact answer (issue 36, item 1).

Cells (one task each; every cell runs each mode of MODES at each η of ETAS on `seeds` traces of `steps`):

1. **lg grid** (well specified): the local-level model x' = x + N(0, q²), z = x + N(0, r²), r = R, for each
   q/r of Q_RATIOS, prior sd s0 of PRIOR_SDS (× r) and prior placement of PLACEMENTS — the prior mean on
   the first reading z₀ exactly ("centred"), or PRIOR_OFFSET_SD prior sd above it ("offset"). The data are
   the model's own: x₀ = 0, so the truth sits 0.74 prior sd from an offset prior's mean, a plausible draw.
   Exact answer: the Kalman filter (uxemu.kalman).
2. **lg misspecified**: the filter's model is still the local-level model (q/r of Q_RATIOS, the prior of
   the grid cell MISSPECIFIED_PRIOR), the data are not: a level shift of LEVEL_SHIFT·r from the half
   on, one reading OUTLIER·r off at the half, or STUCK_READINGS readings from the half on all equal to
   the reading at the half. Exact answer: the Kalman filter of the filter's model on those data. Each has
   a clean counterpart, the grid cell with its q and prior: the same seeds' traces before the change.
3. **sv, gss**: the table defaults, on traces simulated from them, on traces whose state noise
   (NOISE_PARAMS: σ_η, σ_v) is NOISE_JUMP times larger from the half on, and (OUTLIER_SYSTEMS) on the
   simulated traces with the reading at the half moved by NONLINEAR_OUTLIER times their readings' sd. Exact
   answer: the point-mass grid filter (uxbench.baselines.grid) of the defaults at GRID_POINTS points; the
   full size also runs it at GRID_CHECK_POINTS on the first seed and records how far that moves it.

The filter runs in the native C core (uxemu.native) when its library is built, else in the Python
reference (uxemu.filter); both give the same bits (tests/bench/test_regimes.py) and each record names
its engine. Scores: uxbench.regime_metrics. Tables: uxbench.regimes_report.
"""

from __future__ import annotations

import time

import numpy as np

from uxemu import kalman, native, systems
from uxemu.filter import BayesLaplaceFilter
from uxemu.traces import Trace, simulate

from . import regime_metrics as metrics

MODES = ("refined", "mixture", "paper")
ETAS = (4, 8, 16, 32, 64)
BASE_SEED = 20260036  # every trace's seed derives from it (issue 36)

# -- the local-level grid ------------------------------------------------------------------------------
R = 1.0  # observation noise sd; everything else is in units of it
Q_RATIOS = (1e-3, 1e-2, 0.1, 1.0, 10.0)  # q / r
PRIOR_SDS = (1.0, 100.0, 1e4)  # prior sd / r
PLACEMENTS = ("centred", "offset")
PRIOR_OFFSET_SD = 0.74  # an offset prior's mean lies this many prior sd above z₀

# -- misspecified local-level cells ----------------------------------------------------------------------
MISSPECIFICATIONS = ("level_shift", "outlier", "stuck")
LEVEL_SHIFT = 8.0  # × r, added to every reading from the half on
OUTLIER = 1e4  # × r, added to the reading at the half
STUCK_READINGS = 30  # readings from the half on that repeat the reading at the half
# (prior sd / r, placement): one of the grid's gentlest priors, so that the counts show the data's misfit more
# than the prior's (a centred vague prior fails on clean data already in refined mode; see the grid cells)
MISSPECIFIED_PRIOR = (1.0, "offset")

# -- nonlinear systems against the grid filter ------------------------------------------------------------
NONLINEAR = ("sv", "gss")
NOISE_PARAMS = {"sv": "sigma_eta", "gss": "sigma_v"}  # each system's state-noise sd
NOISE_JUMP = 3.0  # the state-noise sd's factor from the half on, in the data only
NONLINEAR_OUTLIER = 20.0  # × the clean trace's reading sd, added to the reading at the half (data only)
# sv only: gss's reading that far off puts its modes (±√(20z)) past the grid, whose range follows the predictive
# (its 4001-point answer moved the 1001-point one by 1 in variance ratio and 1.2 nats)
OUTLIER_SYSTEMS = ("sv",)
# 1001 points: on 200-step traces of the defaults, 601 points already give the 4001-point means to 1e-8 and
# log L to 1e-6 nats (uxbench.exact_loglik); the full size measures it on every nonlinear cell.
GRID_POINTS = 1001
GRID_TAIL = 1e-15
GRID_CHECK_POINTS = 4001  # the grid again at 4× the points: how far the exact answer itself is off

SIZES = {
    # one seed, no grid check: well under a minute on 2 cores with the native core
    "quick": {"name": "quick", "seeds": 1, "steps": 200, "modes": MODES, "etas": ETAS, "grid_check": False},
    # the 3 seeds × 200 steps per cell
    "full": {"name": "full", "seeds": 3, "steps": 200, "modes": MODES, "etas": ETAS, "grid_check": True},
}
# `python -m uxbench` writes a benchmark to results/SIZE/NAME/; the full run of this one goes beside the
# other single-file results, results/regimes.{md,json} (uxbench.registry.results_folder).
RESULTS_FOLDERS = {"full": "."}


# -- cells -------------------------------------------------------------------------------------------------
def cells() -> list[dict]:
    """Every cell, in table order: the lg grid, the misspecified lg cells, the nonlinear cells."""
    out = [
        dict(group="lg", data="model", q=q, prior_sd=s0, placement=p)
        for q in Q_RATIOS
        for s0 in PRIOR_SDS
        for p in PLACEMENTS
    ]
    s0, placement = MISSPECIFIED_PRIOR
    out += [
        dict(group="lg_misspecified", data=d, q=q, prior_sd=s0, placement=placement)
        for d in MISSPECIFICATIONS
        for q in Q_RATIOS
    ]
    out += [dict(group="nonlinear", system=s, data=d) for s in NONLINEAR for d in ("model", "noise_jump")]
    out += [dict(group="nonlinear", system=s, data="outlier") for s in OUTLIER_SYSTEMS]
    return out


def cell_label(cell: dict) -> str:
    if cell["group"] == "nonlinear":
        names = {"model": "", "noise_jump": f" {NOISE_JUMP:g}× noise", "outlier": " outlier"}
        return cell["system"] + names[cell["data"]]
    text = f"q/r={cell['q']:g} s0={cell['prior_sd']:g}r {cell['placement']}"
    return text if cell["data"] == "model" else f"{cell['data']} q/r={cell['q']:g}"


def well_specified(cell: dict) -> bool:
    return cell["data"] == "model"


def engine() -> str:
    return "native" if native.available() else "reference"


def tasks(size: dict) -> list[dict]:
    which = engine()
    return [dict(size, cell=c, engine=which) for c in cells()]


# -- data --------------------------------------------------------------------------------------------------
def trace_rng(*key: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([BASE_SEED, *key]))


def local_level_trace(q: float, steps: int, seed: int, r: float = R) -> Trace:
    """x₀ = 0, x_k = x_{k−1} + q·w_k, z_k = x_k + r·v_k. The standard normals w, v depend on the seed alone,
    so every q (and prior) of a seed sees the same draws."""
    rng = trace_rng(seed)
    w, v = rng.standard_normal(steps), rng.standard_normal(steps)
    w[0] = 0.0
    x = np.cumsum(q * w)
    return Trace(np.arange(steps), np.zeros(steps), x + r * v, x)


def half(steps: int) -> int:
    return steps // 2


def level_shift(z, size: float = LEVEL_SHIFT * R) -> np.ndarray:
    out = np.array(z, dtype=np.float64)
    out[half(out.size) :] += size
    return out


def outlier(z, size: float = OUTLIER * R) -> np.ndarray:
    out = np.array(z, dtype=np.float64)
    out[half(out.size)] += size
    return out


def stuck(z, length: int = STUCK_READINGS) -> np.ndarray:
    out = np.array(z, dtype=np.float64)
    at = half(out.size)
    out[at : at + length] = out[at]
    return out


MISSPECIFY = {"level_shift": level_shift, "outlier": outlier, "stuck": stuck}


def lg_trace(cell: dict, steps: int, seed: int) -> Trace:
    tr = local_level_trace(cell["q"] * R, steps, seed)
    if cell["data"] != "model":
        tr = Trace(tr.k, tr.u, MISSPECIFY[cell["data"]](tr.z), tr.x)
    return tr


def lg_prior(cell: dict, z0: float) -> tuple[float, float]:
    """(mean, sd) of the cell's prior, placed against the trace's first reading."""
    sd = cell["prior_sd"] * R
    return (z0 if cell["placement"] == "centred" else z0 + PRIOR_OFFSET_SD * sd), sd


def noise_jump_trace(model, jumped, steps: int, rng: np.random.Generator) -> Trace:
    """uxemu.traces.simulate's draws in its order, with the transitions from the half on taken from
    `jumped`; the observation model is `model`'s throughout (the jump changes the state noise only)."""
    x = np.empty(steps)
    x[0] = model.prior.sample(rng)
    for k in range(1, steps):
        law = model if k < half(steps) else jumped
        x[k] = law.sample_transition(np.array(x[k - 1]), k, 0.0, rng)
    z = model.sample_observation(x, rng)
    return Trace(np.arange(steps), np.zeros(steps), z, x)


def nonlinear_trace(cell: dict, steps: int, seed: int) -> Trace:
    system = cell["system"]
    model = systems.get(system)
    rng = trace_rng(systems.spec(system).id, seed)  # the same draws with and without the jump
    if cell["data"] == "model":
        return simulate(model, steps, rng)
    if cell["data"] == "outlier":  # the model's own trace, one reading moved
        tr = simulate(model, steps, rng)
        return Trace(tr.k, tr.u, outlier(tr.z, NONLINEAR_OUTLIER * float(np.std(tr.z))), tr.x)
    noise = NOISE_PARAMS[system]
    jumped = systems.get(system, **{noise: NOISE_JUMP * param_value(model, noise)})
    return noise_jump_trace(model, jumped, steps, rng)


def param_value(model, name: str) -> float:
    """A model's parameter by the table's name."""
    return float(model.params[systems.spec(model.name).param_names.index(name)])


# -- the filter and the exact answer ------------------------------------------------------------------------
class Problem:
    """One cell on one seed: the trace, the filter's model (system, parameters, prior) and the exact answer."""

    def __init__(self, cell: dict, steps: int, seed: int, grid_points: int = GRID_POINTS):
        self.cell = cell
        if cell["group"] == "nonlinear":
            self.system, self.params, self.prior = cell["system"], None, None
            self.trace = nonlinear_trace(cell, steps, seed)
            self.exact = self.grid(grid_points)
        else:
            self.system, self.params = "lg", (1.0, cell["q"] * R, R)
            self.trace = lg_trace(cell, steps, seed)
            self.prior = lg_prior(cell, float(self.trace.z[0]))
            self.exact = kalman.kalman_filter(self.trace.z, *self.params, *self.prior)

    def model(self):
        """The filter's model in the reference (the grid filter runs it too)."""
        if self.params is None:
            return systems.get(self.system)
        named = dict(zip(systems.spec(self.system).param_names, self.params))
        return systems.get(self.system, prior=self.prior, **named)

    def grid(self, points: int):
        from .baselines.grid import grid_filter

        return grid_filter(self.model(), self.trace, n_points=points, tail=GRID_TAIL)

    def run(self, which: str, eta: int, mode: str):
        """(mean, var, status, log L) of the filter on this trace."""
        tr = self.trace
        if which == "native":
            prior = None if self.prior is None else ("gaussian", *self.prior)
            r = native.load().run_filter(
                systems.spec(self.system).id,
                tr.k,
                tr.u,
                tr.z,
                eta=eta,
                mode=mode,
                params=self.params,
                prior=prior,
                atoms=False,
            )
        else:
            r = BayesLaplaceFilter(self.model(), eta, mode).run(tr)
        return r.mean, r.var, r.status, float(r.log_likelihood)

    def score(self, which: str, eta: int, mode: str) -> metrics.Score:
        return metrics.score_run(*self.run(which, eta, mode), self.exact)


def grid_check(problem: Problem) -> dict:
    """How far the grid at GRID_CHECK_POINTS moves the exact answer: the largest |Δmean| in its sd, the
    largest |variance ratio − 1| and |Δ log L|."""
    fine = problem.grid(GRID_CHECK_POINTS)
    coarse = problem.exact
    return {
        "points": GRID_CHECK_POINTS,
        "mean_sd": float(np.max(metrics.mean_error_sd(coarse.mean, fine.mean, fine.var))),
        "var_ratio": float(np.max(np.abs(metrics.variance_ratio(coarse.var, fine.var) - 1.0))),
        "log_l": abs(coarse.log_likelihood - fine.log_likelihood),
    }


def run_task(task: dict) -> dict:
    """One cell: every mode × η on every seed. Returns the cell, its records and its CPU seconds."""
    t0 = time.process_time()
    cell = task["cell"]
    problems = [Problem(cell, task["steps"], seed) for seed in range(task["seeds"])]
    records = []
    for mode in task["modes"]:
        for eta in task["etas"]:
            score = metrics.combine([p.score(task["engine"], eta, mode) for p in problems])
            records.append(dict(mode=mode, eta=eta, **score.as_dict()))
    out = {
        "cell": cell,
        "label": cell_label(cell),
        "well_specified": well_specified(cell),
        "engine": task["engine"],
        "records": records,
    }
    if task["grid_check"] and cell["group"] == "nonlinear":
        out["grid_check"] = grid_check(problems[0])
    out["cpu_s"] = time.process_time() - t0
    return out


def report(results: list, size: dict, out_dir, meta: dict | None = None):
    from .regimes_report import write

    return write(results, size, out_dir, meta)
