"""The regime benchmark's results files: regimes.md (summaries per mode × η, then per-cell tables) and
regimes.json (each cell once, then one record per cell × mode × η, rounded; no per-step data)."""

from __future__ import annotations

import json
import math
from pathlib import Path

from uxemu.bayes import Status

from . import regime_metrics as metrics
from . import regimes as R
from .report import fmt, markdown_table, statement

DIGITS = 4  # significant digits of the JSON's numbers
HEADLINE_ETAS = tuple(sorted(metrics.BOUNDS))  # the η the issue sets bounds at
GROUP_TITLES = {
    "lg": "local level, well specified (against the Kalman filter)",
    "lg_misspecified": "local level, misspecified data (against the Kalman filter of the model)",
    "nonlinear": "sv and gss (against the grid filter)",
}


# -- flattening and selection --------------------------------------------------------------------------
def rows(results: list) -> list[dict]:
    """One dict per cell × mode × η: the cell's fields, its label and the record."""
    return [
        dict(res["cell"], label=res["label"], well_specified=res["well_specified"], engine=res["engine"], **rec)
        for res in results
        for rec in res["records"]
    ]


def select(table: list[dict], **fields) -> list[dict]:
    return [r for r in table if all(r.get(k) == v for k, v in fields.items())]


def meets(row: dict) -> bool | None:
    """Within the bound the tables apply at the row's η (regime_metrics.bound_for); None for a misspecified
    cell, which no bound is set for."""
    if not row["well_specified"]:
        return None
    return metrics.within(row, metrics.bound_for(row["eta"])[1])


def meets_done_when(table: list[dict], mode: str, label: str) -> bool:
    """The issue's done-when for one cell and mode: within the bound at every η the issue names."""
    return all(
        metrics.within(r, metrics.BOUNDS[r["eta"]])
        for r in select(table, mode=mode, label=label)
        if r["eta"] in metrics.BOUNDS
    )


def clean_counterpart(table: list[dict], row: dict) -> dict:
    """The well-specified grid row with a misspecified row's q, prior, mode and η: the same traces unchanged."""
    return select(
        table,
        group="lg",
        q=row["q"],
        prior_sd=row["prior_sd"],
        placement=row["placement"],
        mode=row["mode"],
        eta=row["eta"],
    )[0]


def status_name(value: str) -> str:
    """A status value by the reference's name for it, or as the number when the reference has none."""
    try:
        return Status(int(value)).name
    except ValueError:
        return f"status {value}"


def by_status(table: list[dict]) -> str:
    counts = metrics.merge_counts(r["statuses"] for r in table)
    return ", ".join(f"{status_name(k)} {n}" for k, n in counts.items()) or "none"


def total(table: list[dict], key: str) -> int:
    return sum(r[key] for r in table)


def worst_row(table: list[dict], key: str) -> dict | None:
    return max(table, key=lambda r: r[key], default=None)


def engines(results: list) -> str:
    return ", ".join(sorted({res["engine"] for res in results})) or "—"


def cpu_seconds(results: list) -> float:
    return sum(res["cpu_s"] for res in results)


# -- JSON --------------------------------------------------------------------------------------------------
def rounded(v):
    """A number at DIGITS significant digits; a non-finite one as null (a NaN or ∞ in the run)."""
    if isinstance(v, bool) or not isinstance(v, float):
        return v
    if not math.isfinite(v):
        return None
    return float(f"{v:.{DIGITS}g}")


def json_cell(res: dict) -> dict:
    """A cell's fields, once: its records name it by its label."""
    runs = res["records"][0]
    out = dict(res["cell"], runs=runs["runs"], steps=runs["steps"])
    if "grid_check" in res:
        out["grid_check"] = {k: rounded(v) for k, v in res["grid_check"].items()}
    return out


def json_record(row: dict) -> dict:
    keep = ("mode", "eta", "worst_sd", "var_min", "var_max", "log_l_gap", "wrong", "silent", "flagged")
    out = dict(cell=row["label"], **{k: rounded(row[k]) for k in keep})
    if row["statuses"]:
        out["statuses"] = row["statuses"]
    out["within_bound"] = meets(row)
    return out


