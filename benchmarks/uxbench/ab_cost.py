"""The filter's cost against an earlier commit's: the same traces through both cores, interleaved.

    .venv/bin/python -m uxbench.ab_cost --base REV [--mode refined] [--steps 300] [--rounds 7] [--platform-libm]
        → benchmarks/results/ab_cost.md

The earlier core is built from `git archive REV firmware benchmarks/c` into a temporary folder (its own
sources and flags, this machine's compiler); both libuxbench.so run each whole trace in one C call
(`pf_native.BenchLib.run_ux`), in alternating order round after round, and each configuration reports the
median thread CPU time per step of each. With --platform-libm the work tree's core is also built with
-DUX_PLATFORM_LIBM (ux/uxm.h: the platform's exp and log, as an earlier core without its own libm called)
and timed in the same rotation: what the head costs beside the base apart from its deterministic libm.
Timing only: no verdict depends on it.
"""

from __future__ import annotations

import argparse
import ctypes
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import uxemu as ux
from uxemu import native

from . import environment, pf_native, report

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "benchmarks" / "results" / "ab_cost.md"
SYSTEMS = ("sv", "gss", "cubic", "lg")
ETAS = (4, 8, 16, 32, 64)


def build_base(rev: str, folder: Path) -> Path:
    """libuxbench.so of commit `rev`'s core and C baselines, built in `folder`."""
    archive = subprocess.run(
        ["git", "archive", rev, "firmware", "benchmarks/c"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    build = folder / "build"
    subprocess.run(
        ["make", "-s", "-C", str(folder / "benchmarks" / "c"), f"BUILD={build}"], check=True, capture_output=True
    )
    return build / "libuxbench.so"


def build_platform_libm(folder: Path) -> Path:
    """libuxbench.so of the work tree's core and C baselines with -DUX_PLATFORM_LIBM, built in `folder`."""
    cc = f"{os.environ.get('CC', 'cc')} -DUX_PLATFORM_LIBM"
    subprocess.run(
        ["make", "-s", "-C", str(ROOT / "benchmarks" / "c"), f"BUILD={folder}", f"CC={cc}"],
        check=True,
        capture_output=True,
    )
    return folder / "libuxbench.so"


class _OlderLibrary(ctypes.CDLL):
    """An earlier core lacks functions added since; the binding declares them all, the runs call none of them."""

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return ctypes.CFUNCTYPE(ctypes.c_int)(lambda *args: -1)


# Structs the whole-trace runner never passes: an earlier core's layout of them does not matter here.
UNUSED_STRUCTS = ("ux_observation", "ux_model_noises", "ux_joint")


def load_base(path: Path):
    cdll, mismatches = native.C.CDLL, native.layout_mismatches
    native.C.CDLL = _OlderLibrary
    native.layout_mismatches = lambda lib, mirrors: [
        p for p in mismatches(lib, mirrors) if not any(s in p for s in UNUSED_STRUCTS)
    ]
    try:
        return pf_native.load(path)
    finally:
        native.C.CDLL, native.layout_mismatches = cdll, mismatches


def cost_rows(
    base, head, mode: str, steps: int, rounds: int, progress=print, systems=SYSTEMS, etas=ETAS, platform=None
) -> list[list]:
    """(system, η, base µs/step, head µs/step, ratio[, platform-libm head µs/step, its ratio]) with the median over
    `rounds` runs, the libraries' order rotated each round."""
    libs = {"base": base, "head": head, **({} if platform is None else {"platform": platform})}
    rows = []
    for name in systems:
        model = ux.systems.get(name)
        tr = ux.simulate(model, steps, np.random.default_rng(1))
        for eta in etas:
            times = {label: [] for label in libs}
            for r in range(rounds):
                order = list(libs)[r % len(libs) :] + list(libs)[: r % len(libs)]
                for label in order:
                    run = libs[label].run_ux(model.system_id, tr.k, tr.u, tr.z, eta, mode, atoms=False)
                    times[label].append(run.cpu_ns)
            us = {label: float(np.median(t)) / steps / 1e3 for label, t in times.items()}
            b, h = us["base"], us["head"]
            rows.append([name, eta, f"{b:.2f}", f"{h:.2f}", f"{h / b:.2f}"])
            said = f"{name} η={eta}: {b:.2f} → {h:.2f} µs/step (×{h / b:.2f})"
            if platform is not None:
                rows[-1] += [f"{us['platform']:.2f}", f"{us['platform'] / b:.2f}"]
                said += f", platform libm {us['platform']:.2f} (×{us['platform'] / b:.2f})"
            progress(said)
    return rows


def head_name(commit: str | None) -> str:
    """The commit the head core was built from, marked when the core's files have changes on top of it."""
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=no", "--", "firmware", "benchmarks/c"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    ).stdout.strip()
    return f"{commit or 'the work tree'}{' + changes' if dirty and commit else ''}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="uxbench.ab_cost", description=__doc__.splitlines()[0])
    p.add_argument("--base", required=True, help="the earlier commit (any git revision)")
    p.add_argument("--mode", default="refined", choices=("refined", "paper", "mixture"))
    p.add_argument("--steps", type=int, default=300)
    p.add_argument("--rounds", type=int, default=7)
    p.add_argument("--out", type=Path, default=OUT)
    p.add_argument(
        "--platform-libm", action="store_true", help="also time the work tree's core built with the platform's libm"
    )
    args = p.parse_args(argv)
    if not native.available():
        raise SystemExit("uxbench.ab_cost: build/native is not built: run `make native bench-lib`")
    meta = report.run_meta()
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        base = load_base(build_base(args.base, Path(tmp)))
        platform = None
        if args.platform_libm:
            (Path(tmp) / "platform").mkdir()
            platform = pf_native.load(build_platform_libm(Path(tmp) / "platform"))
        rows = cost_rows(base, pf_native.load(), args.mode, args.steps, args.rounds, platform=platform)
    head = head_name(meta.get("commit"))
    header = ["system", "η", f"{args.base} µs/step", f"{head} µs/step", "ratio"]
    header += ["platform libm µs/step", "ratio"] if args.platform_libm else []
    flag = " --platform-libm" if args.platform_libm else ""
    libm = (
        "; the last two columns: the same head core built with `-DUX_PLATFORM_LIBM` (the platform's exp and log, "
        f"as {args.base} called), timed in the same rotation"
        if args.platform_libm
        else ""
    )
    text = (
        f"# Cost of the {args.mode} filter: {args.base} against {head}\n\n"
        f"`.venv/bin/python -m uxbench.ab_cost --base {args.base} --mode {args.mode} --steps {args.steps} "
        f"--rounds {args.rounds}{flag}`: one simulated trace per system (table defaults), {args.rounds} rounds in "
        f"rotating order, median thread CPU time per step of each core in one C call per trace "
        f"(libuxbench.so){libm}. {environment.line({**meta, 'seconds': time.perf_counter() - t0})}\n\n"
        + report.markdown_table(header, rows)
        + "\n"
    )
    args.out.write_text(text)
    print(f"uxbench.ab_cost → {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
