"""Shocks: the filter's mean against a 10⁵-particle bootstrap PF (and the near-exact grid filter) on
stochastic-volatility traces whose volatility triples after a calm stretch → benchmarks/results/shocks.md.

    .venv/bin/python benchmarks/shocks.py [--seeds 5]

Per step |mean − reference mean| / reference sd; the tables give the worst over the seeds at the shock
(the jump step and the four after it) and over every step, and how many (seed, step) pairs exceed 1 sd.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from uxbench import shocks as S  # noqa: E402
from uxbench.baselines.particle import bootstrap_filter  # noqa: E402

ETAS = (8, 16, 32, 64)
MODES = ("refined", "paper", "mixture")
TARGET_ETA = 16
SECOND_PF_SEED = 1000  # the second particle filter of the reference-noise row: seed 1000 + trace seed


FINDINGS = [
    "What the tables show:",
    "",
    "- The PF is a fair reference at σ_η = 0.2 but not to better than a few tenths of an sd at σ_η = 0.05: after "
    "the shock two 10⁵-particle PFs with different seeds differ by up to the figure in the reference-noise table "
    "(the particles that reach the new level are few, and with a small σ_η they are not renewed). The grid "
    "filter is the exact posterior to ~1e-10 sd here; both columns are given.",
    "- The filter's mean is not pinned at the outermost predictive point: the likelihood-weighted share on the "
    "two outermost points stays small (edge mass). What fails is the posterior's spread: the update after a large |z| lands in the upper tail of "
    "the predictive law, which the η belief atoms ⊗ the process-noise atoms hold only up to the outermost "
    "belief atom plus a few σ_η; the posterior comes out too narrow (sd ratio at the shock), and with a small σ_η "
    "the lost spread returns only over ~1/(1 − φ²) steps, so every later large |z| moves the mean too little. "
    "The gap therefore grows after the shock rather than at it. In paper mode the η-atom prediction does pin "
    "the update at its outermost atom (edge mass up to ~0.8), yet its gaps are of the same size as refined "
    "mode's: the pinning is a symptom of the same missing tail.",
    "- Re-quantizing the predictive mixture of the belief's atoms taken as points (⊗ the exact process-noise "
    "density) on a fine grid, at every update, changes almost nothing (the measurement-only mixture column of "
    "the last tables): what is missing is the spread of the belief's cells, which points do not carry. The "
    "filter's mixture mode (its mixture rows) carries it: each atom keeps its cell's spread and the next "
    "predictive component widens by it through the transition (docs/semantics.md, \"Filter\"), so the "
    "predictive tails follow the shock — and the calm stretch gains too, where the tail-restoring laws of the "
    "last tables (gaussian, smoothed) lose.",
    "- Refined (the default) and paper modes have no such rule: their rows stand as measured.",
]


def cell(gaps) -> str:
    over = sum(int((g.sd > 1.0).sum()) for g in gaps)
    before = max(g.worst(0, S.CALM) for g in gaps)
    after = max(g.worst(S.CALM + 5) for g in gaps)
    return f"{before:.2f} / {max(g.at_shock for g in gaps):.2f} / {after:.2f} / {over}"


def verdict(mode: str, gaps, seeds) -> str:
    worst = max(range(len(gaps)), key=lambda i: gaps[i].worst())
    g = gaps[worst]
    status = "met" if g.worst() <= 1.0 else "not met"
    return (f"{mode} {status} (worst {g.worst():.2f} sd, seed {list(seeds)[worst]} step "
            f"{int(np.argmax(g.sd))})")


def sd_ratio(runs, ref) -> str:
    """The smallest and largest ux sd / reference sd over the seeds and steps, and the smallest at the shock."""
    r = np.array([np.sqrt(runs[s].var / ref[s].var) for s in runs])
    return f"{r.min():.2f} / {r.max():.2f} / {r[:, S.CALM:S.CALM + 5].min():.2f}"


def section(sigma_eta: float, seeds) -> list[str]:
    traces = {s: S.trace(s, sigma_eta) for s in seeds}
    pf = {s: S.reference(traces[s], sigma_eta, s) for s in seeds}
    grid = {s: S.grid_reference(traces[s], sigma_eta) for s in seeds}
    pf2 = {s: bootstrap_filter(S.model(sigma_eta), traces[s], S.PARTICLES, np.random.default_rng(SECOND_PF_SEED + s))
           for s in seeds}
    n = len(seeds) * S.STEPS
    out = [f"## σ_η = {sigma_eta}", "",
           f"Gap cells: worst before the shock (steps 0–{S.CALM - 1}) / at the shock (steps {S.CALM}–{S.CALM + 4}) "
           f"/ after it (steps {S.CALM + 5}–{S.STEPS - 1}) / (seed, step) pairs above 1 sd, of {n}. "
           "sd ratio: the filter's posterior sd / the grid's, smallest / largest over every step / smallest at "
           "the shock. edge mass: the largest likelihood-weighted share of an update's prior points on its two "
           "outermost ones (`edge_mass`), over every step.", "",
           "| η | mode | gap vs PF (10⁵) | gap vs grid | sd ratio | edge mass |", "|---|---|---|---|---|---|"]
    verdicts = []
    for eta in ETAS:
        for mode in MODES:
            runs = {s: S.run_filter(S.model(sigma_eta), traces[s], eta, mode) for s in seeds}
            to_pf = [S.gap(runs[s], pf[s]) for s in seeds]
            out.append(f"| {eta} | {mode} | {cell(to_pf)} | "
                       f"{cell([S.gap(runs[s], grid[s]) for s in seeds])} | {sd_ratio(runs, grid)} | "
                       f"{max(S.edge_mass(traces[s], sigma_eta, eta, mode).max() for s in seeds):.3f} |")
            if eta == TARGET_ETA:
                verdicts.append(verdict(mode, to_pf, seeds))
    if verdicts:
        out += ["", f"Target (η = {TARGET_ETA}: the mean within 1 PF sd at every step): " + "; ".join(verdicts) + "."]
    out += ["", "The reference's own error (the same cells):", "",
            "| compared | against PF (seed s) | against grid |", "|---|---|---|",
            f"| PF, seed s | — | {cell([S.gap(pf[s], grid[s]) for s in seeds])} |",
            f"| PF, seed {SECOND_PF_SEED} + s | {cell([S.gap(pf2[s], pf[s]) for s in seeds])} | "
            f"{cell([S.gap(pf2[s], grid[s]) for s in seeds])} |", ""]
    return out


def variants_section(sigma_eta: float, seeds) -> list[str]:
    traces = {s: S.trace(s, sigma_eta) for s in seeds}
    grid = {s: S.grid_reference(traces[s], sigma_eta) for s in seeds}
    out = [f"## Which predictive law the shock needs (σ_η = {sigma_eta}, refined, against the grid)", "",
           f"Measurement only, not the filter (`uxbench/shocks.py`, `variant_run`): every update after the first "
           f"recomputed from a predictive density on {S.VARIANT_CELLS} grid cells (the components' centres ± "
           f"{S.VARIANT_REACH:g} sd), reduced with TTR to η atoms. mixture: the filter's own predictive law, "
           "Σ w_i N(f(x_i, 0), σ_η²) over the belief's atoms; gaussian: one Gaussian with the belief's mean and "
           "variance carried through the transition; smoothed: each belief atom a Gaussian of width h, "
           "h² = v (4 / 3η)^(2/5), the atoms shrunk towards the mean so mean and variance are kept. Cells as "
           "above (before / at the shock / after / pairs above 1 sd).", "",
           "| η | the filter | mixture | gaussian | smoothed |", "|---|---|---|---|---|"]
    for eta in ETAS:
        cells = [cell([S.gap(S.run_filter(S.model(sigma_eta), traces[s], eta), grid[s]) for s in seeds])]
        for v in S.VARIANTS:
            cells.append(cell([S.gap(S.variant_run(traces[s], sigma_eta, eta, v), grid[s]) for s in seeds]))
        out.append(f"| {eta} | " + " | ".join(cells) + " |")
    return out + [""]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", default=str(HERE / "results" / "shocks.md"))
    args = ap.parse_args(argv)
    seeds = range(args.seeds)
    t0 = time.time()
    body = []
    for se in S.SIGMA_ETAS:
        body += section(se, seeds)
    for se in S.SIGMA_ETAS:
        body += variants_section(se, seeds)
    out = ["# Shocks: the filter after a 3× volatility jump, against a 10⁵-particle PF and the grid filter", "",
           f"Generated by `benchmarks/shocks.py --seeds {args.seeds}` ({time.time() - t0:.0f} s). Traces "
           f"(`uxbench/shocks.py`, seeds 0…{args.seeds - 1}): the sv system (φ = 0.98, c = 0, σ_ε = 1, prior "
           f"N(0, 2.25²)) with σ_η as the section says, x_0 = 0, {S.STEPS} steps, and at step {S.CALM} the state "
           f"jumps by 2·ln 3 (the volatility triples). The filter runs the same model (kernel likelihood). "
           f"References: a bootstrap PF with {S.PARTICLES:,} particles, systematic resampling, numpy Generator "
           f"seeded by the trace's seed; the point-mass grid filter with {S.GRID_POINTS} points, tails cut at "
           f"1e-15. Measure per step: |mean − reference mean| / reference sd.", "", *FINDINGS, "", *body]
    Path(args.out).write_text("\n".join(out))
    print("\n".join(out))


if __name__ == "__main__":
    main()
