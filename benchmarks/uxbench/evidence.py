"""The filter's evidence, measured: its log-likelihood against the exact one, parameters recovered by
maximising it, and its smoothness in θ beside a bootstrap particle filter's random estimate.

Writes benchmarks/results/evidence.md and evidence_profile.png:

1. Accuracy: log p(z_0..T−1) of the ux filter (native C, refined, kernel) at η = 16, 32, 64 against the
   grid filter's (1501 points; the Kalman filter's too on lg), per step: the updates' evidence (the
   filter's log-likelihood), the filter density's quadrature of the same integrals (evidence="density"),
   and the log-likelihood of the filter in mixture mode.
2. Recovery: `uxemu.fit` on simulated 500-step traces of each system at η = 16 (and η = 64) on the
   updates' evidence, at η = 16 on the density's, and at η = 16 in mixture mode: estimate, standard
   error, how many standard errors from the simulated value, the roughness of log L on the standard
   errors' scale, CPU time — beside the
   exact likelihood's fit on the same trace (grid or Kalman filter: `uxbench.exact_loglik`), the oracle
   for both the estimate and its standard error.
3. Coverage: `uxemu.fit` with its defaults on 20 more 500-step traces per system (and the exact
   likelihood's fit on each, two worker processes): how often the
   simulated value is within two standard errors (about 95 % if estimates and standard errors are right).
4. Smoothness: the log-likelihood along one parameter (sv's σ_η) from the ux filter (refined, a filter
   run's default; mixture, a fit's), the exact one (grid filter) and the C bootstrap PF with 100 and 1000
   particles (mean and seed-to-seed std over seeds); where each curve peaks.

    .venv/bin/python -m uxbench evidence [--quick]     (~50 min; --quick: a smoke run)
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from uxemu import fit, kalman, native, systems, traces
from uxemu.filter import sum_in_order

from . import environment, pf_native, runner
from .baselines.grid import grid_filter
from .exact_loglik import ExactLogLikelihood
from .report import RESULTS, save_figure

FREE = {"sv": ("phi", "sigma_eta"), "gss": ("sigma_v", "sigma_n"), "cubic": ("c", "sigma_v"), "lg": ("q", "r")}
SEED = 2027
COVERAGE_STEPS = 500
# (steps, traces, etas) of accuracy and recovery, traces of coverage, (steps, points, seeds) of the profile
SIZES = {
    "quick": dict(accuracy=(50, 1, (16, 64)), recovery=(200, 1, (16,)), coverage=2, profile=(100, 9, 3)),
    "full": dict(accuracy=(200, 5, (16, 32, 64)), recovery=(500, 3, (16, 64)), coverage=20, profile=(500, 41, 20)),
}


def accuracy(T: int, n_traces: int, etas) -> list[dict]:
    nat = native.load()
    rows = []
    for name in FREE:
        model, sid = systems.get(name), systems.spec(name).id
        for i, tr in enumerate(traces.simulate_many(model, n_traces, T, SEED)):
            grid = grid_filter(model, tr).log_likelihood
            exact = kalman.for_model(model, tr.z).log_likelihood if name == "lg" else None
            for eta in etas:
                run = nat.run_filter(sid, tr.k, tr.u, tr.z, eta, atoms=False, density_evidence=True)
                mix = nat.run_filter(sid, tr.k, tr.u, tr.z, eta, mode="mixture", atoms=False)
                rows.append(
                    dict(
                        system=name,
                        trace=i,
                        eta=eta,
                        ux=run.log_likelihood,
                        grid=grid,
                        kalman=exact,
                        steps=T,
                        density=sum_in_order(run.density_log_evidence),
                        mixture=mix.log_likelihood,
                    )
                )
    return rows


# cubic at η = 64 costs ~12 ms a step (its inner noise: η³ likelihood terms), ~6 s a 500-step run and
# ~15 min a fit: it is recovered at η = 16 and 32 only.
LARGEST_ETA = {"cubic": 32}


def recovery(T: int, n_traces: int, etas) -> list[dict]:
    rows = []
    for name, free in FREE.items():
        spec = systems.spec(name)
        truth = dict(zip(spec.param_names, spec.defaults))
        for i, tr in enumerate(traces.simulate_many(systems.get(name), n_traces, T, SEED + 1)):
            exact = fit.maximise(ExactLogLikelihood(name, tr), free)
            print(f"  {name} trace {i}: exact fit {exact.seconds:.0f} s", flush=True)
            runs = [(min(e, LARGEST_ETA.get(name, e)), "update", "refined") for e in etas] + [
                (min(etas), "density", "refined"),
                (min(etas), "update", "mixture"),
            ]
            for eta, evidence, mode in runs:
                res = fit.fit(name, tr, free, eta=eta, mode=mode, evidence=evidence)
                for p in free:
                    rows.append(
                        dict(
                            system=name,
                            trace=i,
                            eta=eta,
                            evidence=evidence if mode == "refined" else mode,
                            param=p,
                            truth=truth[p],
                            estimate=res.estimate[p],
                            stderr=res.stderr[p],
                            z=(res.estimate[p] - truth[p]) / res.stderr[p],
                            exact=exact.estimate[p],
                            exact_stderr=exact.stderr[p],
                            exact_z=(exact.estimate[p] - truth[p]) / exact.stderr[p],
                            roughness=res.roughness,
                            exact_roughness=exact.roughness,
                            reliable=res.stderr_reliable,
                            cpu=res.seconds,
                            runs=res.evaluations,
                            converged=res.converged,
                        )
                    )
    return rows


def coverage(T: int, n_traces: int) -> list[dict]:
    """`uxemu.fit` with its defaults (η = 16, mixture mode) on many simulated traces per system, beside the
    exact likelihood's fit on each: how often the simulated value lies within two standard errors of the
    estimate (about 95 % if the estimates and their standard errors are right), and the spread of
    (estimate − simulated) / se (about 1). The exact fits say how much of a shortfall is the data's (finite
    traces, parameters at a bound) rather than the filter's. Two worker processes, one task per trace."""
    tasks = [dict(system=name, trace=i, steps=T) for name in FREE for i in range(n_traces)]
    rows = [r for out in runner.execute(tasks, _coverage_task, workers=2, desc="coverage fits") for r in out]
    return rows


