"""Host time per filter step: the native C core (build/native/libux.so) next to the Python reference.

For each system (SV, GSS, cubic–Beer–Lambert), η = 2…64, both refinement modes and both likelihood
paths, both engines filter the same simulated trace; a step is one predict and one update, and the figure
is the median over repeats of (wall time of steps 1…T−1) / (T − 1). Step 0 (an update of the prior
only) and the filter's construction are outside the timed region. The two engines compute the same
posteriors (tests/native holds them to 1e-9; they agree bit for bit), so this is a like-for-like cost.

The native engine is driven from Python one step at a time (two ctypes calls per step); the call
overhead, measured separately and printed with the table, is included in its figures and matters only
for the smallest configurations.

    .venv/bin/python -m uxbench native_vs_reference            # full table (a few minutes)
    .venv/bin/python -m uxbench native_vs_reference --quick    # η = 2, 4, 8, 16 only, fewer repeats

Writes benchmarks/results/native_vs_reference.md.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import numpy as np

import uxemu as ux
from uxemu import native, systems, traces

from . import environment
from .report import RESULTS

NAMES = {1: "SV", 2: "GSS", 3: "Cubic-BL"}
# A configuration whose single reference run exceeds this is timed once, on fewer steps.
SLOW_RUN_S = 5.0


def time_per_step(prepare, steps: int, repeats: int) -> float:
    """Median over repeats of wall time per step, in ns. `prepare()` builds a fresh filter and runs step 0
    outside the timed region, and returns the function that runs the `steps` remaining steps."""
    samples = []
    for _ in range(repeats):
        run = prepare()
        t0 = time.perf_counter_ns()
        run()
        samples.append((time.perf_counter_ns() - t0) / steps)
        if samples[0] * steps > SLOW_RUN_S * 1e9:
            break  # a run this long is its own median: its noise is far below its duration
    return statistics.median(samples)


def native_runner(nat, sid, tr, eta, mode, lik):
    """The step loop with its ctypes arguments converted up front, so the timed region is the C core
    plus the bare cost of two foreign calls per step."""
    import ctypes as C

    ks = [int(k) for k in tr.k]
    us = [float(u) for u in tr.u]
    zs = [float(z) for z in tr.z]
    predict, update = nat.lib.ux_filter_predict, nat.lib.ux_filter_update

    def prepare():
        f = nat.filter(sid, eta, mode, lik)
        state, z = f._state, (C.c_double * 1)()
        z[0] = zs[0]
        update(state, z, None, 1, 1)

        def run():
            for i in range(1, len(zs)):
                if predict(state, ks[i], us[i]) < 0:
                    raise RuntimeError("predict failed")
                z[0] = zs[i]
                if update(state, z, None, 1, 1) < 0:
                    raise RuntimeError("update failed")

        return run

    return prepare


def reference_runner(model, tr, eta, mode, lik):
    f = ux.BayesLaplaceFilter

    def prepare():
        filt = f(model, eta, mode, lik)
        filt.step(int(tr.k[0]), float(tr.z[0]), float(tr.u[0]), predict=False)
        return lambda: [
            filt.step(int(tr.k[i]), float(tr.z[i]), float(tr.u[i]), predict=True) for i in range(1, len(tr.z))
        ]

    return prepare


def call_overhead_ns(nat) -> float:
    """ns of one ctypes round trip into the library (the native figures include two per step)."""
    f = nat.filter(1, 8, "refined", "kernel")
    mean, state = nat.lib.ux_filter_mean, f._state
    n = 20000
    t0 = time.perf_counter_ns()
    for _ in range(n):
        mean(state)
    return (time.perf_counter_ns() - t0) / n


def bench(args) -> list[dict]:
    nat = native.load()
    rows = []
    for lik in args.likelihoods:
        for name in systems.with_twin():
            model = systems.get(name)
            sid = model.system_id
            tr = traces.simulate(model, args.steps, np.random.default_rng(1000 + sid))
            for eta in args.etas:
                for mode in ("refined", "paper"):
                    steps = len(tr.z) - 1
                    # Reference: estimate one step, then pick steps/repeats to fit the budget.
                    short = traces.Trace(tr.k[:3], tr.u[:3], tr.z[:3])
                    per_step = time_per_step(reference_runner(model, short, eta, mode, lik), 2, 1) / 1e9
                    if per_step * steps > SLOW_RUN_S:
                        ref_ns, ref_note = per_step * 1e9, "1 run of 2 steps"
                    else:
                        ref_ns = time_per_step(reference_runner(model, tr, eta, mode, lik), steps, args.repeats)
                        ref_note = ""
                    nat_ns = time_per_step(native_runner(nat, sid, tr, eta, mode, lik), steps, args.repeats)
                    rows.append(
                        dict(
                            system=NAMES.get(sid, name),
                            eta=eta,
                            mode=mode,
                            lik=lik,
                            native=nat_ns,
                            reference=ref_ns,
                            note=ref_note,
                        )
                    )
                    print(
                        f"{lik:7s} {NAMES.get(sid, name):8s} η={eta:2d} {mode:7s} native {nat_ns / 1e3:10.1f} µs  "
                        f"reference {ref_ns / 1e3:10.1f} µs  ×{ref_ns / nat_ns:6.1f} {ref_note}",
                        flush=True,
                    )
    return rows


def fmt_us(ns: float) -> str:
    return f"{ns / 1e3:,.1f}"


def write_report(rows, args, overhead_ns, env: dict, path: Path) -> None:
    lines = [
        "# Native C core vs Python reference: host time per filter step",
        "",
        f"Generated by `{args.command}` — median of {args.repeats} repeats of a "
        f"{args.steps}-step simulated trace per configuration; a step is predict + update, averaged over "
        "steps 1…T−1 (step 0 only updates the prior and is not timed).",
        "",
        f"- {environment.line(env)} numpy {np.__version__}.",
        "- Native: `build/native/libux.so` (double, `-O2 -ffp-contract=off`), driven from Python with two "
        f"ctypes calls per step; one call costs {overhead_ns:,.0f} ns here and is included in the figures.",
        "- Both engines compute the same posteriors (tests/native: agreement to 1e-9, in practice bit for bit).",
        "- µs per step; speed-up = reference / native.",
        "",
    ]
    for lik in args.likelihoods:
        lines += [
            f"## Likelihood: {lik}",
            "",
            "| system | η | mode | native µs/step | reference µs/step | speed-up |",
            "|---|---:|---|---:|---:|---:|",
        ]
        for r in rows:
            if r["lik"] != lik:
                continue
            note = f" ({r['note']})" if r["note"] else ""
            lines.append(
                f"| {r['system']} | {r['eta']} | {r['mode']} | {fmt_us(r['native'])} | "
                f"{fmt_us(r['reference'])}{note} | {r['reference'] / r['native']:.1f}× |"
            )
        lines.append("")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines))
    print(f"wrote {path}")


def arguments(p) -> None:
    p.add_argument("--quick", action="store_true", help="η = 2, 4, 8 and 16 only, 3 repeats")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--likelihood", choices=["kernel", "sampler", "both"], default="both")
    p.add_argument("--out", type=Path, default=RESULTS / "native_vs_reference.md")


def run(args) -> dict:
    args.etas = (2, 4, 8, 16) if args.quick else (2, 4, 8, 16, 32, 64)
    if args.quick:
        args.repeats = min(args.repeats, 3)
    args.likelihoods = ("kernel", "sampler") if args.likelihood == "both" else (args.likelihood,)
    if not native.available():
        raise SystemExit(f"native library {native.library_path()} is missing: run `make native` first")
    env, t0 = environment.block({"steps": args.steps, "repeats": args.repeats}), time.time()
    overhead = call_overhead_ns(native.load())
    rows = bench(args)
    env["seconds"] = time.time() - t0
    return dict(env=env, overhead_ns=overhead, rows=rows)


def report(results: dict, args) -> None:
    write_report(results["rows"], args, results["overhead_ns"], results["env"], args.out)
