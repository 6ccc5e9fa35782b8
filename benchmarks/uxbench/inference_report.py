"""Tables and Pareto plots of the inference benchmark (one section per system)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from . import paper_inference
from .report import markdown_table, save_figure, statement, write_csv

TITLES = {
    "sv": "Stochastic volatility",
    "gss": "Gordon–Salmond–Smith",
    "cubic": "Exponential (Beer–Lambert) observation of the cubic system",
}


def summarise(records: list[dict]) -> dict:
    """system → list of rows (dicts), one per method, sorted by latency."""
    out = {}
    for system in dict.fromkeys(r["system"] for r in records):
        rows = []
        recs = [r for r in records if r["system"] == system]
        keys = sorted({(r["method"], r["form"], r["fidelity"]) for r in recs}, key=lambda k: (k[0], k[1], k[2]))
        for method, form, fid in keys:
            rs = [r for r in recs if (r["method"], r["form"], r["fidelity"]) == (method, form, fid)]
            lat = [r["latency_s"] for r in rs if r.get("latency_s") is not None]
            row = dict(
                method=method,
                form=form,
                fidelity=fid,
                instances=len(rs),
                latency_us=float(np.median(lat)) * 1e6 if lat else math.nan,
                timed=len(lat),
            )
            w1 = np.array([r["w1_atoms"] for r in rs])
            if method == "ux":
                q = [r["quantize_s"] for r in rs if r.get("quantize_s") is not None]
                row["quantize_us"] = float(np.median(q)) * 1e6 if q else math.nan
                rec = np.array([r["w1_reconstructed"] for r in rs])
                row.update(
                    w1=float(w1.mean()),
                    w1_std=float(w1.std(ddof=1)) if w1.size > 1 else 0.0,
                    w1_rec=float(rec.mean()),
                    w1_rec_std=float(rec.std(ddof=1)) if rec.size > 1 else 0.0,
                    fallbacks=sum(r["status"] != 0 for r in rs),
                    seed_std=0.0,
                )
            else:
                # Mean over instances and seeds; std over all (instance, seed) runs, pooled from the
                # per-instance first and second moments.
                sq = np.array([r["w1_sq"] for r in rs])
                mean = float(w1.mean())
                row.update(
                    w1=mean,
                    w1_std=float(math.sqrt(max(sq.mean() - mean * mean, 0.0))),
                    w1_rec=math.nan,
                    w1_rec_std=math.nan,
                    seed_std=float(np.mean([r["w1_seed_std"] for r in rs])),
                    ess=float(np.mean([r["ess"] for r in rs])),
                    fallbacks=sum(r["fallbacks"] for r in rs),
                    seeds=rs[0]["seeds"],
                )
            rows.append(row)
        rows.sort(key=lambda r: (r["latency_us"], r["method"]))
        out[system] = rows
    return out


def label(row) -> str:
    if row["method"] == "is":
        return f"IS {row['fidelity']}"
    return f"ux η={row['fidelity']} {row['form']}"


def _paper(system, row):
    return paper_inference.row(system, "MC" if row["method"] == "is" else "UxHw", row["fidelity"])


def table(system: str, rows: list[dict]) -> str:
    cols = [
        "method",
        "latency µs",
        "of which prior quantization µs",
        "mean W1 (atoms / particles)",
        "W1 std",
        "mean W1 (reconstructed)",
        "W1 std (reconstructed)",
        "W1 std over seeds",
        "paper: latency µs",
        "paper: mean W1",
        "paper: W1 std",
    ]
    body = []
    for r in rows:
        pr = _paper(system, r)
        body.append(
            [
                label(r),
                r["latency_us"],
                r.get("quantize_us", "—"),
                r["w1"],
                r["w1_std"],
                "—" if r["method"] == "is" else r["w1_rec"],
                "—" if r["method"] == "is" else r["w1_rec_std"],
                r["seed_std"],
                *(pr if pr else ("—", "—", "—")),
            ]
        )
    return markdown_table(cols, body)


def dominated(p, q) -> bool:
    """q dominates p: no slower and no less accurate, better in one."""
    return q[0] <= p[0] and q[1] <= p[1] and (q[0] < p[0] or q[1] < p[1])


def pareto(rows: list[dict], ux_metric: str, form: str = "kernel"):
    """(front labels, IS rows not dominated by any ux row) with ux measured by `ux_metric`."""
    pts = []
    for r in rows:
        if r["method"] == "ux" and r["form"] != form:
            continue
        y = r[ux_metric] if r["method"] == "ux" else r["w1"]
        pts.append((label(r), r["method"], (r["latency_us"], y)))
    front = [l for l, _, p in pts if not any(dominated(p, q) for _, _, q in pts)]
    free = [l for l, m, p in pts if m == "is" and not any(dominated(p, q) for _, mq, q in pts if mq == "ux")]
    return front, free


def verdicts(summary: dict) -> str:
    """Per system and W1 measure: yes, or the IS sizes no kernel-form ux point dominates."""
    body = []
    for system, rows in summary.items():
        cells = []
        for metric in ("w1_rec", "w1"):
            _, free = pareto(rows, metric)
            cells.append("yes" if not free else "no: " + ", ".join(free) + " undominated")
        body.append([TITLES[system], *cells])
    cols = ["system", "ux measured by its reconstructed W1", "ux measured by its atoms' W1"]
    return markdown_table(cols, body)


def plot(system: str, rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    isr = [r for r in rows if r["method"] == "is"]
    ax.plot(
        [r["latency_us"] for r in isr],
        [r["w1"] for r in isr],
        "s-",
        color="tab:blue",
        label="importance sampling (particles)",
    )
    for r in isr:
        ax.annotate(
            str(r["fidelity"]),
            (r["latency_us"], r["w1"]),
            textcoords="offset points",
            xytext=(4, 4),
            fontsize=7,
            color="tab:blue",
        )
    styles = {
        ("kernel", "w1_rec"): ("o-", "tab:green", "ux kernel, reconstructed W1"),
        ("kernel", "w1"): ("o--", "tab:olive", "ux kernel, atoms W1"),
        ("sampler", "w1_rec"): ("^-", "tab:purple", "ux sampler, reconstructed W1"),
        ("sampler", "w1"): ("^--", "plum", "ux sampler, atoms W1"),
    }
    for (form, metric), (st, color, name) in styles.items():
        ux = sorted([r for r in rows if r["method"] == "ux" and r["form"] == form], key=lambda r: r["fidelity"])
        ax.plot(
            [r["latency_us"] for r in ux],
            [r[metric] for r in ux],
            st,
            color=color,
            label=name,
            mfc="none" if metric == "w1" else color,
        )
        for r in ux:
            ax.annotate(
                f"η={r['fidelity']}",
                (r["latency_us"], r[metric]),
                textcoords="offset points",
                xytext=(4, -9),
                fontsize=7,
                color=color,
            )
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("native latency per posterior (µs, median)")
    ax.set_ylabel("mean W1 to the exact posterior")
    ax.set_title(f"{TITLES[system]}: accuracy vs latency", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    save_figure(fig, path, dpi=120)
    plt.close(fig)


def write(records: list[dict], params: dict, out_dir, meta: dict | None = None) -> None:
    """README.md (tables), pareto_SYSTEM.png per system, inference_summary.csv."""
    from .inference import SIZES

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = summarise(records)
    write_csv(out_dir / "inference_summary.csv", [dict(r, system=s) for s, rows in summary.items() for r in rows])
    name = next((k for k, v in SIZES.items() if v == params), None)
    every = "every instance" if params["time_every"] == 1 else f"one instance in {params['time_every']}"
    how = (
        f"{params['locations']} prior locations × 10 per system (seed {params['seed']}), importance sampling "
        f"{params['is_seeds']} seeds per instance; W1 to the exact posterior ({params['points']}-point grid); "
        f"latency: native C, the calling thread's CPU time, median over {every}."
    )
    lines = [
        "# Inference benchmark: BayesLaplace against importance sampling",
        "",
        statement(meta, name, "inference", how),
        "## Does ux dominate importance sampling on the accuracy–latency front?",
        "",
        verdicts(summary),
    ]
    for system, rows in summary.items():
        lines += [
            f"## {TITLES[system]} (`{system}`): {rows[0]['instances']} instances, paper: "
            f"`{paper_inference.LABELS[system]}`",
            "",
            table(system, rows),
            f"![Pareto plot](pareto_{system}.png)",
            "",
        ]
        plot(system, rows, out_dir / f"pareto_{system}.png")
    (out_dir / "README.md").write_text("\n".join(lines))
