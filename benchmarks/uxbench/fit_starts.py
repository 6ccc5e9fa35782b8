"""Fits from the default start: 50 local-level traces far from lg's defaults, against the exact Kalman MLE.

    .venv/bin/python -m uxbench.fit_starts [--quick] [--traces N] [--out PATH]
        → benchmarks/results/fit_starts.md (--quick: benchmarks/results/quick/fit_starts.md)

Issue 36's done-when: "From the default start, local-level fits on 50 regime traces land within 2 exact
standard errors of the exact Kalman MLE in ≥ 95 %; none reports convergence at a point below its own best
evaluation." Each trace is fitted by `uxemu.fit.fit` (lg, a = 1 fixed, q and r free, no start given: the fit
scans its own starts from the data's scale) in every mode × prior below, and compared with the exact MLE of
the same trace under the same prior (`exact_mle`: Nelder–Mead on the Kalman log-likelihood from five starts,
standard errors from `uxemu.kalman.fit_noises` started at the best).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import NamedTuple

import numpy as np

from uxemu import fit as uxfit
from uxemu import kalman, laws, native, traces

from . import environment, report

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "benchmarks" / "results" / "fit_starts.md"
QUICK_OUT = ROOT / "benchmarks" / "results" / "quick" / "fit_starts.md"

# The traces: the local-level model x' = x + N(0, q²), z = x + N(0, r²) over the regime benchmark's range of
# scales, every r × every q/r (50 traces), each of STEPS steps, trace i simulated from seed i.
NOISE_SCALES = (0.01, 0.1, 1.0, 10.0, 100.0)  # r
RATIOS = tuple(float(v) for v in np.logspace(-3, 1, 10))  # q/r
STEPS = 200
# The data's x₀ is drawn from lg's table prior N(0, 2²), which the "table" filter prior also is; the "wide"
# filter prior is N(z₀, (WIDE_PRIOR_SCALE · r)²), centred on the first reading, as a user without a prior would.
TABLE_PRIOR = (0.0, 2.0)
WIDE_PRIOR_SCALE = 100.0
PRIORS = ("table", "wide")
MODES = ("refined", "mixture")
ETA = 16
ENGINE = "native"
SYSTEM, FREE, FIXED = "lg", ("q", "r"), {"a": 1.0}
# --quick: this many traces, spread evenly over the grid (one per r), in the fit's default mode only.
QUICK_TRACES = 5
QUICK_MODES = (uxfit.DEFAULT_MODE,)

# "Within": both fitted parameters within WITHIN_SE exact standard errors of the exact MLE. Where an exact
# standard error is 0 or undefined — the MLE at the domain's edge (q or r → 0), or so near it that
# `kalman.fit_noises`' fixed finite-difference step crosses 0 — the fit is within when the exact log-likelihood
# at its estimate is at most GAP_NATS below the maximum's (2 se of a quadratic log L is a fall of 2 nats).
WITHIN_SE = 2.0
GAP_NATS = 2.0
# The done-when: at least this share of the traces within (48 of 50), and no fit converged below its own
# best filter run.
PASS_SHARE = 0.95

# The exact MLE's search: Nelder–Mead in log (q, r) from the truth and from these multiples (q, r) of the
# spread of the trace's first differences, the best kept; the likelihood has a ridge (q small, r large vs the
# reverse), so one start is not enough.
ORACLE_START_MULTIPLES = ((1.0, 0.1), (0.1, 1.0), (1 / 3, 1 / 3), (1 / 30, 1 / 2))
ORACLE_OPTIONS = dict(xatol=1e-9, fatol=1e-11, maxfev=4000)


class Case(NamedTuple):
    index: int  # also the trace's seed
    r: float
    ratio: float  # q / r

    @property
    def q(self) -> float:
        return self.ratio * self.r


class ExactMLE(NamedTuple):
    q: float
    r: float
    se_q: float
    se_r: float
    log_likelihood: float


def cases() -> list[Case]:
    """Every r × every q/r, r outermost; the index is the seed."""
    grid = [(r, ratio) for r in NOISE_SCALES for ratio in RATIOS]
    return [Case(i, r, ratio) for i, (r, ratio) in enumerate(grid)]


def spread_subset(all_cases: list[Case], count: int) -> list[Case]:
    """`count` cases evenly spaced over the grid (the first and last among them), keeping their seeds."""
    picks = np.unique(np.linspace(0, len(all_cases) - 1, count).round().astype(int))
    return [all_cases[i] for i in picks]


def simulate(case: Case, steps: int = STEPS) -> traces.Trace:
    """The local level x₀ ~ TABLE_PRIOR, x' = x + N(0, q²), read as z = x + N(0, r²); seed = the case's index."""
    rng = np.random.default_rng(case.index)
    m0, s0 = TABLE_PRIOR
    x0 = m0 + s0 * rng.normal()
    x = x0 + np.concatenate([[0.0], np.cumsum(rng.normal(0.0, case.q, steps - 1))])
    z = x + rng.normal(0.0, case.r, steps)
    return traces.Trace(np.arange(steps), np.zeros(steps), z, x)


def filter_prior(kind: str, case: Case, z: np.ndarray) -> laws.Normal:
    """The prior the fit and the exact MLE both use: lg's table prior, or a wide one centred on z₀."""
    if kind == "table":
        return laws.Normal(*TABLE_PRIOR)
    if kind == "wide":
        return laws.Normal(float(z[0]), WIDE_PRIOR_SCALE * case.r)
    raise ValueError(f"unknown prior {kind!r}; known: {PRIORS}")


