"""Are the fits' standard errors right? Coverage on many traces of the one system whose exact likelihood is
cheap: the linear-Gaussian lg (Kalman filter).

The coverage study of evidence.md has 20 traces per system, too few to tell a 95 % interval from an 85 % one
(its binomial sd is about 5 %). Here, on 200 simulated 500-step traces of lg (q and r free), three fits per
trace:

- `ux`: `uxemu.fit` with its defaults (η = 16, mixture mode, native);
- `exact, our standard errors`: `uxemu.fit.maximise` over the Kalman filter's exact log-likelihood — the
  same search and the same standard-error procedure (a quadratic over the region where log L falls by
  0.5–4 nats) on the exact curve;
- `exact, central differences`: `kalman.fit_noises`, the exact MLE and its curvature by central
  differences at a step of 1e-4 (the oracle of the tests).

For each: how often the simulated value lies within two standard errors (95 % if the estimates are
unbiased and normal and the standard errors right; the binomial sd at 200 traces is 1.5 %), the mean and
std of z = (estimate − simulated) / se, and the spread of the estimates over the traces against the median
standard error (1 if the standard errors are right).

    .venv/bin/python benchmarks/stderr_calibration.py [--traces N]
"""
from __future__ import annotations

import argparse
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from uxbench import runner  # noqa: E402
from uxbench.exact_loglik import ExactLogLikelihood  # noqa: E402
from uxemu import fit, kalman, systems, traces  # noqa: E402

SYSTEM, FREE = "lg", ("q", "r")
STEPS = 500
SEED = 2031  # other traces than evidence.py's
ESTIMATORS = ("ux", "exact, our standard errors", "exact, central differences")


def task(t: dict) -> dict:
    spec = systems.spec(SYSTEM)
    tr = traces.simulate_many(systems.get(SYSTEM), t["trace"] + 1, STEPS, SEED)[t["trace"]]
    ux = fit.fit(SYSTEM, tr, FREE)
    ours = fit.maximise(ExactLogLikelihood(SYSTEM, tr), FREE)
    a = spec.defaults[spec.param_names.index("a")]
    best, se = kalman.fit_noises(tr.z, a, *spec.prior[1:])
    return {"ux": (ux.estimate, ux.stderr, ux.roughness),
            "exact, our standard errors": (ours.estimate, ours.stderr, ours.roughness),
            "exact, central differences": (dict(zip(FREE, best)), dict(zip(FREE, se)), float("nan"))}


def report(rows: list[dict], meta: str) -> str:
    truth = dict(zip(systems.spec(SYSTEM).param_names, systems.spec(SYSTEM).defaults))
    lines = [f"# Standard errors: coverage on {len(rows)} traces of lg", "", meta, "", __doc__.split("\n\n")[1].replace("\n", " "),
             "", "| estimator | parameter | within 2 se | mean z | std z | sd of estimates / median se | no se |",
             "|---|---|---|---|---|---|---|"]
    for name in ESTIMATORS:
        for p in FREE:
            est = np.array([r[name][0][p] for r in rows])
            se = np.array([r[name][1][p] for r in rows])
            z = (est - truth[p]) / se
            ok = np.isfinite(z)
            lines.append(f"| {name} | {p} | {int((np.abs(z[ok]) <= 2).sum())}/{z.size} "
                         f"({100 * (np.abs(z[ok]) <= 2).sum() / z.size:.1f} %) | {z[ok].mean():+.2f} | {z[ok].std():.2f} | "
                         f"{est.std() / np.median(se[ok]):.2f} | {z.size - ok.sum()} |")
    ux_vs = [abs(r["ux"][0][p] - r["exact, central differences"][0][p]) / r["exact, central differences"][1][p]
             for r in rows for p in FREE]
    ratio = [r["exact, our standard errors"][1][p] / r["exact, central differences"][1][p] for r in rows for p in FREE]
    rough = [r["ux"][2] for r in rows]
    lines += ["", f"ux estimate from the exact MLE: median {np.median(ux_vs):.3f}, largest {max(ux_vs):.3f} exact se. "
              f"Our standard errors on the exact curve over the central differences': median {np.median(ratio):.3f}, "
              f"range {min(ratio):.3f}–{max(ratio):.3f}. ux fits flagged rough (above {fit.ROUGHNESS_LIMIT}): "
              f"{sum(r > fit.ROUGHNESS_LIMIT for r in rough)} of {len(rough)}; median roughness {np.median(rough):.3f}.", ""]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--traces", type=int, default=200)
    ap.add_argument("--out", type=Path, default=HERE / "results")
    args = ap.parse_args()
    t0 = time.time()
    rows = runner.execute([{"trace": i} for i in range(args.traces)], task, workers=2, desc="lg fits")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE).stdout.strip()
    meta = (f"Measured on {platform.machine()}, {os.cpu_count()} CPUs, commit {commit}, {time.time() - t0:.0f} s, "
            f"{args.traces} traces of {STEPS} steps. Regenerate: `.venv/bin/python benchmarks/stderr_calibration.py`.")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "stderr_calibration.md").write_text(report(rows, meta))
    print(f"wrote {args.out / 'stderr_calibration.md'}")


if __name__ == "__main__":
    main()
