"""`make fuzz`: builds the libFuzzer harnesses (Debian's clang, with AddressSanitizer and UBSan), seeds
them (fuzz/seeds.py), runs each for a bounded number of executions and writes the figures — executions,
coverage, findings — to benchmarks/results/fuzz.md. A finding is copied to tests/fuzz/findings/<harness>/,
where `make test` replays it (tests/fuzz/test_fuzz_replay.py) until it is fixed and kept as a test.

    .venv/bin/python fuzz/run.py [--runs N] [--harness frames|core]
"""
from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import seeds  # noqa: E402

FIRMWARE = ROOT / "firmware"
BUILD = ROOT / "build" / "fuzz"
FINDINGS = ROOT / "tests" / "fuzz" / "findings"
CORE = sorted(str(p) for d in ("ux", "models") for p in (FIRMWARE / "src" / d).glob("*.c"))
APP = sorted(str(p) for p in (FIRMWARE / "app").glob("*.c") if p.name != "main.c")
SOURCES = {"frames": APP + CORE + [str(HERE / "frames_fuzz.c")], "core": CORE + [str(HERE / "core_fuzz.c")]}
INCLUDES = [f"-I{FIRMWARE / 'include'}", f"-I{FIRMWARE / 'src' / 'ux'}", f"-I{FIRMWARE / 'app'}"]
FLAGS = ["-std=c11", "-g", "-O1", "-ffp-contract=off", "-fno-omit-frame-pointer", '-DAPP_FW_VERSION="fuzz"']


def clang() -> str:
    for name in ("clang-14", "clang"):
        if shutil.which(name):
            return name
    raise SystemExit("fuzz: no clang; `make fuzz` installs it (Debian: clang-14 libclang-rt-14-dev)")


def build(harness: str, cc: str, libfuzzer: bool = True) -> Path:
    """The harness linked with libFuzzer (clang), or with fuzz/driver.c (any compiler) for replaying."""
    BUILD.mkdir(parents=True, exist_ok=True)
    exe = BUILD / (harness if libfuzzer else f"{harness}_replay")
    sanitize = "-fsanitize=fuzzer,address,undefined" if libfuzzer else "-fsanitize=address,undefined"
    extra = [] if libfuzzer else [str(HERE / "driver.c")]
    cmd = [cc, *FLAGS, sanitize, "-fno-sanitize-recover=undefined", *INCLUDES, "-o", str(exe),
           *SOURCES[harness], *extra, "-lm"]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"fuzz: building {harness} failed:\n{' '.join(cmd)}\n{proc.stderr}")
    return exe


def run(harness: str, exe: Path, runs: int, max_len: int, max_seconds: int) -> dict:
    corpus = BUILD / "corpus" / harness
    seeds.write(harness, corpus)
    artifacts = BUILD / "artifacts" / harness
    shutil.rmtree(artifacts, ignore_errors=True)
    artifacts.mkdir(parents=True)
    t0 = time.time()
    proc = subprocess.run([str(exe), str(corpus), f"-runs={runs}", f"-max_len={max_len}", "-print_final_stats=1",
                           f"-artifact_prefix={artifacts}/", "-timeout=30", "-rss_limit_mb=4096",
                           f"-max_total_time={max_seconds}"],
                          capture_output=True, text=True, env={**os.environ, "ASAN_OPTIONS": "detect_leaks=0"})
    seconds = time.time() - t0
    log = proc.stderr
    stat = dict(re.findall(r"stat::(\w+):\s+(\d+)", log))
    done = re.findall(r"#(\d+)\s+DONE\s+cov: (\d+) ft: (\d+) corp: (\d+)", log)
    found = sorted(artifacts.glob("*"))
    if found:
        keep = FINDINGS / harness
        keep.mkdir(parents=True, exist_ok=True)
        for f in found:
            shutil.copy(f, keep / f.name)
    return dict(harness=harness, executions=int(stat.get("number_of_executed_units", 0)),
                coverage=int(done[-1][1]) if done else None, features=int(done[-1][2]) if done else None,
                corpus=int(done[-1][3]) if done else None, findings=[f.name for f in found], seconds=seconds,
                exit=proc.returncode, tail=log.strip().splitlines()[-3:])


def report(results: list[dict], runs: int, cc: str) -> str:
    version = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip()
    lines = ["# Fuzz campaign (`make fuzz`)", "",
             f"libFuzzer ({version}) with AddressSanitizer and UBSan, {runs:,} executions asked per harness (or a time "
             f"bound), "
             f"seeded with fuzz/seeds.py; {platform.machine()}, {os.cpu_count()} CPUs, commit {commit}. "
             "Findings are kept under tests/fuzz/findings/ and replayed by `make test`.", "",
             "| harness | what it feeds | executions | coverage (edges) | features | corpus | findings | time |",
             "|---|---|---|---|---|---|---|---|"]
    what = {"frames": "any byte stream into the firmware's frame decoder and dispatch (answers must be valid frames)",
            "core": "laws, filter configurations and steps with raw doubles into the core's entry points"}
    for r in results:
        lines.append(f"| {r['harness']} | {what[r['harness']]} | {r['executions']:,} | {r['coverage']} | "
                     f"{r['features']} | {r['corpus']} | {len(r['findings'])} {' '.join(r['findings'])} | "
                     f"{r['seconds']:.0f} s |")
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description="bounded libFuzzer campaign over the link and the core")
    ap.add_argument("--runs", type=int, default=1_000_000, help="executions per harness (default: %(default)s)")
    ap.add_argument("--harness", choices=sorted(SOURCES), action="append", help="only these (default: all)")
    ap.add_argument("--max-seconds", type=int, default=1200, help="time bound per harness (default: %(default)s)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "fuzz.md")
    args = ap.parse_args()
    cc = clang()
    results = []
    for harness in args.harness or sorted(SOURCES):
        exe = build(harness, cc)
        print(f"fuzz: {harness}: {args.runs:,} executions …", flush=True)
        r = run(harness, exe, args.runs, 4096 if harness == "frames" else 512, args.max_seconds)
        print(f"fuzz: {harness}: {r['executions']:,} executions, coverage {r['coverage']}, "
              f"{len(r['findings'])} finding(s), {r['seconds']:.0f} s", flush=True)
        results.append(r)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(report(results, args.runs, cc))
    print(f"fuzz: wrote {args.out}")
    return 1 if any(r["findings"] for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
