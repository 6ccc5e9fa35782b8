"""The filtering benchmark's results: tables per system beside the paper's, Pareto plots, the targets.

Aggregation over traces (and runs): RMSE = mean of the per-run RMSEs; per-trace RMSE std = mean over
traces of the std (ddof = 1, as uxbench.metrics.rmse_spread) over that trace's runs; NLL = mean over every
scored step of −max(log p(x_true), LOG_PDF_FLOOR) with the floor hits counted; CRPS = mean over every
scored step. Latency = the timing task's median ns per step (native C, one whole-trace call a sample, the calling
thread's CPU time: what the call costs on a core of its own), the task run alone before any other starts
(`runner.execute`: CPU time still moves by up to 2x when another task shares the cores).

The Kalman-type baselines (EKF, UKF, EKF on log y²; family "kf") are deterministic Gaussian beliefs: NLL is
their Gaussian density at the truth (clamped the same way), CRPS the Gaussian closed form. They appear in
every table and plot beside the PF, and `kalman_comparison` states, from the numbers, where the ux filter
is ahead of them or behind.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from . import paper_filtering as paper
from .report import fmt, markdown_table, save_figure, statement, write_csv

TARGET_GRID_GAP = 0.01  # η = 64 RMSE within 1 % of the grid filter's
KF_LABELS = {"ekf": "EKF", "ukf": "UKF", "ekf_logsq": "EKF (log y²)"}
NATIVE = ("ux", "pf_fast", "pf", "kf")  # the families timed natively (points of the Pareto plots)
# The C PFs: "pf_fast" the tuned one (benchmarks/c/src/pf_fast.c), the one the targets compare with when a run
# has it; "pf" the plain one (pf.c), the only one of runs made before the tuned PF joined.
PF_FAMILIES = ("pf_fast", "pf")
PF_NAMES = {"pf_fast": "tuned C PF (benchmarks/c/src/pf_fast.c)", "pf": "plain C PF (benchmarks/c/src/pf.c)"}


@dataclass
class Row:
    """One method on one system: its per-trace records (trace index → record), and its latency."""

    system: str
    key: tuple
    traces: dict = field(default_factory=dict)
    latency_ns: float | None = None  # CPU time of the C call per step (median)
    wall_ns: float | None = None  # its wall clock (median), for reference
    timing_samples: int = 0

    @property
    def family(self) -> str:
        return self.key[0]

    @property
    def label(self) -> str:
        k = self.key
        return {
            "grid": lambda: f"grid {k[1]} points",
            "ux": lambda: f"ux η={k[1]} {k[2]} {k[3]}",
            "pf": lambda: f"PF {k[1]} (C, plain)",
            "pf_fast": lambda: f"PF {k[1]} (C, tuned)",
            "particles": lambda: f"particles PF {k[1]}",
            "kf": lambda: KF_LABELS[k[1]],
        }[k[0]]()

    def _recs(self, only=None):
        return [self.traces[i] for i in sorted(self.traces) if only is None or i in only]

    def rmse(self, only=None) -> float:
        """Mean over traces of the mean over that trace's runs (every trace weighs the same, however often
        it was run)."""
        return float(np.mean([np.mean(r["rmse"]) for r in self._recs(only)]))

    def _repeated(self, only=None):
        """Per-trace RMSE stds of the traces run more than once (the ux filter repeats on a subset)."""
        return [np.std(r["rmse"], ddof=1) for r in self._recs(only) if len(r["rmse"]) >= 2]

    def rmse_std(self, only=None) -> float | None:
        s = self._repeated(only)
        return float(np.mean(s)) if s else None

    def max_trace_std(self) -> float | None:
        s = self._repeated()
        return float(max(s)) if s else None

    def total(self, name: str, only=None):
        return sum(r.get(name, 0) for r in self._recs(only))

    def nll(self, only=None) -> float:
        steps = self.total("steps", only)
        return self.total("nll_sum", only) / steps if steps else math.nan

    def crps(self, only=None) -> float:
        steps = self.total("crps_steps", only)
        return self.total("crps_sum", only) / steps if steps else math.nan

    @property
    def identical(self) -> bool:
        return all(r.get("identical", True) for r in self.traces.values())

    @property
    def runs_per_trace(self) -> int:
        return max(len(r["rmse"]) for r in self.traces.values()) if self.traces else 0

    @property
    def repeated_traces(self) -> int:
        return len(self._repeated())

    def runs_text(self) -> str:
        """'100', or '2 (10 traces), 1' when only some traces were repeated."""
        lo = min(len(r["rmse"]) for r in self.traces.values()) if self.traces else 0
        hi = self.runs_per_trace
        return str(hi) if lo == hi else f"{hi} ({self.repeated_traces} traces), {lo}"

    def python_ms(self) -> float | None:
        s = [v for r in self._recs() for v in r.get("seconds_per_step", [])]
        return float(np.median(s)) * 1e3 if s else None


def aggregate(results: list[dict]) -> tuple[dict, dict]:
    """{system: {key: Row}} and {system: reason} where the outside check was not available."""
    table: dict = {}
    unavailable: dict = {}

    def get(system, key) -> Row:
        key = tuple(key)
        return table.setdefault(system, {}).setdefault(key, Row(system, key))

    for res in results:
        if res["kind"] == "accuracy":
            for rec in res["rows"]:
                get(res["system"], rec["key"]).traces[res["trace"]] = rec
        elif res["kind"] == "outside":
            if "unavailable" in res:
                unavailable[res["system"]] = res["unavailable"]
                continue
            for rec in res["rows"]:
                get(res["system"], rec["key"]).traces[rec["trace"]] = rec
        elif res["kind"] == "timing":
            for rec in res["rows"]:
                row = get(rec["system"], rec["key"])
                row.latency_ns, row.timing_samples = rec["ns_per_step"], rec["samples"]
                row.wall_ns = rec.get("wall_ns_per_step")
    for system in unavailable:  # a partial outside check would mislead: drop it whole
        for key in [k for k in table.get(system, {}) if k[0] == "particles"]:
            del table[system][key]
    return table, unavailable


def main_rows(rows: dict) -> dict:
    """The rows measured on every trace (the outside check runs on a subset and has its own table)."""
    return {k: r for k, r in rows.items() if k[0] != "particles"}


# -- targets -------------------------------------------------------------------------------------------------
def grid_row(rows: dict) -> Row:
    return next(r for k, r in rows.items() if k[0] == "grid")


def grid_gap(rows: dict) -> dict:
    """Relative RMSE gap to the grid filter of every η = 64 configuration."""
    g = grid_row(rows).rmse()
    return {r.label: (r.rmse() - g) / g for k, r in rows.items() if k[0] == "ux" and k[1] == 64}


def dominated_by(p: Row, candidates: list[Row]) -> Row | None:
    """The fastest candidate at least as good as p in both RMSE and latency and better in one, or None."""
    best = None
    for c in candidates:
        if c is p or c.latency_ns is None or p.latency_ns is None:
            continue
        if (
            c.rmse() <= p.rmse()
            and c.latency_ns <= p.latency_ns
            and (c.rmse() < p.rmse() or c.latency_ns < p.latency_ns)
        ):
            if best is None or c.latency_ns < best.latency_ns:
                best = c
    return best


def shortfall(p: Row, candidates: list[Row]) -> str:
    """Why no candidate dominates p: the cheapest one at least as accurate and how much slower it is, and the
    most accurate one at most as slow and how much less accurate ("—" where there is none)."""
    timed = [c for c in candidates if c.latency_ns is not None and p.latency_ns is not None]
    accurate = [c for c in timed if c.rmse() <= p.rmse()]
    cheap = [c for c in timed if c.latency_ns <= p.latency_ns]
    parts = []
    if accurate:
        c = min(accurate, key=lambda r: r.latency_ns)
        parts.append(f"as accurate: {c.label} at {c.latency_ns / p.latency_ns:.2g}× its latency")
    if cheap:
        c = min(cheap, key=lambda r: r.rmse())
        parts.append(f"as fast: {c.label}, RMSE {100 * (c.rmse() / p.rmse() - 1):+.1f} %")
    return "; ".join(parts) or "—"


def primary_pf(rows: dict) -> str:
    """The PF family the targets compare with: the tuned C PF when the run has it, else the plain one."""
    return "pf_fast" if any(k[0] == "pf_fast" for k in rows) else "pf"


def pareto(rows: dict, family: str | None = None) -> dict:
    """For each C PF row of `family` (default: primary_pf): the ux row that dominates it (or None)."""
    family = family or primary_pf(rows)
    ux = [r for k, r in rows.items() if k[0] == "ux"]
    return {r.label: dominated_by(r, ux) for k, r in sorted(rows.items()) if k[0] == family}


def paired_se(a: Row, b: Row) -> float:
    """Standard error of a.rmse() − b.rmse() from the per-trace differences of their mean RMSEs (the same
    traces: their own spread cancels), or nan with fewer than two traces in common."""
    common = sorted(set(a.traces) & set(b.traces))
    d = np.array([np.mean(a.traces[i]["rmse"]) - np.mean(b.traces[i]["rmse"]) for i in common])
    return float(d.std(ddof=1) / np.sqrt(d.size)) if d.size > 1 else math.nan


def pf_ratios(table: dict) -> list[dict]:
    """Per system and particle count with both C PFs: their RMSEs, the tuned − plain difference and its paired
    standard error, their latencies and plain / tuned (timed in alternating calls of one timing task)."""
    out = []
    for system, rows in table.items():
        for k, new in sorted(rows.items()):
            old = rows.get(("pf", k[1]))
            if k[0] != "pf_fast" or old is None:
                continue
            ratio = old.latency_ns / new.latency_ns if old.latency_ns and new.latency_ns else None
            out.append(
                {
                    "system": system,
                    "n": k[1],
                    "old": old,
                    "new": new,
                    "diff": new.rmse() - old.rmse(),
                    "se": paired_se(new, old),
                    "ratio": ratio,
                }
            )
    return out


def pf_ratio_table(ratios: list[dict]) -> str:
    rows = [
        [
            r["system"],
            r["n"],
            fmt(r["old"].rmse(), 4),
            fmt(r["new"].rmse(), 4),
            f"{r['diff']:+.4f} ± {r['se']:.4f}",
            f"{r['diff'] / r['se']:+.1f}" if r["se"] > 0 else "—",
            f"{r['old'].runs_per_trace} / {r['new'].runs_per_trace}",
            _lat(r["old"].latency_ns),
            _lat(r["new"].latency_ns),
            "—" if r["ratio"] is None else f"{r['ratio']:.3g}",
        ]
        for r in ratios
    ]
    return markdown_table(
        [
            "system",
            "N",
            "RMSE plain",
            "RMSE tuned",
            "tuned − plain ± se",
            "in se",
            "runs/trace plain / tuned",
            "latency plain",
            "latency tuned",
            "plain / tuned",
        ],
        rows,
    )


PF_RATIO_NOTE = (
    "Plain: `benchmarks/c/src/pf.c`, the model through the registry's function pointers, the core's "
    "generator and polar normals, weights normalised and resampled in separate passes, cubic's inner "
    "noise integrated over 64 atoms per particle. Tuned: `benchmarks/c/src/pf_fast.c`, one loop per "
    "system with the model inlined, xoshiro256** and ziggurat normals, systematic resampling fused "
    "with propagation and weighing, one exp per particle, cubic's inner noise sampled once per "
    "particle (`python -m uxbench pf_tuned`). The two are timed in alternating whole-trace calls of "
    "the one timing task (order rotated every round), so plain / tuned is a ratio of neighbouring "
    "timings; the RMSE difference's standard error is over the traces' paired differences."
)


def frontier(points: list[Row]) -> list[Row]:
    """Rows no other row dominates, by latency."""
    return sorted(
        (p for p in points if p.latency_ns is not None and dominated_by(p, points) is None), key=lambda r: r.latency_ns
    )


def targets(table: dict) -> tuple[str, dict]:
    """The three targets as tables (summary, η = 64 against the grid, each PF point's dominator) and the verdict."""
    systems = list(table)
    gaps = {s: grid_gap(main_rows(rows)) for s, rows in table.items()}
    doms = {s: pareto(main_rows(rows)) for s, rows in table.items()}
    fams = {s: primary_pf(main_rows(rows)) for s, rows in table.items()}
    plain = {s: pareto(main_rows(rows), "pf") for s, rows in table.items() if fams[s] == "pf_fast"}
    ux = {s: [r for k, r in rows.items() if k[0] == "ux"] for s, rows in table.items()}
    headline = {s: g.get("ux η=64 refined kernel") for s, g in gaps.items()}
    worst = {
        s: max((v for v in (r.max_trace_std() for r in rs) if v is not None), default=None) for s, rs in ux.items()
    }
    same = {s: all(r.identical for r in rs) for s, rs in ux.items()}
    verdict = {
        "eta64_within_1pct_of_grid": bool(headline)
        and all(v is not None and abs(v) <= TARGET_GRID_GAP for v in headline.values()),
        "ux_pareto_dominates_pf": all(d and all(by is not None for by in d.values()) for d in doms.values()),
        "ux_rmse_std_exactly_zero": bool(ux)
        and all(rs and all(r.max_trace_std() == 0.0 for r in rs) and same[s] for s, rs in ux.items()),
    }
    yes = {True: "yes", False: "no"}
    tuned = set(fams.values()) == {"pf_fast"}
    summary = [
        [
            "η = 64 (refined, kernel) RMSE against the grid filter's, within ±1 %",
            *(_pct(headline[s]) for s in systems),
            yes[verdict["eta64_within_1pct_of_grid"]],
        ],
        [
            ("tuned " if tuned else "") + "C PF points Pareto-dominated by a ux point (RMSE, native latency)",
            *(f"{sum(by is not None for by in doms[s].values())}/{len(doms[s])}" for s in systems),
            yes[verdict["ux_pareto_dominates_pf"]],
        ],
        [
            "largest per-trace RMSE std of the ux filter, 0 with bit-identical runs",
            *(f"{worst[s]!r}" + ("" if same[s] else " (runs differ)") for s in systems),
            yes[verdict["ux_rmse_std_exactly_zero"]],
        ],
    ]
    if plain and len(plain) == len(systems):
        summary.append(
            [
                "for comparison, not a target: plain C PF (pf.c) points Pareto-dominated",
                *(f"{sum(by is not None for by in plain[s].values())}/{len(plain[s])}" for s in systems),
                "—",
            ]
        )
    named = sorted({PF_NAMES[f] for f in fams.values()})
    out = [
        markdown_table(["target", *systems, "met"], summary),
        f"The C PF the targets compare with: the {' and the '.join(named)}.",
        "",
        "### η = 64 against the grid filter",
        "",
        markdown_table(
            ["system", "configuration", "RMSE relative to the grid's"],
            [[s, lab.removeprefix("ux η=64 "), _pct(v)] for s, g in gaps.items() for lab, v in g.items()],
        ),
        "### Each C PF point and the fastest ux point at least as accurate and as fast",
        "",
    ]
    rows = []
    for s, d in doms.items():
        by_label = {r.label: r for r in table[s].values()}
        ux = [r for k, r in main_rows(table[s]).items() if k[0] == "ux"]
        for lab, by in list(d.items()) + list(plain.get(s, {}).items()):
            pf = by_label[lab]
            rows.append(
                [
                    s,
                    lab,
                    fmt(pf.rmse(), 4),
                    _lat(pf.latency_ns),
                    by.label if by else "not dominated",
                    fmt(by.rmse(), 4) if by else None,
                    _lat(by.latency_ns) if by else "—",
                    "—" if by else shortfall(pf, ux),
                ]
            )
    header = [
        "system",
        "C PF",
        "RMSE",
        "latency",
        "dominated by",
        "its RMSE",
        "its latency",
        "else, the nearest ux points",
    ]
    out.append(markdown_table(header, rows))
    ratios = pf_ratios({s: main_rows(r) for s, r in table.items()})
    if ratios:
        out += ["", "### The tuned C PF against the plain one", "", PF_RATIO_NOTE, "", pf_ratio_table(ratios)]
    return "\n".join(out), verdict


def _pct(v) -> str:
    return "not run" if v is None else f"{100 * v:+.2f} %"


# -- markdown ----------------------------------------------------------------------------------------------------
def _lat(ns) -> str:
    if ns is None:
        return "—"
    return f"{ns / 1e3:.3g} µs" if ns < 1e6 else f"{ns / 1e6:.3g} ms"


def our_table(rows: dict) -> str:
    cols = [
        "method",
        "runs/trace",
        "RMSE",
        "per-trace RMSE std",
        "NLL",
        "NLL floor hits",
        "CRPS",
        "latency/step (native)",
        "fallback steps",
    ]
    out = []
    for r in sorted(rows.values(), key=lambda r: r.rmse()):
        std = r.rmse_std()
        lat = _lat(r.latency_ns) if r.family in NATIVE else "— (Python)"
        out.append(
            [
                r.label,
                r.runs_text(),
                r.rmse(),
                "—" if std is None else std,
                r.nll(),
                f"{r.total('floor_hits')}/{r.total('steps')}",
                r.crps(),
                lat,
                r.total("fallbacks"),
            ]
        )
    return markdown_table(cols, out)


def outside_table(rows: dict) -> tuple[str, list]:
    """The particles library against our C PF on the same traces; also the relative RMSE gaps."""
    cols = [
        "N",
        "particles RMSE",
        "C PF RMSE",
        "gap ± 2 SE",
        "particles std",
        "C PF std",
        "particles NLL",
        "C PF NLL",
        "particles CRPS",
        "C PF CRPS",
        "particles ms/step (Python)",
        "C PF latency/step",
    ]
    out, gaps = [], []
    for k, r in sorted(rows.items()):
        if k[0] != "particles" or ("pf", k[1]) not in rows:
            continue
        ours = rows[("pf", k[1])]
        only = set(r.traces)
        gap = ours.rmse(only) / r.rmse() - 1
        se = _gap_se(ours, r, only) / r.rmse()
        gaps.append((k[1], gap, se))
        out.append(
            [
                k[1],
                r.rmse(),
                ours.rmse(only),
                f"{100 * gap:+.2f} % ± {200 * se:.2f} %",
                r.rmse_std(),
                ours.rmse_std(only),
                r.nll(),
                ours.nll(only),
                r.crps(),
                ours.crps(only),
                r.python_ms(),
                _lat(ours.latency_ns),
            ]
        )
    return markdown_table(cols, out), gaps


def _gap_se(a: Row, b: Row, only) -> float:
    """Standard error of a.rmse(only) − b.rmse(only) from the run-to-run spread within each trace (the
    traces are shared, so their own spread cancels)."""
    var = 0.0
    for i in sorted(only):
        for row in (a, b):
            runs = row.traces[i]["rmse"]
            var += np.var(runs, ddof=1) / len(runs) if len(runs) > 1 else 0.0
    return float(np.sqrt(var)) / len(only)


def _ours_for(rows: dict, method: str) -> tuple[Row | None, Row | None]:
    """Our rows for a paper row: (the paper's algorithm, our default) for UxHw η; (C PF, None) for BPF N."""
    kind, n = method.split()
    n = int(n)
    if kind == "UxHw":
        return rows.get(("ux", n, "paper", "sampler")), rows.get(("ux", n, "refined", "kernel"))
    return rows.get((primary_pf(rows), n)), None


def _paper_etas(system: str) -> set[int]:
    """The η the paper has a UxHw row for."""
    return {int(p["method"].split()[1]) for p in paper.rows(system) if p["method"].startswith("UxHw ")}


def beside_paper(system: str, rows: dict) -> str:
    """The paper's rows in its order, ours beside each; then our ux η the paper has no row for (e.g. 2 and 4),
    with the paper's columns empty."""
    cols = [
        "paper row",
        "paper RMSE",
        "ours RMSE",
        "paper RMSE / BPF 1000",
        "ours RMSE / PF 1000",
        "paper std",
        "ours std",
        "paper NLL",
        "ours NLL",
        "paper CRPS",
        "ours CRPS",
        "ours refined + kernel: RMSE / NLL / CRPS",
    ]
    ref_paper = paper.row(system, "BPF 1000")["rmse"]
    ref_ours = rows.get((primary_pf(rows), 1000))

    def line(method, p, mine, other):
        theirs = [p["rmse"], p["rmse"] / ref_paper, p["rmse_std"], p["nll"], p["crps"]] if p else ["—"] * 5
        if mine is None:
            ours = ["—"] * 5
        else:
            std = mine.rmse_std()
            ours = [
                mine.rmse(),
                mine.rmse() / ref_ours.rmse() if ref_ours else "—",
                "—" if std is None else std,
                mine.nll(),
                mine.crps(),
            ]
        default = f"{fmt(other.rmse(), 5)} / {fmt(other.nll(), 4)} / {fmt(other.crps(), 5)}" if other else "—"
        return [method, *(c for pair in zip(theirs, ours) for c in pair), default]

    out = []
    for p in paper.rows(system):
        out.append(line(p["method"], p, *_ours_for(rows, p["method"])))
    ours_only = sorted({k[1] for k in rows if k[0] == "ux"} - _paper_etas(system), reverse=True)
    for eta in ours_only:
        out.append(line(f"UxHw {eta} (not in the paper)", None, *_ours_for(rows, f"UxHw {eta}")))
    for k, r in sorted(rows.items()):
        if k[0] == "kf":
            out.append(line(f"{r.label} (not in the paper)", None, r, None))
    return markdown_table(cols, out)


# -- the Kalman-type baselines ----------------------------------------------------------------------------
def kalman_comparison(
    system: str, rows: dict, empty_ns: float | None = None, T: int | None = None
) -> tuple[list, list[str]]:
    """Per Kalman-type row: its numbers, the ux rows more accurate, the fastest of them; and one sentence
    per row saying where the ux filter is ahead or behind, built from these numbers. With the empty call's
    cost and T, latency ratios are also given net of that fixed per-trace cost."""
    per_step = empty_ns / T if empty_ns is not None and T else None
    ux = [r for k, r in rows.items() if k[0] == "ux"]
    table, sentences = [], []
    for k, b in sorted(rows.items()):
        if k[0] != "kf" or not ux:
            continue
        better = [r for r in ux if r.rmse() < b.rmse()]
        fastest = min((r for r in better if r.latency_ns is not None), key=lambda r: r.latency_ns, default=None)
        best = min(ux, key=lambda r: r.rmse())
        quickest = min((r for r in ux if r.latency_ns is not None), key=lambda r: r.latency_ns, default=None)
        dom = dominated_by(b, ux)
        table.append(
            [
                system,
                b.label,
                fmt(b.rmse(), 4),
                fmt(b.nll(), 4),
                fmt(b.crps(), 4),
                _lat(b.latency_ns),
                f"{len(better)}/{len(ux)}",
                fastest.label if fastest else "none",
                fmt(fastest.rmse(), 4) if fastest else "—",
                _lat(fastest.latency_ns) if fastest else "—",
                dom.label if dom else "not dominated",
            ]
        )
        head = f"{system}, {b.label} (RMSE {fmt(b.rmse(), 4)}, NLL {fmt(b.nll(), 4)}, {_lat(b.latency_ns)}/step): "
        if not better:
            sentences.append(
                head + f"ux is behind in accuracy — no ux configuration reaches its RMSE (the best, "
                f"{best.label}, has {fmt(best.rmse(), 4)})."
            )
            continue
        nll_better = sum(r.nll() < b.nll() for r in ux)
        text = (
            head + f"ux is ahead in accuracy in {len(better)} of {len(ux)} configurations (RMSE down to "
            f"{fmt(best.rmse(), 4)}, {_pct(best.rmse() / b.rmse() - 1)}; lower NLL in {nll_better})"
        )
        if dom is not None:
            text += f", and {dom.label} is also at least as fast ({_lat(dom.latency_ns)}): the baseline is dominated."
        elif fastest is not None and b.latency_ns:
            text += (
                f"; it is behind in latency: the fastest more accurate one, {fastest.label}, takes "
                f"{_lat(fastest.latency_ns)} ({fastest.latency_ns / b.latency_ns:.3g}× the baseline's"
            )
            if per_step is not None and b.latency_ns > per_step:
                text += (
                    f"; {(fastest.latency_ns - per_step) / (b.latency_ns - per_step):.3g}× net of the "
                    f"{_lat(per_step)} per step of the call itself"
                )
            text += ")"
            if quickest is not None and quickest.latency_ns > b.latency_ns:
                text += f", and no ux configuration is as fast (the fastest takes {_lat(quickest.latency_ns)})"
            text += "."
        else:
            text += "."
        sentences.append(text)
    return table, sentences


KALMAN_COLUMNS = [
    "system",
    "baseline",
    "RMSE",
    "NLL",
    "CRPS",
    "latency/step",
    "ux rows more accurate",
    "fastest of them",
    "its RMSE",
    "its latency",
    "dominated by",
]

KALMAN_NOTE = (
    "EKF and UKF are generic (kf.h): they linearise / sample the model functions and never look at "
    "which system they run. Where the observation's location does not depend on x (SV: y = ε·exp(x/2) "
    "has mean 0 for every x) their gain is 0 and they never learn from the data; the row "
    "EKF (log y²) is the standard practitioner's fix for that form (an EKF on log y² = log scale(x)² + "
    "log e², log e² with mean ψ(½) + log 2 and variance π²/2), not a generic filter."
)


# -- plot ----------------------------------------------------------------------------------------------------------
def plot(system: str, rows: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5.2), dpi=120)
    styles = {
        ("refined", "kernel"): ("tab:green", "o"),
        ("paper", "kernel"): ("tab:olive", "o"),
        ("mixture", "kernel"): ("tab:cyan", "P"),
        ("refined", "sampler"): ("tab:purple", "D"),
        ("paper", "sampler"): ("tab:pink", "D"),
    }
    for (mode, lik), (colour, marker) in styles.items():
        pts = sorted(
            (r for k, r in rows.items() if k[0] == "ux" and k[2:] == (mode, lik) and r.latency_ns),
            key=lambda r: r.key[1],
        )
        if pts:
            ax.plot(
                [r.latency_ns for r in pts],
                [r.rmse() for r in pts],
                marker=marker,
                color=colour,
                ls=":",
                label=f"ux {mode}, {lik}",
            )
            for r in pts:
                ax.annotate(
                    f"η{r.key[1]}",
                    (r.latency_ns, r.rmse()),
                    textcoords="offset points",
                    xytext=(4, 4),
                    fontsize=7,
                    color=colour,
                )
    pf_styles = {
        "pf_fast": ("tab:blue", "s", "bootstrap PF (C, tuned: pf_fast.c)", "full"),
        "pf": ("lightsteelblue", "s", "bootstrap PF (C, plain: pf.c)", "none"),
    }
    if primary_pf(rows) == "pf":
        pf_styles["pf"] = ("tab:blue", "s", "bootstrap PF (C)", "full")
    for family, (colour, marker, name, fill) in pf_styles.items():
        pf = sorted((r for k, r in rows.items() if k[0] == family and r.latency_ns), key=lambda r: r.key[1])
        if pf:
            ax.plot(
                [r.latency_ns for r in pf],
                [r.rmse() for r in pf],
                marker=marker,
                color=colour,
                ls=":",
                fillstyle=fill,
                label=name,
            )
            for r in pf:
                ax.annotate(
                    f"N{r.key[1]}",
                    (r.latency_ns, r.rmse()),
                    textcoords="offset points",
                    xytext=(4, -10),
                    fontsize=7,
                    color=colour,
                )
    kf_styles = {"ekf": ("tab:red", "^"), "ukf": ("tab:orange", "v"), "ekf_logsq": ("tab:brown", "*")}
    for k, r in sorted(rows.items()):
        if k[0] == "kf" and r.latency_ns:
            colour, marker = kf_styles.get(k[1], ("tab:gray", "x"))
            ax.plot([r.latency_ns], [r.rmse()], marker=marker, color=colour, ls="none", ms=8, label=f"{r.label} (C)")
    main = primary_pf(rows)
    front = frontier([r for k, r in rows.items() if k[0] in NATIVE and (k[0] == main or k[0] not in PF_FAMILIES)])
    if front:
        ax.step(
            [r.latency_ns for r in front],
            [r.rmse() for r in front],
            where="post",
            color="grey",
            lw=0.8,
            alpha=0.6,
            label="Pareto frontier (ux, " + ("tuned " if main == "pf_fast" else "") + "PF, Kalman)",
        )
    grid = grid_row(rows)
    ax.axhline(grid.rmse(), color="black", ls="--", lw=0.8, label=f"grid filter ({grid.key[1]} points)")
    ax.set_xscale("log")
    ax.set_xlabel("latency per step, native C (ns, log scale)")
    ax.set_ylabel("RMSE (mean over traces and runs)")
    ax.set_title(f"{system}: RMSE against latency")
    ax.legend(fontsize=7, loc="best")
    ax.grid(True, which="both", alpha=0.2)
    fig.tight_layout()
    save_figure(fig, path)
    plt.close(fig)


