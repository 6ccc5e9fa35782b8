"""The plain C bootstrap PF (pf.c) against the tuned one (pf_fast.c), and which ux rows still dominate it.

    .venv/bin/python -m uxbench pf_tuned [--rev HEAD] [--traces 50] [--rounds 15] → benchmarks/results/pf_tuned.md

libuxbench.so is built from commit REV (`git archive`, as uxbench.ab_cost does) into a temporary folder, so
the PFs and the ux core timed are a commit's, not whatever the work tree holds (`--rev ''`: build/native).

Accuracy: the full filtering size's traces (`filtering.trace_for`, 50 × T = 100, trace seed 2026) through
both PFs at 10 … 1000 particles, `RUNS` seeded runs each per trace (pf.c with the filtering tables' seeds
`filtering.pf_seed`, pf_fast.c with its own); RMSE as the filtering tables report it (mean over traces of
the mean over runs). Timing: the first three of those traces, whole-trace C calls as in the filtering
tables (one ctypes crossing per trace included), thread CPU time per step, `rounds` rounds per trace in
rotating order (old PF, tuned PF and the ux candidate below), medians. On a shared machine only these
ratios from interleaved rounds mean anything.

Dominance: for sv, gss and cubic the ux rows of benchmarks/results/full/filtering (read from its
filtering_results.json.gz, the same traces) are searched for the fastest one, by the tables' latency, at
least as accurate as the tuned PF point; that ux configuration is then timed in the same interleaved
rounds, so the verdict rests on a measured ratio ux / tuned PF, not on latencies taken at other times.
The tables' latency of the old PF point scaled by the measured new/old ratio is shown beside it.
"""

from __future__ import annotations

import gzip
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

import uxemu as ux

from . import ab_cost, environment, filtering, filtering_report, metrics, pf_native
from .report import RESULTS, markdown_table, run_meta

OUT = RESULTS / "pf_tuned.md"
FULL = RESULTS / "full" / "filtering" / "filtering_results.json.gz"
SYSTEMS = ("sv", "gss", "cubic", "lg")
PARTICLES = (10, 20, 50, 100, 200, 500, 1000)
RUNS = {"sv": 20, "gss": 20, "cubic": 10, "lg": 20}  # cubic: pf.c integrates 64 inner atoms, ~25× slower
TUNED_SEED = filtering.PF_FAST_SEED  # run r of the tuned PF with N particles on trace i: see tuned_seed()
TIMING_TRACES = 3


def tuned_seed(system: str, trace: int, n: int, run: int) -> int:
    return filtering.pf_fast_seed(system, trace, n, run)


def accuracy(lib, system: str, traces: list, runs: int, particles=PARTICLES, progress=print) -> dict:
    """{n: {"old": per-trace mean RMSE (array), "new": …}} over the traces."""
    model = ux.systems.get(system)
    out = {}
    for n in particles:
        old, new = [], []
        for i, tr in enumerate(traces):
            old.append(
                np.mean(
                    [
                        metrics.rmse(
                            lib.run_pf(
                                model.system_id,
                                tr.k,
                                tr.u,
                                tr.z,
                                n,
                                filtering.pf_seed(system, i, n, r),
                                particles=False,
                                inner_eta=filtering.INNER_ETA,
                            ).mean,
                            tr.x,
                        )
                        for r in range(runs)
                    ]
                )
            )
            new.append(
                np.mean(
                    [
                        metrics.rmse(
                            lib.run_pf_fast(
                                model.system_id, tr.k, tr.u, tr.z, n, tuned_seed(system, i, n, r), particles=False
                            ).mean,
                            tr.x,
                        )
                        for r in range(runs)
                    ]
                )
            )
        out[n] = {"old": np.array(old), "new": np.array(new)}
        progress(f"{system} PF {n}: RMSE {np.mean(old):.4f} (pf.c) {np.mean(new):.4f} (tuned)")
    return out


def interleaved(calls: dict, traces: list, rounds: int) -> dict:
    """Median thread CPU ns per step of each named call (tr → run with cpu_ns), `rounds` rounds per trace,
    the order rotated every round."""
    names = list(calls)
    times = {k: [] for k in names}
    for tr in traces:
        for r in range(rounds):
            for k in names[r % len(names) :] + names[: r % len(names)]:
                times[k].append(calls[k](tr).cpu_ns / len(tr))
    return {k: statistics.median(v) for k, v in times.items()}


def full_table() -> dict:
    """{system: {key: filtering_report.Row}} of the committed full filtering results ({} if absent)."""
    if not FULL.exists():
        return {}
    with gzip.open(FULL, "rt") as f:
        data = json.load(f)
    return filtering_report.aggregate(data["results"])[0]


