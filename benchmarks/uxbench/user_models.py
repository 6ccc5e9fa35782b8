"""Models as a user writes them (plain Python, `uxemu.StateSpaceModel`) against the grid filter: how many steps
of the default filter are silently wrong off the table's systems — quantized and saturating sensors, folded and
cubic ones, heavy-tailed noises.

Each model of MODELS, `--traces` traces of STEPS steps (`simulate` with `default_rng(SEED + i)`), through the
reference engine (a Python model has no C twin) in each mode of MODES at each η of ETAS, scored step by step
against the point-mass grid filter of the same model on the same data, as uxbench.regime_metrics scores the
regime map.

    .venv/bin/python -m uxbench user_models                  # 5 traces per model (~7 minutes)
    .venv/bin/python -m uxbench user_models --traces 1 --only quantizer --out /tmp/u.md

Writes benchmarks/results/user_models.md and user_models.json.gz beside it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable, NamedTuple

import numpy as np

import uxemu as ux
from uxemu import laws
from uxemu.filter import BayesLaplaceFilter
from uxemu.traces import simulate

from . import environment
from . import regime_metrics as metrics
from .baselines.grid import grid_filter
from .report import RESULTS, markdown_table, write_study

OUT = RESULTS / "user_models.md"
MODES = ("refined", "mixture")
ETAS = (4, 8, 16, 32)
STEPS = 200
SEED = 7000
# 8001 points give the same silent and wrong counts on each model's first trace, in both modes at every η: means
# within 0.04 exact sd, variances 4 % (the uniform kernels' hard-edged windows; the rest within 1e-4)
GRID_POINTS = 4001


def _model(name: str, transition: Callable, q: laws.Law, prior: laws.Law, family: str, h: Callable, r: float):
    """x' = transition(x, k) + w, w ~ q; z = h(x) + r·ε, ε of the kernel family (standardised as the kernel
    reads it: uniform on [−½, ½], Laplace of scale 1)."""
    noise = {"gaussian": laws.Normal(0, r), "laplace": laws.Laplace(0, r), "uniform": laws.Uniform(-r / 2, r / 2)}
    return ux.StateSpaceModel(
        name=name,
        transition=lambda x, w, k, u: transition(x, k) + w,
        process_noise=q,
        prior=prior,
        sampler=ux.Sampler(lambda x, v: h(x) + v, (noise[family],)),
        kernel=ux.Kernel(family, lambda x: (h(x), r + 0 * x)),
        additive_noise=True,
    )


class UserModel(NamedTuple):
    label: str
    what: str
    model: ux.StateSpaceModel
    tail: float  # the grid's tails cut here (a Student-t noise needs a wider cut than 1e-15 leaves usable)


def _same(x):
    return x


MODELS = (
    UserModel(
        "quantizer",
        "random walk (q = 0.2) read by an ADC of step 1: z = x + U(−½, ½)",
        _model("quantizer", lambda x, k: x, laws.Normal(0, 0.2), laws.Normal(0, 5), "uniform", _same, 1.0),
        1e-15,
    ),
    UserModel(
        "quantizer, slow",
        "the same, the state 4× quieter (q = 0.05)",
        _model("quantizer-slow", lambda x, k: x, laws.Normal(0, 0.05), laws.Normal(0, 5), "uniform", _same, 1.0),
        1e-15,
    ),
    UserModel(
        "quantizer, fast",
        "the same, the state as loud as the step (q = 1)",
        _model("quantizer-fast", lambda x, k: x, laws.Normal(0, 1.0), laws.Normal(0, 5), "uniform", _same, 1.0),
        1e-15,
    ),
    UserModel(
        "gss ADC",
        "gss's state (σ_v = 3) read through its sensor x²/20 by an ADC of step 1: z = x²/20 + U(−½, ½)",
        _model(
            "gss-adc",
            lambda x, k: x / 2 + 25 * x / (1 + x * x) + 8 * np.cos(1.2 * k),
            laws.Normal(0, 3.0),
            laws.Normal(0, 5),
            "uniform",
            lambda x: x * x / 20,
            1.0,
        ),
        1e-15,
    ),
    UserModel(
        "saturating",
        "x' = 0.95x + N(0, 0.5²), z = 3·tanh(x/3) + N(0, 0.2²)",
        _model(
            "saturating",
            lambda x, k: 0.95 * x,
            laws.Normal(0, 0.5),
            laws.Normal(0, 3),
            "gaussian",
            lambda x: 3 * np.tanh(x / 3),
            0.2,
        ),
        1e-15,
    ),
    UserModel(
        "Laplace sensor",
        "random walk (q = 0.3), z = x + Laplace(0, 0.5)",
        _model("laplace-sensor", lambda x, k: x, laws.Normal(0, 0.3), laws.Normal(0, 5), "laplace", _same, 0.5),
        1e-15,
    ),
    UserModel(
        "range",
        "x' = 0.9x + 0.5·sin(0.3k) + N(0, 1), z = |x| + N(0, 0.3²): the sign unobserved",
        _model(
            "range",
            lambda x, k: 0.9 * x + 0.5 * np.sin(0.3 * k),
            laws.Normal(0, 1.0),
            laws.Normal(0, 3),
            "gaussian",
            np.abs,
            0.3,
        ),
        1e-15,
    ),
    UserModel(
        "cubic sensor",
        "x' = 0.8x + N(0, 1), z = x³/10 + N(0, 0.5²)",
        _model(
            "cubic-sensor",
            lambda x, k: 0.8 * x,
            laws.Normal(0, 1.0),
            laws.Normal(0, 2),
            "gaussian",
            lambda x: x**3 / 10,
            0.5,
        ),
        1e-15,
    ),
    UserModel(
        "exp sensor",
        "x' = 0.9x + N(0, 0.5²), z = exp(x/2) + N(0, 0.1²)",
        _model(
            "exp-sensor",
            lambda x, k: 0.9 * x,
            laws.Normal(0, 0.5),
            laws.Normal(0, 2),
            "gaussian",
            lambda x: np.exp(x / 2),
            0.1,
        ),
        1e-15,
    ),
    UserModel(
        "atan sensor",
        "x' = x + 0.1 + N(0, 0.1²), z = atan(x) + N(0, 0.05²): the sensor flattens as x grows",
        _model(
            "atan-sensor", lambda x, k: x + 0.1, laws.Normal(0, 0.1), laws.Normal(0, 3), "gaussian", np.arctan, 0.05
        ),
        1e-15,
    ),
    UserModel(
        "jumps",
        "random walk with Student-t steps (3 dof, scale 0.3), z = x + N(0, 0.5²)",
        _model("jumps", lambda x, k: x, laws.StudentT(3, 0, 0.3), laws.Normal(0, 5), "gaussian", _same, 0.5),
        1e-7,
    ),
)


def arguments(ap) -> None:
    ap.add_argument("--traces", type=int, default=5, help="traces per model")
    ap.add_argument("--only", default="", help="comma-separated model labels (default: all)")
    ap.add_argument("--out", type=Path, default=OUT, help="markdown file; the .json.gz goes beside it")


def chosen(only: str) -> tuple[UserModel, ...]:
    if not only:
        return MODELS
    wanted = [name.strip() for name in only.split(",")]
    known = {m.label: m for m in MODELS}
    unknown = [name for name in wanted if name not in known]
    if unknown:
        raise SystemExit(f"uxbench user_models: unknown model {unknown[0]!r}; known: {', '.join(known)}")
    return tuple(known[name] for name in wanted)


def score_model(user: UserModel, traces: int) -> dict:
    """mode → η → the runs' combined score (regime_metrics.combine) against the grid filter."""
    drawn = [simulate(user.model, STEPS, np.random.default_rng(SEED + i)) for i in range(traces)]
    exact = [grid_filter(user.model, tr, n_points=GRID_POINTS, tail=user.tail) for tr in drawn]
    return metrics.score_modes(
        lambda tr, eta, mode: BayesLaplaceFilter(user.model, eta, mode).run(tr), drawn, exact, MODES, ETAS
    )