def exact_log_likelihood(z, prior: laws.Normal, q: float, r: float) -> float:
    return kalman.kalman_filter(z, 1.0, q, r, prior.mu, prior.sigma).log_likelihood


def exact_mle(z, prior: laws.Normal, truth: tuple[float, float]) -> ExactMLE:
    """The exact MLE of (q, r), robustly: the best of Nelder–Mead runs from several starts, polished and given
    its standard errors by `kalman.fit_noises` (nan where the exact curvature is not positive or not finite)."""
    from scipy.optimize import minimize

    def negative(v):
        return -exact_log_likelihood(z, prior, math.exp(v[0]), math.exp(v[1]))

    spread = float(np.std(np.diff(z)))
    starts = [truth] + [(spread * mq, spread * mr) for mq, mr in ORACLE_START_MULTIPLES]
    runs = [minimize(negative, np.log(start), method="Nelder-Mead", options=ORACLE_OPTIONS) for start in starts]
    best = min(runs, key=lambda run: run.fun)
    with np.errstate(invalid="ignore"):  # a negative variance from a flat direction: no standard error
        (q, r), (se_q, se_r) = kalman.fit_noises(z, 1.0, prior.mu, prior.sigma, start=tuple(np.exp(best.x)))
    return ExactMLE(float(q), float(r), float(se_q), float(se_r), exact_log_likelihood(z, prior, q, r))


def defined(se: float) -> bool:
    return math.isfinite(se) and se > 0


def within(estimate: tuple[float, float], exact: ExactMLE, gap: float) -> bool:
    """The "within" rule (WITHIN_SE; GAP_NATS where an exact standard error is 0 or undefined)."""
    errors = (exact.se_q, exact.se_r)
    if not all(defined(se) for se in errors):
        return gap <= GAP_NATS
    return all(abs(e - m) <= WITHIN_SE * se for e, m, se in zip(estimate, (exact.q, exact.r), errors))


def converged_below_best(result: uxfit.FitResult) -> bool:
    """Read from the fit's own runs, not its flag: it says "converged" although one of its filter runs beat the
    optimum by more than the fit's tolerance (uxemu.fit.BEST_TOLERANCE, BEST_FLOOR: within the search's own
    precision a run is not better)."""
    best = max((value for _, value in result.history if math.isfinite(value)), default=-math.inf)
    tolerance = max(uxfit.BEST_TOLERANCE * abs(result.log_likelihood), uxfit.BEST_FLOOR)
    return result.converged and best > result.log_likelihood + tolerance