# -- files -----------------------------------------------------------------------------------------------------------
def write(results: list[dict], size, out_dir, meta: dict | None = None) -> dict:
    """SYSTEM.md and SYSTEM_pareto.png per system, README.md (targets), filtering_summary.csv; the verdict."""
    from . import filtering

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    table, unavailable = aggregate(results)
    envs = ", ".join(sorted({r["note"] for r in results if r["kind"] == "outside" and r.get("note") and "rows" in r}))
    name = next((k for k, v in filtering.SIZES.items() if v == size), None)
    how = (
        f"{size.traces} traces × T = {size.T} per system (trace seed {filtering.TRACE_SEED}; counts and seeds: "
        f"`uxbench.filtering.SIZES[{name!r}]`); latency: native C, the calling thread's CPU time per step, median, "
        "timed with no other task running."
    )
    fams = {primary_pf(main_rows(rows)) for rows in table.values()}
    plain = any(k[0] == "pf" for rows in table.values() for k in rows)
    if fams == {"pf_fast"}:
        how += " C PF rows: the tuned PF (pf_fast.c), which the targets and plots compare with" + (
            ", and the plain PF (pf.c), the two timed in alternating calls." if plain else "."
        )
    else:
        how += " C PF rows: the plain PF (pf.c), the only one this run has."
    line = statement(meta, name, "filtering", how)
    summary, verdict = targets(table)
    records, kalman_rows, kalman_text = [], [], []
    empty_ns = next((r.get("empty_call_ns") for r in results if r["kind"] == "timing"), None)
    for system, rows in table.items():
        main = main_rows(rows)
        plot(system, main, out_dir / f"{system}_pareto.png")
        outside, gaps = outside_table(rows)
        ktable, ktext = kalman_comparison(system, main, empty_ns, size.T)
        body = [
            f"# Filter accuracy: {paper.TITLES[system]}",
            "",
            line,
            "## Our rows (sorted by RMSE)",
            "",
            our_table(main),
            "## Beside the paper",
            "",
            beside_paper(system, main),
            f"![RMSE against latency]({system}_pareto.png)",
            "",
        ]
        ratios = pf_ratios({system: main})
        if ratios:
            body += ["## The tuned C PF against the plain one", "", PF_RATIO_NOTE, "", pf_ratio_table(ratios), ""]
        if ktable:
            body += [
                "## The Kalman-type baselines",
                "",
                KALMAN_NOTE,
                "",
                markdown_table(KALMAN_COLUMNS, ktable),
                *(f"- {t}" for t in ktext),
                "",
            ]
            kalman_rows += ktable
            kalman_text += ktext
        skipped = [[" ".join(map(str, key[1:])), reason] for key, reason in size.skipped if key[0] == system]
        if skipped:
            body += ["## Not run at this size", "", markdown_table(["configuration", "reason"], skipped)]
        body += [
            f"## Outside check: the particles library{f' ({envs})' if envs else ''}",
            "",
            "Against the plain C PF (pf.c), which integrates cubic's inner noise over 64 atoms as the "
            "particles run does.",
            "",
        ]
        if system in unavailable:
            body += [f"**Not available**: {unavailable[system]}", ""]
        else:
            body += [outside if gaps else "Not run at this size.\n"]
        (out_dir / f"{system}.md").write_text("\n".join(body))
        for r in rows.values():
            records.append(
                {
                    "system": system,
                    "method": r.label,
                    "family": r.family,
                    "runs_per_trace": r.runs_per_trace,
                    "traces": len(r.traces),
                    "rmse": r.rmse(),
                    "rmse_std": r.rmse_std(),
                    "nll": r.nll(),
                    "nll_floor_hits": r.total("floor_hits"),
                    "nll_steps": r.total("steps"),
                    "crps": r.crps(),
                    "latency_ns": r.latency_ns,
                    "timing_samples": r.timing_samples,
                    "fallback_steps": r.total("fallbacks"),
                    "runs_identical": r.identical,
                    "python_ms_per_step": r.python_ms(),
                }
            )
    write_csv(out_dir / "filtering_summary.csv", records)
    index = ["# Filter accuracy: summary", "", line, "## Targets", "", summary]
    if kalman_rows:
        index += [
            "## The Kalman-type baselines (EKF, UKF)",
            "",
            KALMAN_NOTE,
            "",
            markdown_table(KALMAN_COLUMNS, kalman_rows),
            *(f"- {t}" for t in kalman_text),
            "",
        ]
        if empty_ns is not None:
            index += [
                f"Every latency includes one ctypes call per trace; an empty trace (T = 0) costs "
                f"{_lat(empty_ns)} of CPU time, i.e. {_lat(empty_ns / size.T)} of each step's latency at "
                f"T = {size.T}: small beside the PF and ux rows, a large part of the Kalman rows'.",
                "",
            ]
    if size.notes:
        index += ["## Reductions from the paper's counts", "", *(f"- {n}" for n in size.notes), ""]
    index += ["## Tables", "", *(f"- [{s}]({s}.md) — [Pareto plot]({s}_pareto.png)" for s in table)]
    (out_dir / "README.md").write_text("\n".join(index) + "\n")
    return verdict
