"""Tables, targets and Pareto plots of the joint filtering benchmark (uxbench.joint_filtering's records).

Aggregation: RMSE per component = mean over traces (and PF runs) of each run's RMSE; NLL, CRPS = mean
over runs of each run's mean over steps (every run has the same T); CPU ns per step = median over runs.
The issue's targets, each met or not with its numbers (nothing is tuned to them):
1. ux refined at η = 64 within 2 % of the grid's RMSE, per component;
2. ux beats both EKF and UKF on RMSE (every component) and NLL: the η where it does;
3. ux dominates the C PF at ≥ 100 particles in RMSE vs latency: for each such PF size, the fastest ux
   point no slower and with no larger RMSE in any component.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

import numpy as np

from .report import save_figure

COMPONENTS = {"pendulum": ("θ", "ω"), "cvrange": ("p", "v")}
ROW_ORDER = {"grid": 0, "ux refined": 1, "ux paper": 2, "PF": 3, "EKF": 4, "UKF": 5}


def failures(records: list[dict]) -> list[dict]:
    return [r for r in records if "error" in r]


def aggregate(records: list[dict]) -> list[dict]:
    groups = defaultdict(list)
    for r in records:
        if "error" in r:
            continue
        groups[(r["system"], r["method"], r["size"])].append(r)
    rows = []
    for (system, method, size), rs in groups.items():
        ns = [r["ns_per_step"] for r in rs if r["ns_per_step"] is not None]
        row = dict(
            system=system,
            method=method,
            size=size,
            runs=len(rs),
            traces=len({r["trace"] for r in rs}),
            rmse=np.mean([r["rmse"] for r in rs], axis=0).tolist(),
            nll=float(np.mean([r["nll"] for r in rs])),
            nll_floor_hits=int(sum(r["nll_floor_hits"] for r in rs)),
            steps=int(sum(r["steps"] for r in rs)),
            crps=np.mean([r["crps"] for r in rs], axis=0).tolist(),
            ns_per_step=float(np.median(ns)) if ns else None,
        )
        if "nll_kde" in rs[0]:
            row["nll_kde"] = float(np.mean([r["nll_kde"] for r in rs]))
        if "python_ns_per_step" in rs[0]:
            row["python_ns_per_step"] = float(np.median([r["python_ns_per_step"] for r in rs]))
        if method == "PF" and len(rs) > 1:
            per_trace = defaultdict(list)
            for r in rs:
                per_trace[r["trace"]].append(r["rmse"])
            spreads = [np.std(v, axis=0, ddof=1) for v in per_trace.values() if len(v) > 1]
            row["rmse_std"] = np.mean(spreads, axis=0).tolist() if spreads else None
        rows.append(row)
    rows.sort(key=lambda r: (r["system"], ROW_ORDER.get(r["method"], 9), r["size"]))
    return rows


def _find(rows, system, method, size=None):
    for r in rows:
        if r["system"] == system and r["method"] == method and (size is None or r["size"] == size):
            return r
    return None


def targets(rows, system) -> dict:
    """The three targets' verdicts and numbers for one system."""
    out = {}
    grid = min(
        (r for r in rows if r["system"] == system and r["method"] == "grid"), key=lambda r: r["size"], default=None
    )
    ux64 = _find(rows, system, "ux refined", 64)
    if grid and ux64:
        ratio = [u / g for u, g in zip(ux64["rmse"], grid["rmse"])]
        out["eta64_vs_grid"] = dict(ratio=ratio, met=all(abs(q - 1) <= 0.02 for q in ratio))
    ekf, ukf = _find(rows, system, "EKF"), _find(rows, system, "UKF")
    beats = []
    for r in rows:
        if r["system"] == system and r["method"].startswith("ux") and ekf and ukf:
            if all(u < min(a, b) for u, a, b in zip(r["rmse"], ekf["rmse"], ukf["rmse"])) and r["nll"] < min(
                ekf["nll"], ukf["nll"]
            ):
                beats.append((r["method"], r["size"]))
    rmse_only, kde_too = [], []
    for r in rows:
        if (
            r["system"] == system
            and r["method"].startswith("ux")
            and ekf
            and ukf
            and all(u < min(a, b) for u, a, b in zip(r["rmse"], ekf["rmse"], ukf["rmse"]))
        ):
            rmse_only.append((r["method"], r["size"]))
            if r.get("nll_kde", float("inf")) < min(ekf["nll"], ukf["nll"]):
                kde_too.append((r["method"], r["size"]))
    out["beats_kf"] = dict(
        points=beats, met_at_64=("ux refined", 64) in beats, rmse_only=rmse_only, rmse_and_kde_nll=kde_too
    )
    ux = [r for r in rows if r["system"] == system and r["method"].startswith("ux")]
    dom = {}
    for pf in (r for r in rows if r["system"] == system and r["method"] == "PF" and r["size"] >= 100):
        cands = [
            u
            for u in ux
            if u["ns_per_step"] <= pf["ns_per_step"] and all(a <= b for a, b in zip(u["rmse"], pf["rmse"]))
        ]
        best = min(cands, key=lambda u: u["ns_per_step"]) if cands else None
        dom[pf["size"]] = None if best is None else (best["method"], best["size"])
    out["dominates_pf"] = dict(by_size=dom, met=bool(dom) and all(v is not None for v in dom.values()))
    return out