def fit_from_default(trace: traces.Trace, prior: laws.Normal, mode: str) -> uxfit.FitResult:
    """The fit under test: no start given, so it scans its own."""
    return uxfit.fit(SYSTEM, trace, list(FREE), fixed=FIXED, eta=ETA, mode=mode, engine=ENGINE, prior=prior)


def filter_gain_at_exact(
    trace: traces.Trace, prior: laws.Normal, mode: str, exact: ExactMLE, result: uxfit.FitResult
) -> float:
    """The filter's own log L at the exact MLE minus at the fit's optimum: positive where the filter's likelihood
    is higher at the exact MLE, so a miss is the search's (it stopped short), not the filter's (its maximum
    elsewhere). One filter run, outside the fit (not in its runs or CPU time)."""
    loglik = uxfit.LogLikelihood(SYSTEM, trace, eta=ETA, mode=mode, prior=prior, engine=ENGINE)
    at_exact = {**FIXED, "q": exact.q, "r": exact.r}
    return loglik([at_exact[name] for name in loglik.spec.param_names]) - result.log_likelihood


def score(
    case: Case, trace: traces.Trace, prior: laws.Normal, mode: str, exact: ExactMLE, result: uxfit.FitResult
) -> dict:
    """One fit's record: where it landed against the exact MLE, and what it said about itself."""
    estimate = (result.estimate["q"], result.estimate["r"])
    gap = exact.log_likelihood - exact_log_likelihood(trace.z, prior, *estimate)
    return dict(
        index=case.index,
        r_true=case.r,
        ratio=case.ratio,
        exact=exact._asdict(),
        q=estimate[0],
        r=estimate[1],
        gap=gap,
        within=within(estimate, exact, gap),
        converged=result.converged,
        flagged=result.better_seen is not None,
        below_best=converged_below_best(result),
        filter_gain=filter_gain_at_exact(trace, prior, mode, exact, result),
        runs=result.evaluations,
        cpu=result.seconds,
    )


def run_configuration(chosen: list[Case], mode: str, prior_kind: str, oracle: dict, progress=print) -> list[dict]:
    """Every chosen trace fitted in `mode` under `prior_kind`; `oracle` caches the exact MLE per (trace, prior)."""
    records = []
    for case in chosen:
        trace = simulate(case)
        prior = filter_prior(prior_kind, case, trace.z)
        key = (case.index, prior_kind)
        if key not in oracle:
            oracle[key] = exact_mle(trace.z, prior, (case.q, case.r))
        record = score(case, trace, prior, mode, oracle[key], fit_from_default(trace, prior, mode))
        records.append(record)
        progress(
            f"{mode} {prior_kind} #{case.index:2d} r={case.r:g} q/r={case.ratio:.3g}: "
            f"{'within' if record['within'] else 'MISS'}, gap {record['gap']:.3g} nats, "
            f"{record['runs']} runs, {record['cpu']:.2f} s"
        )
    return records


# -- the report --------------------------------------------------------------------------------------------
def needed(count: int) -> int:
    """Traces that must be within for the done-when: PASS_SHARE of them, rounded up (48 of 50); the 1e-9 keeps
    a product such as 0.95 × 20, 19 up to rounding, from rounding up to 20."""
    return math.ceil(PASS_SHARE * count - 1e-9)


def summary(records: list[dict]) -> dict:
    n = len(records)
    return dict(
        n=n,
        within=sum(r["within"] for r in records),
        converged_not_within=sum(r["converged"] and not r["within"] for r in records),
        converged_flagged=sum(r["converged"] and r["flagged"] for r in records),
        flagged=sum(r["flagged"] for r in records),
        below_best=sum(r["below_best"] for r in records),
        runs=float(np.mean([r["runs"] for r in records])),
        cpu=float(np.mean([r["cpu"] for r in records])),
    )