def _coverage_task(task: dict) -> list[dict]:
    name, i = task["system"], task["trace"]
    free, spec = FREE[name], systems.spec(name)
    truth = dict(zip(spec.param_names, spec.defaults))
    tr = traces.simulate_many(systems.get(name), i + 1, task["steps"], SEED + 3)[i]
    res = fit.fit(name, tr, free)
    exact = fit.maximise(ExactLogLikelihood(name, tr), free)
    return [
        dict(
            system=name,
            trace=i,
            param=p,
            z=(res.estimate[p] - truth[p]) / res.stderr[p],
            exact_z=(exact.estimate[p] - truth[p]) / exact.stderr[p],
            reliable=res.stderr_reliable,
            cpu=res.seconds,
            exact_cpu=exact.seconds,
        )
        for p in free
    ]


UX_PROFILE_MODES = ("refined", fit.DEFAULT_MODE)  # a filter run's default mode, and a fit's


def profile(T: int, points: int, seeds: int):
    """log L(σ_η) of sv: ux η = 16 in UX_PROFILE_MODES, the grid filter's (exact), and the PF's (100, 1000
    particles; one row per seed)."""
    nat, lib = native.load(), pf_native.load()
    spec = systems.spec("sv")
    tr = traces.simulate(systems.get("sv"), T, np.random.default_rng(SEED + 2))
    grid = np.linspace(0.1, 0.3, points)
    base = list(spec.defaults)
    ux = {mode: [] for mode in UX_PROFILE_MODES}
    exact = []
    pf = {100: [], 1000: []}
    for s in grid:
        p = tuple(base[:2] + [float(s)] + base[3:])
        for mode in ux:
            ux[mode].append(
                nat.run_filter(spec.id, tr.k, tr.u, tr.z, 16, mode=mode, params=p, atoms=False).log_likelihood
            )
        exact.append(grid_filter(systems.from_param_vector(spec.id, p), tr).log_likelihood)
        for n in pf:
            pf[n].append(
                [
                    lib.run_pf(spec.id, tr.k, tr.u, tr.z, n, seed, particles=False, params=p).log_likelihood
                    for seed in range(seeds)
                ]
            )
    return grid, {m: np.array(v) for m, v in ux.items()}, np.array(exact), {n: np.array(v) for n, v in pf.items()}


