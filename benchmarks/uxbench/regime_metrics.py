"""The regime benchmark's scores (uxbench.regimes): a filter run against the exact answer on the same data.

Per step, with m, v the filter's posterior mean and variance and m*, v* the exact ones (Kalman or grid):

- mean error = |m − m*| / √v*, in exact posterior standard deviations;
- variance ratio = v / v*;
- a step is **wrong** when its mean error exceeds WRONG_MEAN_SD or its variance ratio lies outside
  WRONG_VAR_RATIO (a NaN counts as wrong); it is **silent** when it is wrong and its status is OK_STATUS.
  Any other status — whatever the filter names it, now or later — means the filter said so.

Per run: the largest mean error, the range of the variance ratio, the log-likelihood gap (filter − exact)
and the counts. A cell's record combines its runs (the seeds): the worst of each, the counts summed.
A well-specified cell is within the issue's bounds at an η when its worst mean error, its variance
ratio range and (where the bound has one) its largest |log L gap| meet BOUNDS' entry for that η.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np

OK_STATUS = 0  # the only status that does not say something went wrong (uxemu.bayes.Status.OK)
WRONG_MEAN_SD = 0.5  # a step is wrong beyond this mean error …
WRONG_VAR_RATIO = (0.5, 2.0)  # … or with its variance outside this multiple of the exact variance


@dataclass(frozen=True)
class Bound:
    """The issue's done-when for a well-specified cell at one η."""

    mean_sd: float  # worst mean error at most this
    var_ratio: tuple[float, float]  # every variance ratio within this range
    log_l_nats: float | None  # every run's |log L gap| at most this (None: no log L bound at this η)


# Issue 36: at η = 16 within 0.1 sd, variance 0.8–1.25×, log L within 0.5 nats per 200-step run; at η = 8
# within 0.25 sd and variance 0.6–1.5×.
BOUNDS = {16: Bound(0.1, (0.8, 1.25), 0.5), 8: Bound(0.25, (0.6, 1.5), None)}


@dataclass
class Score:
    """One run's score against the exact answer, or several runs' combined (`combine`)."""

    runs: int
    steps: int
    worst_sd: float  # largest mean error (inf where a mean error is NaN)
    var_min: float  # smallest variance ratio
    var_max: float  # largest variance ratio
    log_l_gap: float  # the run's log L − exact log L; combined: the gap of largest magnitude, signed
    wrong: int  # wrong steps
    silent: int  # wrong steps with status OK
    flagged: int  # steps with a status other than OK, wrong or not
    statuses: dict[str, int]  # flagged steps by status value (its decimal string: a JSON key)

    def as_dict(self) -> dict:
        return asdict(self)


def mean_error_sd(mean, exact_mean, exact_var) -> np.ndarray:
    return np.abs(np.asarray(mean, dtype=np.float64) - exact_mean) / np.sqrt(exact_var)


def variance_ratio(var, exact_var) -> np.ndarray:
    return np.asarray(var, dtype=np.float64) / np.asarray(exact_var, dtype=np.float64)


def wrong_steps(mean, var, exact_mean, exact_var) -> np.ndarray:
    """Steps whose mean or variance is off; written as 'not within', so that a NaN is wrong."""
    err = mean_error_sd(mean, exact_mean, exact_var)
    ratio = variance_ratio(var, exact_var)
    lo, hi = WRONG_VAR_RATIO
    return ~((err <= WRONG_MEAN_SD) & (ratio >= lo) & (ratio <= hi))


def silent_steps(wrong, status) -> np.ndarray:
    return np.asarray(wrong, dtype=bool) & (np.asarray(status) == OK_STATUS)


def _worst(values: np.ndarray) -> float:
    """The largest value, a NaN counting as infinitely bad."""
    return float(np.max(np.where(np.isnan(values), np.inf, values)))