def meets(s: dict) -> bool:
    return s["within"] >= needed(s["n"]) and s["converged_flagged"] == 0 and s["below_best"] == 0


def verdict(mode: str, prior_kind: str, s: dict) -> str:
    word = "meets" if meets(s) else "does not meet"
    return (
        f"**{mode}, {prior_kind} prior: {word} the done-when** — {s['within']} of {s['n']} within "
        f"(≥ {needed(s['n'])} needed); {s['below_best']} converged below their own best run, "
        f"{s['converged_flagged']} converged while flagged."
    )


def summary_table(results: dict) -> str:
    columns = [
        "mode",
        "prior",
        "within",
        "converged, not within",
        "converged and flagged",
        "converged below own best run",
        "flagged (better_seen)",
        "filter runs per fit",
        "CPU s per fit",
    ]
    rows = []
    for (mode, prior_kind), records in results.items():
        s = summary(records)
        rows.append(
            [
                mode,
                prior_kind,
                f"{s['within']}/{s['n']}",
                s["converged_not_within"],
                s["converged_flagged"],
                s["below_best"],
                s["flagged"],
                f"{s['runs']:.0f}",
                f"{s['cpu']:.2f}",
            ]
        )
    return report.markdown_table(columns, rows)


def misses_table(records: list[dict]) -> str:
    columns = [
        "trace",
        "r",
        "q/r",
        "exact q",
        "exact r",
        "se q",
        "se r",
        "fitted q",
        "fitted r",
        "exact log L gap (nats)",
        "filter's log L at the exact MLE − at the fit (nats)",
        "converged",
        "flagged",
    ]
    rows = [
        [
            r["index"],
            r["r_true"],
            f"{r['ratio']:.3g}",
            f"{r['exact']['q']:.4g}",
            f"{r['exact']['r']:.4g}",
            f"{r['exact']['se_q']:.3g}",
            f"{r['exact']['se_r']:.3g}",
            f"{r['q']:.4g}",
            f"{r['r']:.4g}",
            f"{r['gap']:.3g}",
            f"{r['filter_gain']:+.3g}",
            yes_no(r["converged"]),
            yes_no(r["flagged"]),
        ]
        for r in records
        if not r["within"]
    ]
    return report.markdown_table(columns, rows)


def yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def gap_rule_count(records: list[dict]) -> int:
    """Traces judged by the log L gap: an exact standard error 0 or undefined."""
    return sum(not (defined(r["exact"]["se_q"]) and defined(r["exact"]["se_r"])) for r in records)


def gap_rule_note(results: dict) -> str:
    """How many traces each prior judges by the log L gap (the exact MLE's, so the same in every mode)."""
    first_per_prior = {prior_kind: records for (_, prior_kind), records in reversed(list(results.items()))}
    return ", ".join(
        f"{prior_kind} prior {gap_rule_count(first_per_prior[prior_kind])} of " f"{len(first_per_prior[prior_kind])}"
        for prior_kind in PRIORS
        if prior_kind in first_per_prior
    )


MISSES_NOTE = (
    "The exact log L gap: the exact (Kalman) log L at the exact MLE minus at the fitted point. The filter's "
    "column: its own log L at the exact MLE minus at the fit's optimum (one filter run outside the fit): "
    "positive, the search stopped short of a higher point of the filter's own likelihood; negative, the "
    "filter's maximum is elsewhere.\n\n"
)