def candidate(rows: dict, rmse_new: float, only=None):
    """The fastest ux row (by the tables' latency) whose RMSE on the traces `only` is at most the tuned PF's,
    or None."""
    ux_rows = [r for k, r in rows.items() if k[0] == "ux" and r.latency_ns is not None and r.rmse(only) <= rmse_new]
    return min(ux_rows, key=lambda r: r.latency_ns) if ux_rows else None


def _us(ns) -> str:
    return "—" if ns is None else f"{ns / 1e3:.3g} µs"


def measure(
    lib,
    systems=SYSTEMS,
    n_traces: int = 50,
    rounds: int = 15,
    runs=None,
    particles=PARTICLES,
    size=filtering.SIZES["full"],
    progress=print,
) -> list[dict]:
    table = full_table()
    records = []
    for system in systems:
        model = ux.systems.get(system)
        traces = [filtering.trace_for(system, i, size) for i in range(n_traces)]
        acc = accuracy(lib, system, traces, (runs or RUNS)[system], particles, progress)
        rows = table.get(system, {})
        for n in particles:
            old, new = acc[n]["old"], acc[n]["new"]
            d = new - old
            rec = {
                "system": system,
                "n": n,
                "rmse_old": float(old.mean()),
                "rmse_new": float(new.mean()),
                "diff_se": float(d.std(ddof=1) / np.sqrt(d.size)) if d.size > 1 else float("nan"),
                "runs": (runs or RUNS)[system],
                "traces": len(traces),
            }
            calls = {
                "old": lambda tr, n=n: lib.run_pf(
                    model.system_id,
                    tr.k,
                    tr.u,
                    tr.z,
                    n,
                    filtering.pf_seed(system, 0, n, 0),
                    particles=False,
                    inner_eta=filtering.INNER_ETA,
                ),
                "new": lambda tr, n=n: lib.run_pf_fast(
                    model.system_id, tr.k, tr.u, tr.z, n, tuned_seed(system, 0, n, 0), particles=False
                ),
            }
            cand = candidate(rows, rec["rmse_new"], set(range(len(traces)))) if rows else None
            if cand is not None:
                eta, mode, lik = cand.key[1:]
                calls["ux"] = lambda tr, c=(eta, mode, lik): lib.run_ux(
                    model.system_id, tr.k, tr.u, tr.z, *c, atoms=False
                )
                per_trace = np.array([np.mean(cand.traces[i]["rmse"]) for i in range(len(traces)) if i in cand.traces])
                gap = per_trace - new[: per_trace.size]
                rec.update(
                    ux=cand.label,
                    ux_rmse=float(per_trace.mean()),
                    ux_gap_se=float(gap.std(ddof=1) / np.sqrt(gap.size)) if gap.size > 1 else float("nan"),
                    ux_table_ns=cand.latency_ns,
                )
            old_row = rows.get(("pf", n))
            rec["old_table_ns"] = old_row.latency_ns if old_row is not None else None
            med = interleaved(calls, traces[:TIMING_TRACES], rounds)
            rec.update(old_ns=med["old"], new_ns=med["new"], ux_ns=med.get("ux"))
            rec["ratio"] = med["old"] / med["new"]
            if rec["old_table_ns"] is not None:
                rec["new_table_ns"] = rec["old_table_ns"] / rec["ratio"]
            rec["dominated"] = bool(med.get("ux") is not None and med["ux"] <= med["new"])
            progress(
                f"{system} PF {n}: {med['old'] / 1e3:.3f} → {med['new'] / 1e3:.3f} µs/step (old/new "
                f"{rec['ratio']:.2f})" + (f"; {rec['ux']} {med['ux'] / 1e3:.3f} µs/step" if "ux" in rec else "")
            )
            records.append(rec)
    return records