def plot(grid, ux, exact, pf, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5), layout="constrained")
    for n, color in ((100, "tab:orange"), (1000, "tab:green")):
        m, s = pf[n].mean(axis=1), pf[n].std(axis=1)
        ax.fill_between(grid, m - s, m + s, color=color, alpha=0.25)
        ax.plot(grid, pf[n][:, 0], ".", color=color, ms=4, label=f"PF {n}: one seed (band: mean ± seed-to-seed std)")
    for (mode, curve), style in zip(ux.items(), ("--", "-")):
        ax.plot(grid, curve, style, color="tab:blue", lw=2, label=f"ux η=16 {mode} (deterministic)")
    ax.plot(grid, exact, "-", color="black", lw=0.8, label="exact (grid filter)")  # last: on top of ux's
    ax.set_xlabel("σ_η (sv)")
    ax.set_ylabel("log p(z_0..T−1 | σ_η)")
    ax.legend(fontsize="small")
    save_figure(fig, out, dpi=110)


def profile_report(grid, ux, exact, pf) -> list[str]:
    """The smoothness section: per curve its seed-to-seed std, range, largest gap to the exact curve,
    second differences and where it peaks (for the PF: over seeds)."""
    step = grid[1] - grid[0]

    def row(name, curve, std, peak):
        return (
            f"| {name} | {std} | {np.ptp(curve):.2f} | {np.abs(curve - exact).max():.3f} | "
            f"{np.diff(curve, 2).std():.4f} | {peak} |"
        )

    lines = [
        "## Smoothness in θ: the ux filter beside the bootstrap PF (sv, σ_η from 0.1 to 0.3)",
        "",
        f"{grid.size} values of σ_η, one 500-step trace; PF: {pf[100].shape[1]} seeds per value. `largest gap`: "
        f"to the exact log L (grid filter) over σ_η; for the PF, its mean over seeds. `second differences`: "
        f"their std at a step of {step:.4f} (the exact curve's is its own curvature changing; above it, "
        "small-scale roughness). `peak`: the σ_η of the grid where the curve is largest (PF: median over "
        "seeds, and the range its seeds' peaks span).",
        "",
        "| estimator | seed-to-seed std of log L (median over σ_η) | range of log L over σ_η | largest gap | "
        "second differences | peak |",
        "|---|---|---|---|---|---|",
        row("exact (grid filter)", exact, "0", f"{grid[np.argmax(exact)]:.3f}"),
    ]
    for mode, curve in ux.items():
        lines.append(row(f"ux η=16 {mode}", curve, "0 (deterministic)", f"{grid[np.argmax(curve)]:.3f}"))
    for n, runs in pf.items():
        peaks = grid[np.argmax(runs, axis=0)]
        lines.append(
            row(
                f"PF {n}",
                runs.mean(axis=1),
                f"{np.median(runs.std(axis=1)):.3f}",
                f"{np.median(peaks):.3f} ({peaks.min():.3f}–{peaks.max():.3f})",
            )
        )
    lines += ["", "![log-likelihood profile](evidence_profile.png)", ""]
    return lines