def run(args) -> dict:
    started = time.monotonic()
    if args.traces < 1:
        raise SystemExit("uxbench user_models: at least 1 trace")
    models = chosen(args.only)
    env = environment.block({"traces": args.traces, "steps": STEPS, "seed": SEED, "etas": ETAS})
    sets = {}
    for user in models:
        print(f"user_models: {user.label} …", flush=True)
        sets[user.label] = score_model(user, args.traces)
    record = dict(meta={**env, "command": args.command, "seconds": time.monotonic() - started}, sets=sets)
    return dict(markdown=markdown(record, models), record=record)


def report(results: dict, args) -> None:
    write_study(results, args)


# -- the report -----------------------------------------------------------------------------------------------
def rows(record: dict) -> list[list[str]]:
    def columns(cells: list[dict]) -> list[str]:
        at16 = cells[ETAS.index(16)]
        return (
            [f"{c['silent']} / {c['wrong']} / {c['flagged']}" for c in cells]
            + [f"{at16['worst_sd']:.3g}", metrics.var_range(at16)]
            + [" / ".join(f"{c['log_l_gap']:+.3g}" for c in cells)]
        )

    return metrics.mode_rows(record["sets"], ETAS, columns)


def markdown(record: dict, models: tuple[UserModel, ...]) -> str:
    meta = record["meta"]
    traces = meta["sizes"]["traces"]
    header = ["model", "mode"] + [f"η = {eta}: silent / wrong / flagged" for eta in ETAS]
    header += ["η = 16: worst mean error (sd)", "η = 16: variance ratio"]
    header += ["log L gap (nats), η = " + " / ".join(str(eta) for eta in ETAS)]
    described = [f"- **{m.label}**: {m.what}." for m in models]
    return "\n".join(
        [
            "# Models as a user writes them, against the grid filter",
            "",
            f"`{meta.get('command', 'python -m uxbench user_models')}`. {environment.describe(meta)}.",
            "",
            f"{traces} traces of {STEPS} steps per model (`simulate`, `default_rng({SEED} + i)`), each model plain "
            "Python (`uxemu.StateSpaceModel`, a kernel likelihood, additive process noise), run on the reference "
            f"engine against the grid filter ({GRID_POINTS} points; tails cut at 1e-15, the Student-t noise's at "
            "1e-7), scored as the regime map scores (`uxbench.regime_metrics`): a step is wrong when its mean is "
            f"more than {metrics.WRONG_MEAN_SD:g} exact sd off or its variance outside "
            f"{metrics.WRONG_VAR_RATIO[0]:g}–{metrics.WRONG_VAR_RATIO[1]:g}× the exact one, silent when it is "
            "wrong and its status is OK; flagged: any status but OK (the first update's REFOCUSED among them). "
            "Counts are steps summed over the traces; the log L gap is the run's log-likelihood less the grid's, "
            "the largest in magnitude.",
            "",
            *described,
            "",
            markdown_table(header, rows(record)),
            "",
        ]
    )
