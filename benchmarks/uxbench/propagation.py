"""Model propagation: the paper's six model benchmarks against iso-quality and iso-time Monte Carlo.

For every configuration of the paper's spaces (`propagation_models`), one task:

1. the exact law of the output (`propagation_exact`: numerical convolution by Gauss quadrature, exact
   to < 10⁻⁶ of every W1 here), instead of a Monte Carlo ground truth;
2. for η = 2, 4, 8, 16, 32 (the paper's 8, 16, 32 and two cheaper sizes it has no rows for), the ux
   propagation in the native C core — each input law quantized at η atoms, the registry's C model
   function lifted over them (`uxb_prop_ux`) — its native time (median of repeated calls of a
   back-to-back loop) and its W1 to the exact law, of the atoms themselves and of their TTR-binned
   reconstruction (`Value.bins`);
3. plain Monte Carlo on the same C function in the same process (`uxb_prop_mc`: xoshiro256**, ziggurat
   normals): its time per draw, and for each of `seeds` independent streams the W1 of its first n draws
   for n on a geometric grid (`per_doubling` counts per doubling), up to the first n whose W1 reaches
   the smallest ux W1 of the configuration (or `cap`);
4. iso-quality: for each target (η × atoms / reconstructed), each stream's smallest grid count whose W1
   is at or below the target — the previous grid count is above it —, averaged over the streams; its
   time is that count times the time per draw; speedup = that time / the ux time;
5. iso-time: n = ⌊ux time / time per draw⌋ draws, W1 averaged over the streams; % W1 change =
   100·(W1_ux − W1_MC)/W1_MC;
6. for the exponential observation, the only three-input model, the same for its chained alternative
   (`uxb_prop_ux_chained`: exp(−x)(1 + m) lifted from two inputs and reduced to η, then + h lifted:
   2η² points instead of η³), its iso-quality count searched on the same streams;
7. the paper's protocol for reference: a 10⁶-draw Monte Carlo sample as ground truth, its own W1 to the
   exact law, and the reconstruction's W1 measured against it (the definition of
   `uxbench.metrics.w1_reconstructed`, computed in C through `binned_table`).
"""

from __future__ import annotations

import math
import time

import numpy as np

from . import mc_native, propagation_models
from .propagation_exact import binned_table, w1_reconstructed

ETAS = (2, 4, 8, 16, 32)  # the paper's 8, 16, 32 and two cheaper sizes it has no rows for
BASE_SEED = 20261105
GROUND_TRUTH_STREAM = 1 << 20  # stream index of the 10⁶-draw sample (never one of the seeds)
CHAINED_MODELS = ("bl_observation",)  # the models uxb_prop_ux_chained has a chain of two-input lifts for

SIZES = {
    # a few configurations per model: the first, the last and two between (minutes)
    "quick": {
        "name": "quick",
        "picks": 4,
        "seeds": 20,
        "per_doubling": 8,
        "cap": 1 << 21,
        "repeats": 31,
        "ground_truth": 10**6,
    },
    # the paper's 273 configurations
    "full": {
        "name": "full",
        "picks": None,
        "seeds": 20,
        "per_doubling": 8,
        "cap": 1 << 22,
        "repeats": 31,
        "ground_truth": 10**6,
    },
}


def tasks(size: dict) -> list:
    out = []
    for key, model in propagation_models.MODELS.items():
        configs = model.configs
        if size["picks"]:
            idx = np.unique(np.linspace(0, len(configs) - 1, size["picks"]).round().astype(int))
            configs = [configs[i] for i in idx]
        out += [dict(size, model=key, index=c.index) for c in configs]
    return out


def counts_grid(per_doubling: int, cap: int) -> np.ndarray:
    """1, 2, 3, … then ⌈2^(k/per_doubling)⌉: the sample counts the iso-quality search tries."""
    k = np.arange(0, int(math.log2(cap) * per_doubling) + 1)
    return np.unique(np.ceil(2.0 ** (k / per_doubling)).astype(np.int64))


def iso_count(w1_curve, counts, target: float):
    """(count, censored): the first count whose W1 ≤ target, or the last count tried when none is."""
    hit = np.flatnonzero(np.asarray(w1_curve) <= target)
    if hit.size:
        return int(counts[hit[0]]), False
    return int(counts[len(w1_curve) - 1]), True


def stream_seed(model: str, index: int, stream: int) -> int:
    m = list(propagation_models.MODELS).index(model)
    return int(np.random.SeedSequence([BASE_SEED, m, index, stream]).generate_state(1, np.uint64)[0])