def score_run(mean, var, status, log_likelihood: float, exact) -> Score:
    """A run (arrays per step and its log L) against `exact` (anything with mean, var, log_likelihood). Means and
    variances of shape (steps, d) are a vector state's marginals: a step is wrong where any component is."""
    err = mean_error_sd(mean, exact.mean, exact.var)
    ratio = variance_ratio(var, exact.var)
    wrong = wrong_steps(mean, var, exact.mean, exact.var)
    wrong = wrong.any(axis=1) if wrong.ndim == 2 else wrong
    status = np.asarray(status)
    return Score(
        runs=1,
        steps=int(wrong.size),
        worst_sd=_worst(err),
        var_min=-_worst(-ratio),
        var_max=_worst(ratio),
        log_l_gap=float(log_likelihood) - float(exact.log_likelihood),
        wrong=int(wrong.sum()),
        silent=int(silent_steps(wrong, status).sum()),
        flagged=int((status != OK_STATUS).sum()),
        statuses=status_counts(status),
    )


def status_counts(status) -> dict[str, int]:
    """How many steps had each status other than OK, whatever statuses the filter has."""
    values, counts = np.unique(np.asarray(status), return_counts=True)
    return {str(int(v)): int(n) for v, n in zip(values, counts) if v != OK_STATUS}


def combine(scores: list[Score]) -> Score:
    """Several runs of one cell (its seeds) as one record: worst of each measure, counts summed."""
    gap = max((s.log_l_gap for s in scores), key=lambda g: math.inf if math.isnan(g) else abs(g))
    return Score(
        runs=sum(s.runs for s in scores),
        steps=sum(s.steps for s in scores),
        worst_sd=max(s.worst_sd for s in scores),
        var_min=min(s.var_min for s in scores),
        var_max=max(s.var_max for s in scores),
        log_l_gap=gap,
        wrong=sum(s.wrong for s in scores),
        silent=sum(s.silent for s in scores),
        flagged=sum(s.flagged for s in scores),
        statuses=merge_counts(s.statuses for s in scores),
    )


def score_modes(run_filter, traces: list, exact: list, modes, etas) -> dict:
    """mode → str(η) → the traces' combined score (`combine`, as a dict) of run_filter(trace, η, mode) — anything
    with mean, var, status and log_likelihood — against each trace's exact answer."""
    out = {}
    for mode in modes:
        out[mode] = {}
        for eta in etas:
            scores = []
            for tr, ex in zip(traces, exact):
                run = run_filter(tr, eta, mode)
                scores.append(score_run(run.mean, run.var, run.status, float(run.log_likelihood), ex))
            out[mode][str(eta)] = combine(scores).as_dict()
    return out


def var_range(score: dict) -> str:
    """A record's variance ratio range as the tables print it."""
    return f"{score['var_min']:.3g}–{score['var_max']:.3g}"


def mode_rows(sets: dict, etas, columns) -> list[list]:
    """A table row per set and mode of `score_modes`' records (label → mode → str(η) → score): the set's label, the
    mode, then columns(the scores in etas' order)."""
    return [
        [label, mode] + columns([by_eta[str(eta)] for eta in etas])
        for label, by_mode in sets.items()
        for mode, by_eta in by_mode.items()
    ]


def merge_counts(counts) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in counts:
        for k, n in c.items():
            out[k] = out.get(k, 0) + n
    return dict(sorted(out.items(), key=lambda kv: int(kv[0])))


def bound_for(eta: int) -> tuple[int, Bound] | None:
    """The bound the tables apply at η: η's own, else the nearest smaller η's (η = 32, 64 are held to
    η = 16's), else the smallest one (η = 4 is held to η = 8's). Returns (the bound's η, the bound)."""
    smaller = [e for e in BOUNDS if e <= eta]
    at = max(smaller) if smaller else min(BOUNDS)
    return at, BOUNDS[at]


def within(score: dict, bound: Bound) -> bool:
    """Whether a cell's record (Score.as_dict) meets `bound`; a NaN meets nothing."""
    lo, hi = bound.var_ratio
    ok = score["worst_sd"] <= bound.mean_sd and score["var_min"] >= lo and score["var_max"] <= hi
    if bound.log_l_nats is not None:
        ok = ok and abs(score["log_l_gap"]) <= bound.log_l_nats
    return bool(ok)