def _fmt(v, digits=4):
    return "—" if v is None else f"{v:.{digits}g}"


def _label(r):
    if r["method"] == "grid":
        return f"grid N = {r['size']}²"
    if r["method"].startswith("ux"):
        return f"{r['method']} η = {r['size']}"
    if r["method"] == "PF":
        return f"PF n = {r['size']}"
    return r["method"]


def system_table(rows, system) -> list[str]:
    c0, c1 = COMPONENTS.get(system, ("x₀", "x₁"))
    lines = [
        f"| method | RMSE {c0} | RMSE {c1} | NLL | NLL floor hits | NLL (KDE of atoms) | CRPS {c0} | CRPS {c1} "
        f"| CPU ns/step |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r["system"] != system:
            continue
        ns = (
            _fmt(r["ns_per_step"], 5)
            if r["ns_per_step"] is not None
            else f"(Python {r['python_ns_per_step'] / 1e6:.3g} ms)"
        )
        lines.append(
            f"| {_label(r)} | {_fmt(r['rmse'][0])} | {_fmt(r['rmse'][1])} | {_fmt(r['nll'])} | "
            f"{r['nll_floor_hits']}/{r['steps']} | {_fmt(r.get('nll_kde'))} | {_fmt(r['crps'][0])} | "
            f"{_fmt(r['crps'][1])} | {ns} |"
        )
    return lines


def sentences(rows, system, t) -> list[str]:
    c = COMPONENTS.get(system, ("x₀", "x₁"))
    out = []
    if "eta64_vs_grid" in t:
        q = t["eta64_vs_grid"]["ratio"]
        out.append(
            f"- η = 64 vs grid: RMSE ratio {c[0]} {q[0]:.4f}, {c[1]} {q[1]:.4f} — target (within 2 %) "
            f"**{'met' if t['eta64_vs_grid']['met'] else 'not met'}**."
        )
    ekf, ukf, ux64 = _find(rows, system, "EKF"), _find(rows, system, "UKF"), _find(rows, system, "ux refined", 64)
    if ekf and ukf and ux64:
        pts = ", ".join(f"{m} η = {s}" for m, s in t["beats_kf"]["points"]) or "none"
        out.append(
            f"- ux vs EKF and UKF (RMSE in both components and NLL all lower): at {pts}. At η = 64: RMSE "
            f"{_fmt(ux64['rmse'][0])}/{_fmt(ux64['rmse'][1])}, NLL {_fmt(ux64['nll'])} against EKF "
            f"{_fmt(ekf['rmse'][0])}/{_fmt(ekf['rmse'][1])}, NLL {_fmt(ekf['nll'])} and UKF "
            f"{_fmt(ukf['rmse'][0])}/{_fmt(ukf['rmse'][1])}, NLL {_fmt(ukf['nll'])} — target "
            f"**{'met' if t['beats_kf']['met_at_64'] else 'not met'}** at η = 64. On RMSE alone ux is "
            f"ahead of both at: {', '.join(f'{m} η = {s}' for m, s in t['beats_kf']['rmse_only']) or 'none'}; "
            f"of those, with the atoms' KDE as the ux density the NLL is lower too at: "
            f"{', '.join(f'{m} η = {s}' for m, s in t['beats_kf']['rmse_and_kde_nll']) or 'none'}."
        )
    dom = t["dominates_pf"]["by_size"]
    parts = [f"n = {n}: " + (f"{v[0]} η = {v[1]}" if v else "no ux point") for n, v in sorted(dom.items())]
    out.append(
        f"- ux points at least as accurate (every component) and as fast as the C PF: {'; '.join(parts)} — "
        f"target (dominates at ≥ 100 particles) **{'met' if t['dominates_pf']['met'] else 'not met'}**."
    )
    return out


def pareto_plot(rows, system, path: Path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    c = COMPONENTS.get(system, ("x₀", "x₁"))
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    styles = {
        "ux refined": ("o-", "C0"),
        "ux paper": ("s--", "C2"),
        "PF": ("^-", "C1"),
        "EKF": ("D", "C3"),
        "UKF": ("v", "C4"),
    }
    for k, ax in enumerate(axes):
        for method, (marker, color) in styles.items():
            pts = sorted(
                (r["ns_per_step"], r["rmse"][k], r["size"])
                for r in rows
                if r["system"] == system and r["method"] == method
            )
            if not pts:
                continue
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker, color=color, label=method)
            if method in ("ux refined", "PF"):
                for p in pts:
                    ax.annotate(str(p[2]), (p[0], p[1]), textcoords="offset points", xytext=(3, 3), fontsize=7)
        grid = min(
            (r for r in rows if r["system"] == system and r["method"] == "grid"), key=lambda r: r["size"], default=None
        )
        if grid:
            ax.axhline(grid["rmse"][k], color="k", lw=0.8, ls=":", label=f"grid N = {grid['size']}²")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("native CPU time per step (ns)")
        ax.set_ylabel(f"RMSE {c[k]}")
        ax.set_title(f"{system}: RMSE {c[k]} vs latency")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    save_figure(fig, path, dpi=110)
    plt.close(fig)


def write(records: list[dict], meta: dict, out_dir: Path, plots: bool = True) -> list[dict]:
    """joint_filtering.{csv,md} (+ joint_filtering_SYSTEM.png) under out_dir; returns the rows. `meta`: the
    markdown's opening, its `header` line and `settings` lines."""
    rows = aggregate(records)
    out_dir.mkdir(parents=True, exist_ok=True)
    systems = sorted({r["system"] for r in rows})
    verdicts = {s: targets(rows, s) for s in systems}
    with open(out_dir / "joint_filtering.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(
            [
                "system",
                "method",
                "size",
                "runs",
                "traces",
                "rmse_0",
                "rmse_1",
                "nll",
                "nll_floor_hits",
                "steps",
                "nll_kde",
                "crps_0",
                "crps_1",
                "ns_per_step",
                "python_ns_per_step",
            ]
        )
        for r in rows:
            w.writerow(
                [
                    r["system"],
                    r["method"],
                    r["size"],
                    r["runs"],
                    r["traces"],
                    *r["rmse"],
                    r["nll"],
                    r["nll_floor_hits"],
                    r["steps"],
                    r.get("nll_kde", ""),
                    *r["crps"],
                    "" if r["ns_per_step"] is None else r["ns_per_step"],
                    r.get("python_ns_per_step", ""),
                ]
            )
    md = [meta["header"], ""] + meta["settings"]
    failed = failures(records)
    if failed:
        md += [
            "",
            f"**{len(failed)} run(s) failed** (left out of the tables): "
            + "; ".join(
                f"{r['system']} {r['method']} {r['size']} trace {r['trace']}: {r['error']}" for r in failed[:20]
            ),
        ]
    for s in systems:
        md += ["", f"## {s}", ""] + system_table(rows, s) + [""]
        grids = sorted((r for r in rows if r["system"] == s and r["method"] == "grid"), key=lambda r: r["size"])
        if len(grids) >= 2:
            a, b = grids[0], grids[-1]
            same = [r for r in records if r["system"] == s and r["method"] == "grid" and r["size"] == b["size"]]
            tr = {r["trace"] for r in same}
            base = [
                r
                for r in records
                if r["system"] == s and r["method"] == "grid" and r["size"] == a["size"] and r["trace"] in tr
            ]
            ra, rb = np.mean([r["rmse"] for r in base], axis=0), np.mean([r["rmse"] for r in same], axis=0)
            rel = np.abs(rb - ra) / rb * 100
            md.append(
                f"Grid convergence ({len(tr)} trace(s)): N = {a['size']}² → {b['size']}² changes the RMSE by "
                f"{rel[0]:.3f} % ({COMPONENTS[s][0]}) and {rel[1]:.3f} % ({COMPONENTS[s][1]}) (aim: < 0.1 %). "
                f"The row above with N = {b['size']}² is over those traces only."
            )
            md.append("")
        md += sentences(rows, s, verdicts[s])
        if plots:
            pareto_plot(rows, s, out_dir / f"joint_filtering_{s}.png")
            md += ["", f"![{s}: RMSE vs latency](joint_filtering_{s}.png)"]
    (out_dir / "joint_filtering.md").write_text("\n".join(md) + "\n")
    return rows