def render(results: dict, meta: dict, command: str, cpu_total: float) -> str:
    count = len(next(iter(results.values())))
    parts = [
        f"# Fits from the default start: {count} local-level traces against the exact Kalman MLE\n\n",
        f"`{command}`. {environment.line(meta)} {cpu_total:.0f} s CPU.\n\n",
        f"Traces: the local level (lg, a = 1), r ∈ {{{', '.join(f'{v:g}' for v in NOISE_SCALES)}}} × q/r ∈ "
        f"{{{', '.join(f'{v:.3g}' for v in RATIOS)}}}, {STEPS} steps, trace i from seed i, x₀ ~ "
        f"N({TABLE_PRIOR[0]:g}, {TABLE_PRIOR[1]:g}²). Each is fitted by `uxemu.fit.fit` (q, r free, no start: "
        f"the fit scans starts from the data's scale) at η = {ETA} on the {ENGINE} engine, with the filter prior "
        f"lg's table N({TABLE_PRIOR[0]:g}, {TABLE_PRIOR[1]:g}²) (\"table\") or N(z₀, ({WIDE_PRIOR_SCALE:g} r)²) "
        f"(\"wide\"). The exact MLE under the same prior: Nelder–Mead on the Kalman log-likelihood from the "
        f"truth and {len(ORACLE_START_MULTIPLES)} starts from the data's spread, the best polished by "
        f"`uxemu.kalman.fit_noises`, which gives the exact standard errors.\n\n",
        f"**Within**: both fitted q and r within {WITHIN_SE:g} exact se of the exact MLE; where an exact se is 0 "
        f"or undefined, the exact log L at the fitted point at most {GAP_NATS:g} nats below the maximum's "
        f"(traces judged so: {gap_rule_note(results)}). These are the MLEs at q → 0 (or r → 0), whose curvature "
        "is not read, and at r = 0.01 some with q of order 1e-4: `kalman.fit_noises` steps q and r by a fixed "
        "amount, which there crosses 0.\n\n"
        "**Converged below own best run**: `converged` although a filter run of the fit's own history "
        f"beat its optimum by more than the fit's tolerance (max({uxfit.BEST_TOLERANCE:g} |log L|, "
        f"{uxfit.BEST_FLOOR:g}) nats) — read from the history, not from the fit's flag; **converged and flagged**: "
        "`converged` with `better_seen` set (0 by construction). The done-when: at least "
        f"{PASS_SHARE:.0%} within ({needed(count)} of {count}) and no fit converged below its own best run.\n\n",
        summary_table(results),
        "\n",
        "".join(f"- {verdict(mode, p, summary(recs))}\n" for (mode, p), recs in results.items()),
        "\n",
    ]
    for (mode, prior_kind), records in results.items():
        missed = [r for r in records if not r["within"]]
        parts.append(f"## Misses: {mode}, {prior_kind} prior ({len(missed)})\n\n")
        if missed:
            parts.append(MISSES_NOTE)
        parts.append(misses_table(records) if missed else "None.\n")
        parts.append("\n")
    return "".join(parts)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="uxbench.fit_starts", description=__doc__.splitlines()[0])
    p.add_argument(
        "--quick", action="store_true", help=f"{QUICK_TRACES} traces, the default mode only ({', '.join(QUICK_MODES)})"
    )
    p.add_argument(
        "--traces", type=int, help="this many traces, spread over the grid (default: all, --quick: " f"{QUICK_TRACES})"
    )
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    if not native.available():
        raise SystemExit("uxbench.fit_starts: build/native is not built: run `make native`")
    all_cases = cases()
    count = args.traces or (QUICK_TRACES if args.quick else len(all_cases))
    chosen = spread_subset(all_cases, count) if count < len(all_cases) else all_cases
    modes = QUICK_MODES if args.quick else MODES
    out = args.out or (QUICK_OUT if args.quick else OUT)
    meta = report.run_meta()
    wall0, cpu0 = time.perf_counter(), time.process_time()
    oracle: dict = {}
    results = {
        (mode, prior_kind): run_configuration(chosen, mode, prior_kind, oracle)
        for mode in modes
        for prior_kind in PRIORS
    }
    meta["seconds"] = time.perf_counter() - wall0
    command = ".venv/bin/python -m uxbench.fit_starts" + "".join(
        f" {a}" for a in (["--quick"] if args.quick else []) + ([f"--traces {args.traces}"] if args.traces else [])
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render(results, meta, command, time.process_time() - cpu0))
    print(f"uxbench.fit_starts → {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
