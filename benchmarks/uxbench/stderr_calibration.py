"""Are the fits' standard errors right? Coverage on many traces of the one system whose exact likelihood is
cheap: the linear-Gaussian lg (Kalman filter).

The coverage study of evidence.md has 20 traces per system, too few to tell a 95 % interval from an 85 % one
(its binomial sd is about 5 %). Here, on many simulated 500-step traces of lg (200 unless told; q and r free),
three fits per trace:

- `ux`: `uxemu.fit` with its defaults (η = 16, mixture mode, native);
- `exact, our standard errors`: `uxemu.fit.maximise` over the Kalman filter's exact log-likelihood — the
  same search and the same standard-error procedure (a quadratic over the region where log L falls by
  0.5–4 nats) on the exact curve;
- `exact, central differences`: `kalman.fit_noises`, the exact MLE and its curvature by central
  differences at a step of 1e-4 (the oracle of the tests).

For each: how often the simulated value lies within two standard errors (95 % if the estimates are
unbiased and normal and the standard errors right; the binomial sd is 1.5 % at 200 traces), the mean and
std of z = (estimate − simulated) / se, and the spread of the estimates over the traces against the median
standard error (1 if the standard errors are right).

Beside each fit's ± 2 se, its profile-likelihood interval (`uxemu.profile`: where log L, maximised over the
other parameter, falls by 2 nats; the same 95.4 % on a quadratic log L), on the same traces.

Then the default fit on 200 traces each of sv, gss and cubic (and gss at η = 32), whose exact likelihood (a
grid filter) costs about a minute a fit: coverage of the fits whose standard errors hold and of those flagged
(`FitResult.why_unreliable`: smooth but skewed, or not smooth), by ± 2 se and by the profile interval, and,
for the four fits furthest off a quadratic on sv and gss, the exact likelihood's own fit: how far off a
quadratic it is there (the skew is the trace's when it is as far).

    .venv/bin/python -m uxbench stderr_calibration [--traces N]   (~70 min at 200)
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from uxemu import fit, kalman, profile, systems, traces

from . import environment, runner
from .exact_loglik import ExactLogLikelihood
from .report import RESULTS

SYSTEM, FREE = "lg", ("q", "r")
OTHERS = {"sv": ("phi", "sigma_eta"), "gss": ("sigma_v", "sigma_n"), "cubic": ("c", "sigma_v")}
RUNS = (("sv", 16), ("gss", 16), ("gss", 32), ("cubic", 16))  # (system, η): the default fit; gss at twice its η
SKEW_CHECKED = ("sv", "gss")  # the systems whose roughest fits are refitted on the exact likelihood
STEPS = 500
SEED = 2031  # other traces than evidence.py's
ESTIMATORS = ("ux", "exact, our standard errors", "exact, central differences")
ROUGHEST = 4  # per system, the fits refitted on the exact likelihood


def trace(system: str, i: int):
    return traces.simulate_many(systems.get(system), i + 1, STEPS, SEED)[i]


def fit_and_profile(loglik, free) -> tuple[fit.FitResult, dict, float]:
    """The fit, its profile intervals, and the CPU seconds those took beyond the fit's."""
    res = fit.maximise(loglik, free)
    t0 = time.process_time()
    return res, profile.intervals(loglik, res), time.process_time() - t0


