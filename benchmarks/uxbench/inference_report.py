"""Tables, Pareto plots and the reading of the inference benchmark (one section per system)."""
from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np

from . import paper_inference
from .report import fmt, machine, markdown_table, write_raw

TITLES = {"sv": "Stochastic volatility", "gss": "Gordon–Salmond–Smith",
          "cubic": "Exponential (Beer–Lambert) observation of the cubic system"}


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
            row = dict(method=method, form=form, fidelity=fid, instances=len(rs),
                       latency_us=float(np.median(lat)) * 1e6 if lat else math.nan, timed=len(lat))
            w1 = np.array([r["w1_atoms"] for r in rs])
            if method == "ux":
                q = [r["quantize_s"] for r in rs if r.get("quantize_s") is not None]
                row["quantize_us"] = float(np.median(q)) * 1e6 if q else math.nan
                rec = np.array([r["w1_reconstructed"] for r in rs])
                row.update(w1=float(w1.mean()), w1_std=float(w1.std(ddof=1)) if w1.size > 1 else 0.0,
                           w1_rec=float(rec.mean()), w1_rec_std=float(rec.std(ddof=1)) if rec.size > 1 else 0.0,
                           fallbacks=sum(r["status"] != 0 for r in rs), seed_std=0.0)
            else:
                # Mean over instances and seeds; std over all (instance, seed) runs, pooled from the
                # per-instance first and second moments.
                sq = np.array([r["w1_sq"] for r in rs])
                mean = float(w1.mean())
                row.update(w1=mean, w1_std=float(math.sqrt(max(sq.mean() - mean * mean, 0.0))),
                           w1_rec=math.nan, w1_rec_std=math.nan,
                           seed_std=float(np.mean([r["w1_seed_std"] for r in rs])),
                           ess=float(np.mean([r["ess"] for r in rs])), fallbacks=sum(r["fallbacks"] for r in rs),
                           seeds=rs[0]["seeds"])
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
    cols = ["method", "latency µs", "of which prior quantization µs", "mean W1 (atoms / particles)", "W1 std", "mean W1 (reconstructed)",
            "W1 std (reconstructed)", "W1 std over seeds", "paper: latency µs", "paper: mean W1", "paper: W1 std"]
    body = []
    for r in rows:
        pr = _paper(system, r)
        body.append([label(r), r["latency_us"], r.get("quantize_us", "—"), r["w1"], r["w1_std"],
                     "—" if r["method"] == "is" else r["w1_rec"], "—" if r["method"] == "is" else r["w1_rec_std"],
                     r["seed_std"], *(pr if pr else ("—", "—", "—"))])
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


def _cheapest_is_reaching(rows, target):
    ok = [r for r in rows if r["method"] == "is" and r["w1"] <= target]
    return min(ok, key=lambda r: r["latency_us"]) if ok else None