def json_document(results: list, size: dict, meta: dict | None) -> dict:
    m = meta or {}
    return {
        "benchmark": "regimes",
        "size": size.get("name"),
        "commit": m.get("commit"),
        "engine": engines(results),
        "cpu_s": rounded(cpu_seconds(results)),
        "wall_s": rounded(m.get("seconds")),
        "r": R.R,
        "units": "a cell's q and prior_sd are in units of r",
        "wrong_step": {
            "mean_sd": metrics.WRONG_MEAN_SD,
            "var_ratio": list(metrics.WRONG_VAR_RATIO),
            "ok_status": metrics.OK_STATUS,
        },
        "bounds": {
            str(eta): {"mean_sd": b.mean_sd, "var_ratio": list(b.var_ratio), "log_l_nats": b.log_l_nats}
            for eta, b in metrics.BOUNDS.items()
        },
        "status_names": {k: status_name(k) for k in metrics.merge_counts(r["statuses"] for r in rows(results))},
        "cells": {res["label"]: json_cell(res) for res in results},
        "records": [json_record(r) for r in rows(results)],
    }


def json_text(document: dict) -> str:
    """The document with one cell and one record a line: small, and a rerun's diff shows which cells moved."""
    head = {k: v for k, v in document.items() if k not in ("cells", "records")}
    cells = ",\n".join(
        f"{json.dumps(k, ensure_ascii=False)}: {json.dumps(v, ensure_ascii=False)}"
        for k, v in document["cells"].items()
    )
    records = ",\n".join(json.dumps(r, ensure_ascii=False) for r in document["records"])
    return (
        json.dumps(head, ensure_ascii=False)[:-1]
        + ', "cells": {\n'
        + cells
        + '\n}, "records": [\n'
        + records
        + "\n]}\n"
    )


# -- markdown ----------------------------------------------------------------------------------------------
def description(size: dict) -> list[str]:
    lo, hi = metrics.WRONG_VAR_RATIO
    b16, b8 = metrics.BOUNDS[16], metrics.BOUNDS[8]
    return [
        "## What is measured",
        "",
        f"Every cell runs each mode ({', '.join(size['modes'])}) at each η ({', '.join(map(str, size['etas']))}) on "
        f"{size['seeds']} seed(s) × {size['steps']} steps (`benchmarks/uxbench/regimes.py`; scores: "
        "`regime_metrics.py`).",
        "",
        f"- **lg grid** ({len(R.Q_RATIOS) * len(R.PRIOR_SDS) * len(R.PLACEMENTS)} cells, well specified): "
        f"x' = x + N(0, q²), z = x + N(0, r²), r = {R.R:g}, q/r ∈ {{{', '.join(f'{q:g}' for q in R.Q_RATIOS)}}}, "
        f"prior sd s0 ∈ {{{', '.join(f'{s:g}' for s in R.PRIOR_SDS)}}}·r, its mean on z₀ (centred) or "
        f"{R.PRIOR_OFFSET_SD:g} s0 above it (offset); data from the model (x₀ = 0). Exact: Kalman filter.",
        f"- **lg misspecified** (the filter's model is the local-level model, prior sd {R.MISSPECIFIED_PRIOR[0]:g}r "
        f"{R.MISSPECIFIED_PRIOR[1]}): every reading from the half on shifted by {R.LEVEL_SHIFT:g}r "
        f"(level_shift); the reading at the half {R.OUTLIER:g}r off (outlier); {R.STUCK_READINGS} readings from "
        "the half on equal to the reading at the half (stuck). Exact: the Kalman filter of the model on those data. "
        "\"clean\" is the silent count of the grid cell with the same q, prior and seeds: the same traces unchanged.",
        f"- **sv, gss**: table defaults, on traces simulated from them, and on traces whose state noise "
        f"({', '.join(f'{s}: {p}' for s, p in R.NOISE_PARAMS.items())}) is {R.NOISE_JUMP:g}× from the half on "
        f"(data only); {', '.join(R.OUTLIER_SYSTEMS)} also on its simulated traces with the reading at the half "
        f"moved by {R.NONLINEAR_OUTLIER:g} sd of their readings (outlier). Exact: the grid filter at {R.GRID_POINTS} points (tails cut at "
        f"{R.GRID_TAIL:g}).",
        "",
        "Per step: mean error = |mean − exact| / exact sd; variance ratio = var / exact var. A step is **wrong** "
        f"when its mean error > {metrics.WRONG_MEAN_SD:g} or its variance ratio is outside {lo:g}–{hi:g}; "
        f"**silent** when it is wrong and its status is {metrics.OK_STATUS} (OK) — any other status counts as the "
        "filter saying so. ΔlogL = filter log L − exact log L per run; a cell shows its largest |ΔlogL|, signed.",
        "",
        f"Bounds (issue 36's done-when, for well-specified cells): η = 16 within {b16.mean_sd:g} sd, variance "
        f"{b16.var_ratio[0]:g}–{b16.var_ratio[1]:g}×, |ΔlogL| ≤ {b16.log_l_nats:g} nats per run; η = 8 within "
        f"{b8.mean_sd:g} sd, variance {b8.var_ratio[0]:g}–{b8.var_ratio[1]:g}×. The tables also hold η = 32 and "
        "64 to η = 16's bound and η = 4 to η = 8's (column \"bound\"); the issue sets none there.",
        "",
    ]