def task(t: dict) -> dict:
    if t["kind"] == "ux":
        res, interval, cpu = fit_and_profile(
            fit.LogLikelihood(t["system"], trace(t["system"], t["trace"]), t["eta"]), OTHERS[t["system"]]
        )
        return dict(
            t,
            estimate=res.estimate,
            stderr=res.stderr,
            roughness=res.roughness,
            jitter=res.jitter,
            why=res.why_unreliable,
            smooth=res.smooth,
            cpu=res.seconds,
            interval=interval,
            profile_cpu=cpu,
        )
    if t["kind"] == "exact":
        res = fit.maximise(ExactLogLikelihood(t["system"], trace(t["system"], t["trace"])), OTHERS[t["system"]])
        return dict(t, roughness=res.roughness, jitter=res.jitter)
    spec = systems.spec(SYSTEM)
    tr = trace(SYSTEM, t["trace"])
    ux, ux_interval, _ = fit_and_profile(fit.LogLikelihood(SYSTEM, tr), FREE)
    ours, interval, _ = fit_and_profile(ExactLogLikelihood(SYSTEM, tr), FREE)
    a = spec.defaults[spec.param_names.index("a")]
    best, se = kalman.fit_noises(tr.z, a, *spec.prior[1:])
    return {
        "ux": (ux.estimate, ux.stderr, ux.roughness, ux_interval),
        "exact, our standard errors": (ours.estimate, ours.stderr, ours.roughness, interval),
        "exact, central differences": (dict(zip(FREE, best)), dict(zip(FREE, se)), float("nan"), None),
    }