def coverage_report(cov, T: int) -> list[str]:
    n = len({(r["system"], r["trace"]) for r in cov}) // len(FREE)
    lines = [
        f"## Coverage: the default fit on {n} more traces per system",
        "",
        f"`uxemu.fit` with its defaults (η = 16, mixture mode, update evidence) on {n} simulated {T}-step traces "
        "per system (other seeds than the table above), and the exact likelihood's fit on the same traces. "
        "If the estimates are unbiased and their standard errors right, (estimate − simulated) / se is about "
        "N(0, 1): about 95 % within ±2, std about 1. Where the exact fits fall short too, the shortfall is the "
        "data's (500 steps, a parameter near its bound), not the filter's.",
        "",
        "`no se`: fits whose observed information is not positive there (the log-likelihood flat or the "
        "estimate at its bound: no standard error, counted as not within); `flagged`: fits whose standard "
        f"errors are flagged as not holding (roughness above {fit.ROUGHNESS_LIMIT}).",
        "",
        "| system | parameter | within 2 se | exact: within 2 se | mean z | std z | largest \\|z\\| | no se | "
        "exact: no se | flagged | CPU s per fit (largest) | exact CPU s (largest) |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def within(z):
        return int((np.abs(z[np.isfinite(z)]) <= 2).sum())

    for name, free in FREE.items():
        for p in free:
            rs = [r for r in cov if r["system"] == name and r["param"] == p]
            z, ze = np.array([r["z"] for r in rs]), np.array([r["exact_z"] for r in rs])
            ok = z[np.isfinite(z)]
            lines.append(
                f"| {name} | {p} | {within(z)}/{z.size} | {within(ze)}/{ze.size} | {ok.mean():+.2f} | "
                f"{ok.std():.2f} | {np.abs(ok).max():.2f} | {z.size - ok.size} | "
                f"{int((~np.isfinite(ze)).sum())} | {sum(not r['reliable'] for r in rs)} | "
                f"{max(r['cpu'] for r in rs):.1f} | {max(r['exact_cpu'] for r in rs):.1f} |"
            )
    z, ze = np.array([r["z"] for r in cov]), np.array([r["exact_z"] for r in cov])
    lines += [
        "",
        f"All: {within(z)} of {z.size} within two standard errors ({100 * within(z) / z.size:.1f} %); "
        f"{int((~np.isfinite(z)).sum())} without a standard error. The exact fits: {within(ze)} of {ze.size} "
        f"({100 * within(ze) / ze.size:.1f} %); {int((~np.isfinite(ze)).sum())} without a standard error.",
        "",
    ]
    return lines


def render(acc, rec, cov, prof, meta: str) -> str:
    lines = [
        "# The filter's evidence: accuracy, parameter recovery, smoothness",
        "",
        meta,
        "",
        "## Log-likelihood against the exact one (kernel likelihood; native C)",
        "",
        "Per step: |log L_ux − log L_ref| / T summed over the trace, mean over traces; `worst` is the largest "
        "such per-trace value. Reference: the grid filter (1501 points); on lg also the Kalman filter (exact). "
        "`update`: the filter's log-likelihood (its updates' evidence); `density`: the filter density's "
        "quadrature of the same integrals (docs/semantics.md, \"Filter density\"); `mixture`: the "
        "log-likelihood of the filter in mixture mode (docs/semantics.md, \"Filter\"), whose posterior is "
        "built from that quadrature.",
        "",
        "| system | η | update: mean per-step gap to grid | worst trace | to Kalman "
        "| density: mean per-step gap to grid | worst trace | to Kalman "
        "| mixture: mean per-step gap to grid | worst trace | to Kalman |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in FREE:
        for eta in sorted({r["eta"] for r in acc}):
            rs = [r for r in acc if r["system"] == name and r["eta"] == eta]
            cells = []
            for key in ("ux", "density", "mixture"):
                gaps = [abs(r[key] - r["grid"]) / r["steps"] for r in rs]
                kal = [abs(r[key] - r["kalman"]) / r["steps"] for r in rs if r["kalman"] is not None]
                cells += [f"{np.mean(gaps):.2e}", f"{np.max(gaps):.2e}", f"{np.mean(kal):.2e}" if kal else "—"]
            lines.append(f"| {name} | {eta} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "## Parameters recovered by `uxemu.fit` (500-step traces, defaults simulated)",
        "",
        "`exact`: the same fit on the exact log-likelihood (grid filter, 601 points; Kalman on lg) — the "
        "estimate and standard error the data determine. `se ratio`: the ux fit's standard error over the "
        "exact one; `from exact`: (ux estimate − exact estimate) / exact se; `rough`: rms residual (nats) of "
        "the quadratic the standard errors are read from (`uxemu.fit`; above "
        f"{fit.ROUGHNESS_LIMIT} they are flagged as not holding, †). CPU: seconds per fit.",
        "",
        "| system | trace | parameter | simulated | exact ± se | (exact − sim)/se | η | evidence "
        "| estimate ± se | (est − sim)/se | se ratio | from exact | rough | CPU s | runs |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rec:
        mark = "" if r["reliable"] else " †"
        lines.append(
            f"| {r['system']} | {r['trace']} | {r['param']} | {r['truth']:g} | {r['exact']:.4g} ± "
            f"{r['exact_stderr']:.3g} | {r['exact_z']:+.2f} | {r['eta']} | {r['evidence']} | "
            f"{r['estimate']:.4g} ± {r['stderr']:.3g}{mark} | {r['z']:+.2f} | "
            f"{r['stderr'] / r['exact_stderr']:.2f} | {(r['estimate'] - r['exact']) / r['exact_stderr']:+.2f} | "
            f"{r['roughness']:.3f} | {r['cpu']:.1f} | {r['runs']} |"
        )
    groups = sorted({(r["eta"], r["evidence"]) for r in rec}, key=lambda g: (g[1] != "update", g[0]))

    def within(s, g):
        rs = [r for r in rec if r["system"] == s and (r["eta"], r["evidence"]) == g]
        return f"{s} η={g[0]} {g[1]}: {sum(abs(r['z']) <= 2 for r in rs)}/{len(rs)}" if rs else None

    exact_rows = {(r["system"], r["trace"], r["param"]): r for r in rec}.values()
    fits = {(r["system"], r["trace"], r["eta"], r["evidence"]): r for r in rec}.values()
    lines += [
        "",
        f"Within two standard errors of the simulated value: {sum(abs(r['z']) <= 2 for r in rec)} of "
        f"{len(rec)} ux estimates; by system, η and evidence: "
        + ", ".join(w for s in FREE for g in groups if (w := within(s, g)))
        + ". The exact likelihood's own "
        f"estimates: {sum(abs(r['exact_z']) <= 2 for r in exact_rows)} of {len(exact_rows)} ("
        + ", ".join(
            f"{s}: {sum(abs(r['exact_z']) <= 2 for r in exact_rows if r['system'] == s)}/"
            f"{sum(r['system'] == s for r in exact_rows)}"
            for s in FREE
        )
        + "). Standard errors flagged as "
        f"not holding: {sum(not r['reliable'] for r in fits)} of {len(fits)} fits; the exact fits' "
        f"roughness at most {max(r['exact_roughness'] for r in rec):.3f}. Largest CPU time of one ux fit: "
        f"{max(r['cpu'] for r in rec):.1f} s.",
        "",
    ]
    lines += coverage_report(cov, COVERAGE_STEPS)
    lines += profile_report(*prof)
    return "\n".join(lines)


def arguments(p) -> None:
    p.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    p.add_argument("--out", type=Path, default=RESULTS)


def run(args) -> dict:
    size = SIZES["quick" if args.quick else "full"]
    env, t0 = environment.block({"size": "quick" if args.quick else "full"}), time.time()
    out = dict(
        accuracy=accuracy(*size["accuracy"]),
        recovery=recovery(*size["recovery"]),
        coverage=coverage(COVERAGE_STEPS, size["coverage"]),
        profile=profile(*size["profile"]),
    )
    env["seconds"] = time.time() - t0
    return dict(out, env=env)


def report(results: dict, args) -> None:
    meta = f"{environment.line(results['env'])} Regenerate: `.venv/bin/python -m uxbench evidence`."
    args.out.mkdir(parents=True, exist_ok=True)
    plot(*results["profile"], args.out / "evidence_profile.png")
    (args.out / "evidence.md").write_text(
        render(results["accuracy"], results["recovery"], results["coverage"], results["profile"], meta)
    )
    print(f"wrote {args.out / 'evidence.md'} and evidence_profile.png")
