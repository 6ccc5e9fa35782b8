"""`make fuzz`: builds the libFuzzer harnesses (Debian's clang, with AddressSanitizer and UBSan), seeds
them (fuzz/seeds.py), runs each for a bounded number of executions and writes the figures — executions,
coverage, findings — to benchmarks/results/fuzz.md. A finding (the input libFuzzer stopped on) is written to
the scratch folder build/fuzz/findings/<harness>/ only: the campaign never writes to tests/fuzz/findings/, the
set `make test` replays (tests/fuzz/test_fuzz_replay.py). A human reads the finding, and once the fault is
in the code under test (not in the harness's oracle) fixes it and moves the input there by hand, where it
stays as a regression test.

A last stage, `qemu`, sends mutated golden frames to the firmware itself in QEMU (fuzz/mutated_frames.py:
every answer must be a valid frame, the device must never stop answering, and a stream on the same device
must then validate); its figures are the results file's last section, which each stage keeps when the
other rewrites its own.

    .venv/bin/python fuzz/run.py [--runs N] [--harness frames|core|qemu] [--qemu-frames N]
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
FINDINGS = ROOT / "tests" / "fuzz" / "findings"  # the replayed set: moved here by a human, never by the campaign
SCRATCH = BUILD / "findings"  # where a campaign writes its findings
CORE = sorted(str(p) for d in ("ux", "models") for p in (FIRMWARE / "src" / d).glob("*.c"))
APP = sorted(str(p) for p in (FIRMWARE / "app").glob("*.c") if p.name != "main.c")
SOURCES = {
    "frames": APP + CORE + [str(HERE / "frames_fuzz.c")],
    "core": CORE + [str(HERE / "core_fuzz.c")],
    "cells": CORE + [str(HERE / "cells_fuzz.c")],
}
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
    cmd = [
        cc,
        *FLAGS,
        sanitize,
        "-fno-sanitize-recover=undefined",
        *INCLUDES,
        "-o",
        str(exe),
        *SOURCES[harness],
        *extra,
        "-lm",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"fuzz: building {harness} failed:\n{' '.join(cmd)}\n{proc.stderr}")
    return exe


def run(harness: str, exe: Path, runs: int, max_len: int, max_seconds: int, seed: int = 1) -> dict:
    corpus = BUILD / "corpus" / harness
    seeds.write(harness, corpus)
    artifacts = BUILD / "artifacts" / harness
    shutil.rmtree(artifacts, ignore_errors=True)
    artifacts.mkdir(parents=True)
    t0 = time.time()
    proc = subprocess.run(
        [
            str(exe),
            str(corpus),
            f"-runs={runs}",
            f"-max_len={max_len}",
            "-print_final_stats=1",
            f"-artifact_prefix={artifacts}/",
            "-timeout=30",
            "-rss_limit_mb=4096",
            f"-max_total_time={max_seconds}",
            f"-seed={seed}",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "ASAN_OPTIONS": "detect_leaks=0"},
    )
    seconds = time.time() - t0
    log = proc.stderr
    stat = dict(re.findall(r"stat::(\w+):\s+(\d+)", log))
    done = re.findall(r"#(\d+)\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)", log)  # the last status line
    found = sorted(artifacts.glob("*"))
    keep = SCRATCH / harness
    shutil.rmtree(keep, ignore_errors=True)
    if found:
        keep.mkdir(parents=True)
        for f in found:
            shutil.copy(f, keep / f.name)
        (keep / "log.txt").write_text(log)
    why = [line for line in log.splitlines() if line.startswith(f"{harness}_fuzz: ") or "SUMMARY:" in line]
    return dict(
        harness=harness,
        executions=int(stat.get("number_of_executed_units", 0)),
        seed=seed,
        why=why[0] if why else "",
        exec_per_sec=int(stat.get("average_exec_per_sec", 0)),
        coverage=int(done[-1][1]) if done else None,
        features=int(done[-1][2]) if done else None,
        corpus=int(done[-1][3]) if done else None,
        findings=[f.name for f in found],
        seconds=seconds,
        exit=proc.returncode,
        tail=log.strip().splitlines()[-3:],
    )


TABLE_HEAD = (
    "| harness | what it feeds | executions | exec/s | coverage (edges) | features | corpus | findings | "
    "time | libFuzzer seed | commit |"
)


def report(results: list[dict], runs: int, cc: str, old: str = "") -> str:
    """The libFuzzer part of the results file: a row per harness run now, and the rows of `old` (the file's
    previous text) for the harnesses not run now."""
    version = subprocess.run([cc, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    lines = [
        "# Fuzz campaign (`make fuzz`)",
        "",
        f"libFuzzer ({version}) with AddressSanitizer and UBSan, {runs:,} executions asked per harness (or a time "
        f"bound), seeded with fuzz/seeds.py, one harness at a time; {platform.machine()}, {os.cpu_count()} CPUs. "
        "The oracles' statuses, message types and error codes are docs/protocol.toml's (fuzz/oracle.h). "
        "A harness stops at its first finding; findings are written to build/fuzz/findings/ only, and a human "
        "moves one into tests/fuzz/findings/, the set `make test` replays, once the fault is understood.",
        "",
        TABLE_HEAD,
        "|" + "---|" * TABLE_HEAD.count(" | ") + "---|",
    ]
    what = {
        "frames": "any byte stream into the firmware's frame decoder and dispatch (answers must be valid frames)",
        "core": "laws, filter configurations and steps with raw doubles into the core's entry points",
        "cells": "cell-filter configurations (joint systems) and predicts and updates with raw doubles",
    }
    rows, notes = {}, {}
    for line in old.splitlines():  # rows (and notes) of harnesses not run now, if the table has today's columns
        cells = line.split(" | ")
        if line.startswith("| ") and len(cells) == TABLE_HEAD.count(" | ") + 1 and cells[0][2:] in what:
            rows[cells[0][2:]] = line
        elif line.startswith("- ") and line[2:].partition(":")[0] in what:
            notes[line[2:].partition(":")[0]] = line
    for r in results:
        notes.pop(r["harness"], None)
    for r in results:
        short = " (time bound)" if r["executions"] < runs and not r["findings"] else ""
        found = f"{len(r['findings'])}" + (f" ({', '.join(r['findings'])}; see below)" if r["findings"] else "")
        rows[r["harness"]] = (
            f"| {r['harness']} | {what[r['harness']]} | {r['executions']:,}{short} | "
            f"{r['exec_per_sec']:,} | {r['coverage']} | {r['features']} | {r['corpus']} | {found} | "
            f"{r['seconds']:.0f} s | {r['seed']} | {commit} |"
        )
        if r["findings"]:
            notes[r["harness"]] = (
                f"- {r['harness']}: stopped at {r['executions']:,} executions on "
                f"{', '.join(r['findings'])}: `{r['why']}`"
            )
    lines += [rows[h] for h in sorted(rows)]
    if notes:
        lines += ["", "Findings (each harness's input and libFuzzer's log in build/fuzz/findings/<harness>/):", ""]
        lines += [notes[h] for h in sorted(notes)]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------------------------------
# The qemu stage: mutated golden frames into the firmware in QEMU

QEMU_SECTION = "<!-- qemu stage: fuzz/run.py --harness qemu rewrites from here to the end -->"


def run_qemu(board: str, frames: int, seed: int, stream_steps: int) -> dict:
    """`frames` mutated frames into `board`'s firmware in QEMU, then a stream on the same device,
    validated. Builds the image first (incrementally), as the QEMU tests do."""
    import tempfile

    import mutated_frames
    from uxhost import link, qemu

    build = subprocess.run(
        ["make", "-s", "-C", str(FIRMWARE), "arm", f"BOARD={board}", f"BUILD={qemu.image_path(board).parent}"],
        capture_output=True,
        text=True,
    )
    if build.returncode != 0:
        raise SystemExit(f"fuzz: building the firmware for {board} failed:\n{build.stdout}\n{build.stderr}")
    t0 = time.time()
    result = dict(board=board, frames=frames, seed=seed, failure=None, validated=None)
    with qemu.boot(board) as instance, link.Device.open(instance.url, timeout=10) as device:
        try:
            tally = mutated_frames.run(device, frames, seed)
        except mutated_frames.OracleFailure as exc:
            result.update(failure=str(exc), seconds=time.time() - t0)
            return result
        with tempfile.TemporaryDirectory() as tmp:
            cmp = mutated_frames.stream_validates(device, Path(tmp) / "stream.jsonl", stream_steps)
        result.update(
            tally=tally,
            stream_steps=stream_steps,
            validated=cmp.ok,
            largest=cmp.largest,
            alive=instance.alive(),
            seconds=time.time() - t0,
        )
    return result


def report_qemu(r: dict) -> str:
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT
    ).stdout.strip()
    lines = [
        QEMU_SECTION,
        "",
        "## Mutated frames into the firmware in QEMU (`--harness qemu`)",
        "",
        f"The golden frames' requests mutated (fuzz/mutated_frames.py, seed {r['seed']}) and sent one at a time "
        f"to the firmware on {r['board']} in QEMU, each after a RESET (and a STEP after its case's CONFIGURE); "
        f"every answer must be one valid frame of the protocol with the seq the request earned; then a stream "
        f"on the same device must validate. Commit {commit}.",
        "",
    ]
    if r["failure"]:
        return "\n".join(lines + [f"**FAILED**: {r['failure']}"]) + "\n"
    t = r["tally"]
    answers = ", ".join(f"{name} {n:,}" for name, n in sorted(t.answers.items(), key=lambda kv: -kv[1]))
    lines += [
        "| measure | value |",
        "|---|---|",
        f"| mutated frames | {t.mutated_frames:,} ({', '.join(f'{k} {n:,}' for k, n in t.mutated.items())}) |",
        f"| of them with a valid CRC (answered by the message decoder) | {t.reached_decoder:,} |",
        f"| frames sent in all (with the RESETs and CONFIGUREs before them) | {t.frames_sent:,} |",
        f"| answers, every one a valid frame with the expected seq | {answers} |",
        "| answers missing or invalid | 0 |",
        f"| then a stream of {r['stream_steps']} steps (GSS) on the same device | "
        f"{'validates' if r['validated'] else 'DOES NOT validate'} (largest relative difference "
        f"{r['largest']:.1e}) |",
        f"| QEMU still running at the end | {'yes' if r['alive'] else 'no'} |",
        f"| time | {r['seconds']:.0f} s |",
    ]
    return "\n".join(lines) + "\n"


def write_part(path: Path, text: str, qemu_stage: bool) -> None:
    """Rewrites the libFuzzer part (everything before QEMU_SECTION) or the qemu stage's section of the
    results file, keeping the other part."""
    old = path.read_text() if path.exists() else ""
    head, marker, tail = old.partition(QEMU_SECTION)
    head, tail = head.rstrip("\n"), (marker + tail).strip("\n")
    parts = [head, text.strip("\n")] if qemu_stage else [text.strip("\n"), tail]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n\n".join(part for part in parts if part) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(
        description="bounded libFuzzer campaign over the link and the core, and mutated "
        "frames into the firmware in QEMU",
        epilog=f"Findings go to {SCRATCH.relative_to(ROOT)}/<harness>/ (with libFuzzer's "
        f"log), never to {FINDINGS.relative_to(ROOT)}/: a human moves one there, "
        "where `make test` replays it, once the fault is understood.",
    )
    ap.add_argument("--runs", type=int, default=1_000_000, help="executions per harness (default: %(default)s)")
    ap.add_argument(
        "--harness",
        choices=sorted(SOURCES) + ["qemu"],
        action="append",
        help="only these (default: all; qemu: mutated golden frames into the firmware in QEMU)",
    )
    ap.add_argument("--max-seconds", type=int, default=3600, help="time bound per harness (default: %(default)s)")
    ap.add_argument(
        "--qemu-frames", type=int, default=10_000, help="mutated frames of the qemu stage " "(default: %(default)s)"
    )
    ap.add_argument("--qemu-board", default="mps2-an500", help="board of the qemu stage (default: %(default)s)")
    ap.add_argument(
        "--seed",
        type=int,
        default=1,
        help="libFuzzer's seed (-seed), and the qemu stage's mutations' " "(default: %(default)s)",
    )
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "fuzz.md")
    args = ap.parse_args()
    stages = args.harness or sorted(SOURCES) + ["qemu"]
    failed = False
    harnesses = [h for h in stages if h in SOURCES]
    if harnesses:
        cc = clang()
        results = []
        for harness in harnesses:
            exe = build(harness, cc)
            print(f"fuzz: {harness}: {args.runs:,} executions …", flush=True)
            r = run(harness, exe, args.runs, 4096 if harness == "frames" else 512, args.max_seconds, args.seed)
            print(
                f"fuzz: {harness}: {r['executions']:,} executions ({r['exec_per_sec']:,}/s), coverage "
                f"{r['coverage']}, {len(r['findings'])} finding(s), {r['seconds']:.0f} s",
                flush=True,
            )
            if r["findings"]:
                print(
                    f"fuzz: {harness}: finding(s) in {(SCRATCH / harness).relative_to(ROOT)}/ (log.txt says why); "
                    f"once understood, move one into {(FINDINGS / harness).relative_to(ROOT)}/ by hand to have "
                    "`make test` replay it",
                    flush=True,
                )
            results.append(r)
        old = args.out.read_text().partition(QEMU_SECTION)[0] if args.out.exists() else ""
        write_part(args.out, report(results, args.runs, cc, old), qemu_stage=False)
        failed = any(r["findings"] for r in results)
    if "qemu" in stages:
        print(f"fuzz: qemu: {args.qemu_frames:,} mutated frames into {args.qemu_board} …", flush=True)
        r = run_qemu(args.qemu_board, args.qemu_frames, args.seed, stream_steps=100)
        print(
            f"fuzz: qemu: {r['failure'] or 'every answer valid'}; stream "
            f"{'validates' if r['validated'] else 'not validated'}; {r['seconds']:.0f} s",
            flush=True,
        )
        write_part(args.out, report_qemu(r), qemu_stage=True)
        failed = failed or bool(r["failure"]) or not r["validated"] or not r.get("alive")
    print(f"fuzz: wrote {args.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