def others_report(rows: list[dict], exact: list[dict]) -> list[str]:
    n = len(rows) // len(RUNS)
    lines = [
        f"## The default fit on {n} traces each of sv, gss and cubic (and gss at η = 32)",
        "",
        f"Flagged: off a quadratic by more than {fit.ROUGHNESS_LIMIT} nats rms on the standard errors' scale; "
        f"`skewed` when a cubic leaves at most {fit.JITTER_LIMIT} (smooth), `not smooth` otherwise. Each cell: "
        "within ± 2 se / inside the profile interval (a fit without a standard error is not within ± 2 se).",
        "",
        "| system | η | parameter | all | standard errors hold | flagged skewed | flagged not smooth | "
        "no se | CPU s per fit: median (largest) | profile's CPU s: median (largest) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for system, eta in RUNS:
        free = OTHERS[system]
        rs = [r for r in rows if r["system"] == system and r["eta"] == eta]
        cpu, extra = [r["cpu"] for r in rs], [r["profile_cpu"] for r in rs]
        truth = dict(zip(systems.spec(system).param_names, systems.spec(system).defaults))
        groups = {
            "hold": [r for r in rs if r["why"] is None],
            "skewed": [r for r in rs if r["why"] is not None and r["smooth"]],
            "rough": [r for r in rs if r["why"] is not None and not r["smooth"]],
        }

        def covered(group, p):
            wald = sum(abs(r["estimate"][p] - truth[p]) <= 2 * r["stderr"][p] for r in group)
            inside = sum(r["interval"][p][0] <= truth[p] <= r["interval"][p][1] for r in group)
            return f"{wald} / {inside} of {len(group)}"

        for p in free:
            lines.append(
                f"| {system} | {eta} | {p} | {covered(rs, p)} | {covered(groups['hold'], p)} | "
                f"{covered(groups['skewed'], p)} | {covered(groups['rough'], p)} | "
                f"{sum(not r['stderr'][p] > 0 for r in rs)} | {np.median(cpu):.1f} ({max(cpu):.1f}) | "
                f"{np.median(extra):.1f} ({max(extra):.1f}) |"
            )
    lines += [
        "",
        f"The {ROUGHEST} default fits (η = 16) of sv and gss furthest off a quadratic, beside the exact "
        "likelihood's fit of the same trace (nats rms off a quadratic / off a cubic):",
        "",
        "| system | trace | ux | exact |",
        "|---|---|---|---|",
    ]
    for e in exact:
        u = next(r for r in rows if r["system"] == e["system"] and r["trace"] == e["trace"] and r["eta"] == 16)
        lines.append(
            f"| {e['system']} | {e['trace']} | {u['roughness']:.3f} / {u['jitter']:.3f} | "
            f"{e['roughness']:.3f} / {e['jitter']:.3f} |"
        )
    return lines + [""]


def render(rows: list[dict], meta: str) -> str:
    truth = dict(zip(systems.spec(SYSTEM).param_names, systems.spec(SYSTEM).defaults))
    lines = [
        f"# Standard errors: coverage on {len(rows)} traces of lg",
        "",
        meta,
        "",
        __doc__.split("\n\n")[1].replace("\n", " "),
        "",
        "| estimator | parameter | within 2 se | inside the profile interval | mean z | std z | "
        "sd of estimates / median se | no se |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name in ESTIMATORS:
        for p in FREE:
            est = np.array([r[name][0][p] for r in rows])
            se = np.array([r[name][1][p] for r in rows])
            z = (est - truth[p]) / se
            ok = np.isfinite(z)
            intervals = [r[name][3] for r in rows]
            inside = (
                "—"
                if intervals[0] is None
                else f"{sum(lo <= truth[p] <= hi for lo, hi in (i[p] for i in intervals))}/{len(rows)}"
            )
            lines.append(
                f"| {name} | {p} | {int((np.abs(z[ok]) <= 2).sum())}/{z.size} "
                f"({100 * (np.abs(z[ok]) <= 2).sum() / z.size:.1f} %) | {inside} | {z[ok].mean():+.2f} | "
                f"{z[ok].std():.2f} | {est.std() / np.median(se[ok]):.2f} | {z.size - ok.sum()} |"
            )
    ux_vs = [
        abs(r["ux"][0][p] - r["exact, central differences"][0][p]) / r["exact, central differences"][1][p]
        for r in rows
        for p in FREE
    ]
    ratio = [r["exact, our standard errors"][1][p] / r["exact, central differences"][1][p] for r in rows for p in FREE]
    rough = [r["ux"][2] for r in rows]
    lines += [
        "",
        f"ux estimate from the exact MLE: median {np.median(ux_vs):.3f}, largest {max(ux_vs):.3f} exact se. "
        f"Our standard errors on the exact curve over the central differences': median {np.median(ratio):.3f}, "
        f"range {min(ratio):.3f}–{max(ratio):.3f}. ux fits flagged rough (above {fit.ROUGHNESS_LIMIT}): "
        f"{sum(r > fit.ROUGHNESS_LIMIT for r in rough)} of {len(rough)}; median roughness {np.median(rough):.3f}.",
        "",
    ]
    return "\n".join(lines)


def arguments(p) -> None:
    p.add_argument("--traces", type=int, default=200)
    p.add_argument("--out", type=Path, default=RESULTS)


def run(args) -> dict:
    env, t0 = environment.block({"traces": args.traces, "steps": STEPS}), time.time()
    rows = runner.execute([{"kind": "lg", "trace": i} for i in range(args.traces)], task, workers=2, desc="lg fits")
    others = runner.execute(
        [{"kind": "ux", "system": s, "eta": eta, "trace": i} for s, eta in RUNS for i in range(args.traces)],
        task,
        workers=2,
        desc="sv, gss, cubic fits",
    )
    roughest = [
        r
        for s in SKEW_CHECKED
        for r in sorted((r for r in others if r["system"] == s and r["eta"] == 16), key=lambda r: -r["roughness"])[
            :ROUGHEST
        ]
    ]
    exact = runner.execute(
        [{"kind": "exact", "system": r["system"], "trace": r["trace"]} for r in roughest],
        task,
        workers=2,
        desc="exact fits",
    )
    env["seconds"] = time.time() - t0
    return dict(env=env, rows=rows, others=others, exact=exact)


def report(results: dict, args) -> None:
    meta = f"{environment.line(results['env'])} Regenerate: `.venv/bin/python -m uxbench stderr_calibration`."
    args.out.mkdir(parents=True, exist_ok=True)
    text = render(results["rows"], meta) + "\n" + "\n".join(others_report(results["others"], results["exact"]))
    (args.out / "stderr_calibration.md").write_text(text)
    print(f"wrote {args.out / 'stderr_calibration.md'}")