def run_task(task: dict) -> dict:
    from uxemu.value import Value

    model = propagation_models.MODELS[task["model"]]
    cfg = model.configs[task["index"]]
    prob = cfg.problem
    chained = cfg.model in CHAINED_MODELS
    mc = mc_native.load()
    start, t0 = time.time(), time.perf_counter()
    table = model.exact(prob)
    t_exact = time.perf_counter() - t0

    gt_seed = stream_seed(cfg.model, cfg.index, GROUND_TRUTH_STREAM)
    gt = np.sort(mc.mc(prob, gt_seed, task["ground_truth"]))
    rec = {
        "model": cfg.model,
        "index": cfg.index,
        "label": cfg.label,
        "exact_mean": table.mean,
        "mc_sd": float(gt.std()),
        "gt_w1_exact": mc.w1_steps(gt, table),
        "exact_s": t_exact,
    }

    targets = {}
    for eta in ETAS:
        x, w = mc.ux(prob, eta)
        v = Value(x, w, eta)
        edges, heights = v.bins()
        r = {
            "atoms": int(x.size),
            "w1_atoms": mc.w1_steps(x, table, w),
            "w1_rec": w1_reconstructed(edges, heights, table),
            "w1_rec_vs_gt": mc.w1_steps(gt, binned_table(edges, heights)),
        }
        rec[f"eta{eta}"] = r
        targets[(eta, "atoms")], targets[(eta, "rec")] = r["w1_atoms"], r["w1_rec"]
        if chained:
            xc, wc = mc.ux(prob, eta, chained=True)
            r["chained"] = {
                "atoms": int(xc.size),
                "w1_atoms": mc.w1_steps(xc, table, wc),
                "w1_rec": w1_reconstructed(*Value(xc, wc, eta).bins(), table),
            }
            targets[(eta, "chained")] = r["chained"]["w1_rec"]
    times = mc.timings(prob, ETAS, repeats=task["repeats"], chained_etas=ETAS if chained else ())
    rec["mc_ns"] = times["mc"]
    for eta in ETAS:
        rec[f"eta{eta}"]["ux_ns"] = times[eta]
        if chained:
            rec[f"eta{eta}"]["chained"]["ux_ns"] = times[f"chained{eta}"]

    counts = counts_grid(task["per_doubling"], task["cap"])
    stop = min(targets.values())
    iso = {k: [] for k in targets}
    att = {eta: max(1, int(rec[f"eta{eta}"]["ux_ns"] // rec["mc_ns"])) for eta in ETAS}
    att_counts = np.unique(list(att.values()))
    att_w1 = {eta: [] for eta in ETAS}
    for s in range(task["seeds"]):
        seed = stream_seed(cfg.model, cfg.index, s)
        curve = mc.w1_curve(prob, seed, table, counts, stop)
        for k, target in targets.items():
            iso[k].append(iso_count(curve, counts, target))
        at = mc.w1_curve(prob, seed, table, att_counts)
        for eta in ETAS:
            att_w1[eta].append(float(at[np.searchsorted(att_counts, att[eta])]))
    for (eta, kind), found in iso.items():
        r = rec[f"eta{eta}"]
        if kind == "chained":  # the chained propagation's own record, its reconstructed W1
            r, kind = r["chained"], "rec"
        n = np.array([c for c, _ in found], dtype=float)
        r[f"iso_{kind}_count"] = float(n.mean())
        r[f"iso_{kind}_censored"] = int(sum(cen for _, cen in found))
        r[f"iso_{kind}_mc_ns"] = float(n.mean() * rec["mc_ns"])
        r[f"iso_{kind}_speedup"] = r[f"iso_{kind}_mc_ns"] / r["ux_ns"]
    for eta in ETAS:
        r = rec[f"eta{eta}"]
        r["att_count"] = att[eta]
        r["att_mc_w1"] = float(np.mean(att_w1[eta]))
        for kind in ("atoms", "rec"):
            r[f"att_{kind}_change"] = 100.0 * (r[f"w1_{kind}"] - r["att_mc_w1"]) / r["att_mc_w1"]
    rec["seconds"] = time.perf_counter() - t0
    rec["start"], rec["end"] = start, time.time()
    return rec


def report(results: list, size: dict, out_dir, meta: dict | None = None) -> None:
    from .propagation_report import write

    write(results, size, out_dir, meta)