def render(records: list[dict], meta: dict, args_text: str) -> str:
    """The results file; `meta` is the run's environment block, its commit the one the library was built from."""
    rows_t, rows_d = [], []
    for r in records:
        rows_t.append(
            [
                r["system"],
                r["n"],
                f"{r['rmse_old']:.4f}",
                f"{r['rmse_new']:.4f}",
                f"{r['rmse_new'] - r['rmse_old']:+.4f} ± {r['diff_se']:.4f}",
                f"{r['old_ns'] / 1e3:.3f}",
                f"{r['new_ns'] / 1e3:.3f}",
                f"{r['ratio']:.2f}",
            ]
        )
        if r["system"] == "lg":
            continue
        if "ux" in r:
            q = r["ux_ns"] / r["new_ns"]
            verdict = ("dominated" if r["dominated"] else "not dominated (slower)") + (
                " — a tie within 5 %" if 0.95 <= q <= 1.05 else ""
            )
            tables = (
                "—"
                if r.get("new_table_ns") is None
                else ("dominated" if r["ux_table_ns"] <= r["new_table_ns"] else "not dominated")
            )
            rows_d.append(
                [
                    r["system"],
                    f"PF {r['n']}",
                    f"{r['rmse_new']:.4f}",
                    _us(r.get("new_table_ns")),
                    r["ux"],
                    f"{r['ux_rmse']:.4f}",
                    f"{r['ux_rmse'] - r['rmse_new']:+.4f} ± {r['ux_gap_se']:.4f}",
                    _us(r["ux_table_ns"]),
                    tables,
                    f"{r['ux_ns'] / r['new_ns']:.2f}",
                    verdict,
                ]
            )
        else:
            rows_d.append(
                [
                    r["system"],
                    f"PF {r['n']}",
                    f"{r['rmse_new']:.4f}",
                    _us(r.get("new_table_ns")),
                    "no ux row as accurate",
                    "—",
                    "—",
                    "—",
                    "—",
                    "—",
                    "not dominated (accuracy)",
                ]
            )
    n_dom = sum(1 for r in records if r["system"] != "lg" and r.get("dominated"))
    n_all = sum(1 for r in records if r["system"] != "lg")
    return (
        "# The tuned C particle filter against the plain one\n\n"
        f"`{args_text}`. {environment.line(meta)} The library is built from that commit.\n\n"
        "Old: `benchmarks/c/src/pf.c` (the model through function pointers, the core's generator and polar "
        "normals, weights normalised and resampled separately, cubic's inner noise integrated over 64 atoms "
        "per particle). New: `benchmarks/c/src/pf_fast.c` (one loop per system with the model inlined, "
        "xoshiro256** inlined, ziggurat normals, systematic resampling fused with propagation and weighing, "
        "one exp per particle for the weights, cubic's inner noise sampled once per particle). Same flags "
        "(firmware/sources.mk, `-ffp-contract=off`), same library.\n\n"
        "## Accuracy and cost per point\n\n"
        "RMSE on the full filtering size's traces (50 × T = 100, trace seed 2026), mean over traces of the "
        "mean over runs (20 runs per trace, cubic 10); new − old with the standard error of the paired "
        "per-trace difference. Time: thread CPU time per step of whole-trace C calls (ctypes crossing "
        "included, as in the filtering tables), median over rounds in rotating order on the first three "
        "traces; ratio = old / new.\n\n"
        + markdown_table(
            ["system", "N", "RMSE old", "RMSE new", "new − old", "old µs/step", "new µs/step", "old/new"], rows_t
        )
        + "\n## Which ux rows dominate the tuned PF\n\n"
        "For each tuned PF point of sv, gss and cubic: the fastest ux configuration in "
        "`benchmarks/results/full/filtering` (its latency column) whose RMSE on the same 50 traces is at most "
        "the tuned PF's; its RMSE gap to the tuned PF (± the paired per-trace standard error); the tables' "
        "latency of the old PF point divided by the measured old/new ratio (the tuned PF's latency on the "
        "tables' scale; PF 200 has no row there) and the verdict those two latencies give; and the measured "
        "ratio ux / tuned PF from the same interleaved rounds, on which the verdict rests (dominated: as "
        "accurate and at most as costly; a ratio within 5 % of 1 is marked a tie). "
        "lg is not in the filtering tables.\n\n"
        + markdown_table(
            [
                "system",
                "tuned PF",
                "RMSE",
                "latency (tables' scale)",
                "fastest ux as accurate",
                "its RMSE",
                "ux − PF",
                "its latency (tables)",
                "on the tables' scale",
                "ux / tuned PF time (measured)",
                "verdict (measured)",
            ],
            rows_d,
        )
        + f"\n{n_dom}/{n_all} tuned PF points dominated.\n"
    )


def arguments(p) -> None:
    p.add_argument("--rev", default="HEAD", help="commit whose libuxbench.so is timed ('': build/native)")
    p.add_argument("--traces", type=int, default=50)
    p.add_argument("--rounds", type=int, default=15)
    p.add_argument("--systems", default=",".join(SYSTEMS))
    p.add_argument("--out", type=Path, default=OUT)


def run(args) -> dict:
    meta = run_meta(sizes={"traces": args.traces, "rounds": args.rounds})
    t0 = time.perf_counter()
    systems = tuple(s for s in args.systems.split(",") if s)
    with tempfile.TemporaryDirectory() as tmp:
        if args.rev:
            lib = pf_native.load(ab_cost.build_base(args.rev, Path(tmp)))
            meta["commit"] = environment.commit(args.rev)
        elif pf_native.available():
            lib = pf_native.load()
        else:
            raise SystemExit("uxbench pf_tuned: build/native/libuxbench.so is not built: run `make bench-lib`")
        records = measure(lib, systems, args.traces, args.rounds)
    meta["seconds"] = time.perf_counter() - t0
    return dict(meta=meta, records=records)


def report(results: dict, args) -> None:
    rev = args.rev or "''"
    command = f".venv/bin/python -m uxbench pf_tuned --rev {rev} --traces {args.traces} --rounds {args.rounds}"
    args.out.write_text(render(results["records"], results["meta"], command))
    print(f"uxbench pf_tuned → {args.out}")