def reading(system: str, rows: list[dict]) -> str:
    """One paragraph, generated from the numbers: where ux is ahead or behind, dominance, the paper."""
    parts = []
    ux = [r for r in rows if r["method"] == "ux" and r["form"] == "kernel"]
    for r in sorted(ux, key=lambda r: r["fidelity"]):
        for metric, name in (("w1_rec", "reconstructed"), ("w1", "atoms")):
            m = _cheapest_is_reaching(rows, r[metric])
            if m is None:
                parts.append(f"ux η={r['fidelity']} ({name} W1 {fmt(r[metric], 3)}, {fmt(r['latency_us'], 3)} µs) "
                             "is more accurate than every tested IS size")
            else:
                ratio = m["latency_us"] / r["latency_us"]
                parts.append(f"ux η={r['fidelity']} ({name} W1 {fmt(r[metric], 3)}) is matched by IS {m['fidelity']} "
                             f"at {fmt(ratio, 3)}× its latency")
    text = "; ".join(parts) + "."
    for metric, name in (("w1_rec", "reconstructed"), ("w1", "atoms")):
        front, free = pareto(rows, metric)
        if not free:
            text += (f" With ux measured by its {name} W1, the kernel-form ux points dominate every IS point "
                     f"(front: {', '.join(front)}).")
        else:
            text += (f" With ux measured by its {name} W1, ux does not dominate IS: {', '.join(free)} "
                     f"{'is' if len(free) == 1 else 'are'} dominated by no ux point (front: {', '.join(front)}).")
    k8 = next((r for r in ux if r["fidelity"] == 8), None)
    is10 = next((r for r in rows if r["method"] == "is" and r["fidelity"] == 10), None)
    if k8 and is10 and not math.isnan(k8.get("quantize_us", math.nan)):
        bare = k8["latency_us"] - k8["quantize_us"]
        text += (f" Of ux η=8's {fmt(k8['latency_us'], 3)} µs, {fmt(k8['quantize_us'], 3)} µs quantize the prior law; a "
                 f"filter, whose prior arrives as atoms, pays about {fmt(bare, 3)} µs, "
                 f"{'less' if bare < is10['latency_us'] else 'more'} than IS 10 ({fmt(is10['latency_us'], 3)} µs).")
    samp = {r["fidelity"]: r for r in rows if r["method"] == "ux" and r["form"] == "sampler"}
    kern = {r["fidelity"]: r for r in ux}
    worse = [e for e in samp if e in kern and samp[e]["w1_rec"] > kern[e]["w1_rec"]]
    text += (f" The sampler likelihood is {'less' if len(worse) > len(samp) / 2 else 'not less'} accurate than the "
             f"kernel form (reconstructed W1 higher at η = {', '.join(map(str, sorted(worse))) or 'none'}) and "
             f"costs {fmt(np.median([samp[e]['latency_us'] / kern[e]['latency_us'] for e in samp if e in kern]), 3)}× "
             "its latency (median over η).")
    ux_vs = [(e, kern[e]["w1_rec"] / paper_inference.row(system, "UxHw", e)[1]) for e in sorted(kern)
             if paper_inference.row(system, "UxHw", e)]
    is_vs = [(r["fidelity"], r["w1"] / paper_inference.row(system, "MC", r["fidelity"])[1]) for r in rows
             if r["method"] == "is" and r["fidelity"] in (10, 1000) and paper_inference.row(system, "MC", r["fidelity"])]
    if ux_vs and is_vs:
        text += (" Our reconstructed W1 at η = " + "/".join(str(e) for e, _ in ux_vs) + " is "
                 + "/".join(fmt(v, 3) for _, v in ux_vs) + "× the paper's UxHw W1, our IS W1 at "
                 + "/".join(str(n) for n, _ in is_vs) + " particles " + "/".join(fmt(v, 3) for _, v in is_vs)
                 + "× its MC W1 (ours against the exact posterior, the paper's against a Monte Carlo one).")
    p8 = paper_inference.row(system, "UxHw", 8)
    p1000 = paper_inference.row(system, "MC", 1000)
    o8, o1000 = kern.get(8), next((r for r in rows if r["method"] == "is" and r["fidelity"] == 1000), None)
    if p8 and p1000 and o8 and o1000:
        text += (f" Against the paper: its UxHw 8 / MC 1000 W1 ratio is {fmt(p8[1] / p1000[1], 3)} and its latency "
                 f"ratio {fmt(p8[0] / p1000[0], 3)}; ours are {fmt(o8['w1_rec'] / o1000['w1'], 3)} (reconstructed) or "
                 f"{fmt(o8['w1'] / o1000['w1'], 3)} (atoms) and {fmt(o8['latency_us'] / o1000['latency_us'], 3)}.")
    return text


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
    return markdown_table(cols, body) + (
        "\nux = BayesLaplace, kernel likelihood, η = 8, 16, 32; a point dominates another when it is no slower "
        "and no less accurate, and better in one. IS is always measured by its weighted particles.\n")