def labels(table: list[dict], **fields) -> list[str]:
    """The cells' labels among the rows with these fields, in table order."""
    return list(dict.fromkeys(r["label"] for r in select(table, **fields)))


def headline_row(table: list[dict], mode: str, eta: int, n_lg: int) -> list:
    at = select(table, mode=mode, eta=eta)
    lg = select(at, group="lg")
    worst, loudest = worst_row(lg, "worst_sd"), worst_row(at, "silent")
    return [
        mode,
        eta,
        f"{sum(meets(r) for r in lg)}/{n_lg}",
        total(at, "silent"),
        f"{worst['label']} ({fmt(worst['worst_sd'], 3)} sd)" if worst else "—",
        f"{loudest['label']} ({loudest['silent']})" if loudest and loudest["silent"] else "none",
    ]


def headline(table: list[dict], modes) -> list[str]:
    lg = labels(table, group="lg")
    body = [headline_row(table, mode, eta, len(lg)) for mode in modes for eta in HEADLINE_ETAS]
    done = [[mode, f"{sum(meets_done_when(table, mode, label) for label in lg)}/{len(lg)}"] for mode in modes]
    return [
        "## Headline",
        "",
        f"Per mode at η = {' and '.join(map(str, HEADLINE_ETAS))}: well-specified lg cells within the issue's "
        "bound, silent-wrong steps over every cell, the lg cell with the largest mean error, the cell with the "
        "most silent steps.",
        "",
        markdown_table(["mode", "η", "lg within bound", "silent steps", "worst lg cell", "most silent"], body),
        "Cells meeting the whole done-when (η = 8 and η = 16 bounds together):",
        "",
        markdown_table(["mode", "lg cells"], done),
    ]


SUMMARY_COLUMNS = [
    "mode",
    "η",
    "bound",
    "lg within",
    "sv/gss within",
    "silent: lg",
    "silent: misspecified",
    "silent: sv/gss",
    "silent: all",
    "wrong: all",
    "flagged steps by status",
    "lg worst sd",
    "lg var ratio",
    "lg worst |ΔlogL|",
]


def summary_row(table: list[dict], mode: str, eta: int, n_lg: int, n_nonlinear: int) -> list:
    at = select(table, mode=mode, eta=eta)
    lg, mis, nl = (select(at, group=g) for g in ("lg", "lg_misspecified", "nonlinear"))
    clean = sum(clean_counterpart(table, r)["silent"] for r in mis)
    var_range = f"{fmt(min(r['var_min'] for r in lg), 3)}–{fmt(max(r['var_max'] for r in lg), 3)}" if lg else "—"
    return [
        mode,
        eta,
        f"η={metrics.bound_for(eta)[0]}'s",
        f"{sum(meets(r) for r in lg)}/{n_lg}",
        f"{sum(bool(meets(r)) for r in nl)}/{n_nonlinear}",
        total(lg, "silent"),
        f"{total(mis, 'silent')} (clean {clean})",
        total(nl, "silent"),
        total(at, "silent"),
        total(at, "wrong"),
        by_status(at),
        fmt(max((r["worst_sd"] for r in lg), default=None), 3),
        var_range,
        fmt(max((abs(r["log_l_gap"]) for r in lg), default=None), 3),
    ]