def plot(system: str, rows: list[dict], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    isr = [r for r in rows if r["method"] == "is"]
    ax.plot([r["latency_us"] for r in isr], [r["w1"] for r in isr], "s-", color="tab:blue",
            label="importance sampling (particles)")
    for r in isr:
        ax.annotate(str(r["fidelity"]), (r["latency_us"], r["w1"]), textcoords="offset points", xytext=(4, 4),
                    fontsize=7, color="tab:blue")
    styles = {("kernel", "w1_rec"): ("o-", "tab:green", "ux kernel, reconstructed W1"),
              ("kernel", "w1"): ("o--", "tab:olive", "ux kernel, atoms W1"),
              ("sampler", "w1_rec"): ("^-", "tab:purple", "ux sampler, reconstructed W1"),
              ("sampler", "w1"): ("^--", "plum", "ux sampler, atoms W1")}
    for (form, metric), (st, color, name) in styles.items():
        ux = sorted([r for r in rows if r["method"] == "ux" and r["form"] == form], key=lambda r: r["fidelity"])
        ax.plot([r["latency_us"] for r in ux], [r[metric] for r in ux], st, color=color, label=name,
                mfc="none" if metric == "w1" else color)
        for r in ux:
            ax.annotate(f"η={r['fidelity']}", (r["latency_us"], r[metric]), textcoords="offset points",
                        xytext=(4, -9), fontsize=7, color=color)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("native latency per posterior (µs, median)")
    ax.set_ylabel("mean W1 to the exact posterior")
    ax.set_title(f"{TITLES[system]}: accuracy vs latency", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write(records: list[dict], params: dict, out_dir) -> None:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = summarise(records)
    meta = dict(params=params, machine=machine())
    # The per-instance records go to CSV only: at full size a JSON copy would add ~8 MB of the same
    # numbers; the run's metadata sits in the summary's JSON.
    _write_csv(out_dir / "inference_records.csv", records)
    write_raw(out_dir, "inference_summary", [dict(r, system=s) for s, rows in summary.items() for r in rows], meta)
    lines = ["# Inference benchmark: BayesLaplace against importance sampling", "", DESCRIPTION.format(**_describe(params)),
             f"Machine: {meta['machine']['cpus']} cores, load average {fmt(meta['machine']['load_avg'], 3)} when "
             "the tables were written (the machine is shared). Work: "
             f"{fmt(sum({(r['system'], r['location_index']): r.get('task_s', 0.0) for r in records}.values()), 3)} "
             "s of task wall time in total (summed over tasks, which run in parallel).", ""]
    lines += ["## Does ux dominate importance sampling on the accuracy–latency front?", "", verdicts(summary), ""]
    for system, rows in summary.items():
        n_inst = rows[0]["instances"]
        lines += [f"## {TITLES[system]} (`{system}`): {n_inst} instances", "",
                  f"Paper: {paper_inference.LABELS[system]}.", "", table(system, rows), "",
                  reading(system, rows), "", f"![Pareto plot](pareto_{system}.png)", ""]
        plot(system, rows, out_dir / f"pareto_{system}.png")
    (out_dir / "README.md").write_text("\n".join(lines))


def _write_csv(path: Path, records: list[dict]) -> None:
    keys = sorted({k for r in records for k in r})
    with path.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys)
        w.writeheader()
        w.writerows(records)


def _describe(params):
    return dict(locations=params["locations"], instances=params["locations"] * 10, seeds=params["is_seeds"],
                every="every instance" if params["time_every"] == 1 else f"one in {params['time_every']}", repeats=params["repeats"], points=params["points"],
                seed=params["seed"])


DESCRIPTION = """\
Regenerate: `python -m uxbench --quick|--full --only inference` (needs `make native`). Seed {seed}.

**Instances.** Per system, {locations} prior locations from a generated trace (rounded to one decimal),
5 observations per location drawn at it and kept when p(z | location) > 0.1, each with a Gaussian and
a Laplace prior of the system's scale s_x: {instances} instances per system (construction and the
choices the paper leaves open: `uxbench/inference_instances.py`). The paper states its count, 500, for
GSS only; 50 locations give that count, and the same construction is used for every system.

**Methods.** *ux η*: BayesLaplace in the C core, the prior law quantized at η atoms, posterior at η
atoms; *kernel* = exact kernel likelihood, *sampler* = the model's sampler lifted per hypothesis
(TTR-binned density). *IS n*: importance sampling in C (uxbench/is.h), n draws from the prior law
(xoshiro256**), weights from the same C kernel functions with the inner noise at 64 atoms; {seeds}
seeds per instance.

**Metrics.** W1 to the *exact* posterior (prior density × likelihood on a {points}-point grid over the
range holding all but 1e-12 of the mass; no sampling error), not to a Monte Carlo sample as in the
paper. *atoms / particles*: W1 of the ux atoms or of the weighted particles themselves;
*reconstructed*: W1 of the ux value's TTR-binned density (the paper's UxHw figures are only reachable
by a reconstruction). Mean and std over instances (IS: over all instance × seed runs; "std over seeds"
is the mean per-instance std across seeds, 0 for ux). *Latency*: native C on this host, as the calling
thread's CPU time (other work on a shared machine does not inflate it), one posterior including the
prior's quantization (ux; its share is shown) or sampling (IS); median over the timed instances ({every})
of the median of {repeats} repeats, each a C loop long enough to hide the call overhead. Between the
instances of a system a method's latency varies by about ±5 % (p10–p90 in the raw records), so timing
a subset loses little. The paper's latencies come from its hardware module: compare ratios, not
absolute values.
"""