def summary(table: list[dict], modes, etas) -> list[str]:
    n_lg = len(labels(table, group="lg"))
    n_nonlinear = len(labels(table, group="nonlinear", well_specified=True))
    body = [summary_row(table, mode, eta, n_lg, n_nonlinear) for mode in modes for eta in etas]
    return [
        "## Summary per mode × η",
        "",
        "Counts are steps summed over the cells' seeds (wrong = silent + wrong with a status saying so; "
        "flagged = every step with a status other than OK, wrong or not, by the status's name in "
        "`uxemu.bayes.Status`). \"sv/gss within\" holds the simulated-from-the-model sv and gss cells to the "
        "same bound against the grid filter; \"clean\" is the misspecified cells' counterparts' silent steps.",
        "",
        markdown_table(SUMMARY_COLUMNS, body),
    ]


def compact(row: dict, clean: dict | None = None) -> str:
    """worst sd · variance ratio range · ΔlogL · silent/wrong, with ✓ when within the bound, and the clean
    counterpart's silent count when given."""
    mark = {True: " ✓", False: "", None: ""}[meets(row)]
    tail = f" (clean {clean['silent']})" if clean is not None else ""
    return (
        f"{fmt(row['worst_sd'], 3)} · {fmt(row['var_min'], 3)}–{fmt(row['var_max'], 3)} · "
        f"{row['log_l_gap']:+.3g} · {row['silent']}/{row['wrong']}{mark}{tail}"
    )


def entry(table: list[dict], label: str, mode: str, eta: int) -> str:
    row = select(table, label=label, mode=mode, eta=eta)[0]
    return compact(row, clean_counterpart(table, row) if row["group"] == "lg_misspecified" else None)


def cell_tables(table: list[dict], modes, etas) -> list[str]:
    out = [
        "## Cells",
        "",
        "Each entry: worst mean error (sd) · variance ratio min–max · ΔlogL (nats, largest |·| over seeds) · "
        "silent/wrong steps; ✓ within the bound at that η (well-specified cells only); (clean n): the silent "
        "steps of the same traces unchanged.",
        "",
    ]
    for eta in etas:
        out += [f"### η = {eta}", ""]
        for group, title in GROUP_TITLES.items():
            cells = labels(table, group=group)
            if not cells:
                continue
            body = [[label] + [entry(table, label, m, eta) for m in modes] for label in cells]
            out += [f"**{title}**", "", markdown_table(["cell"] + list(modes), body)]
    return out


def grid_checks(results: list) -> list[str]:
    checks = [(res["label"], res["grid_check"]) for res in results if "grid_check" in res]
    if not checks:
        return []
    body = [[label, c["mean_sd"], c["var_ratio"], c["log_l"]] for label, c in checks]
    return [
        "## The grid filter's own error",
        "",
        f"The grid at {checks[0][1]['points']} points against the one the cells use ({R.GRID_POINTS}), first "
        "seed: the largest |Δmean| in sd, |variance ratio − 1| and |ΔlogL|.",
        "",
        markdown_table(["cell", "mean (sd)", "variance", "log L (nats)"], body),
    ]


def markdown(results: list, size: dict, meta: dict | None) -> str:
    table = rows(results)
    modes, etas = size["modes"], size["etas"]
    m = meta or {}
    how = (
        f"`python -m uxbench regimes` ({size.get('name', 'custom')} size): {len(results)} cells, engine "
        f"{engines(results)}, CPU time {cpu_seconds(results):.0f} s summed over the cells' tasks."
    )
    lines = ["# Regimes: the filter against the exact answer", "", statement(m, size.get("name"), "regimes", how)]
    lines += description(size) + headline(table, modes) + summary(table, modes, etas) + grid_checks(results)
    lines += cell_tables(table, modes, etas)
    return "\n".join(lines) + "\n"


def verdict(results: list, size: dict) -> dict:
    """Per mode: whether every well-specified lg cell meets the issue's done-when."""
    table = rows(results)
    labels = sorted({r["label"] for r in select(table, group="lg")})
    if not any(eta in size["etas"] for eta in metrics.BOUNDS):
        return {}
    return {
        f"{mode}: issue 36 bounds on all {len(labels)} well-specified lg cells": all(
            meets_done_when(table, mode, label) for label in labels
        )
        for mode in size["modes"]
    }


def write(results: list, size: dict, out_dir, meta: dict | None = None) -> dict:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "regimes.md").write_text(markdown(results, size, meta), encoding="utf-8")
    (out_dir / "regimes.json").write_text(json_text(json_document(results, size, meta)), encoding="utf-8")
    return verdict(results, size)
