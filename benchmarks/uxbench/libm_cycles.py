"""What the core's own elementary functions cost in firmware: virtual cycles per step, own libm against the platform's.

Builds each emulated board twice from the same commit: as shipped (exp, expm1, log, log1p, sin and cos
from ux/uxm.h) and with -DUX_PLATFORM_LIBM (newlib-nano's). Streams the same traces through both
images (uxbench.firmware_costs.run_board: every system, η, mode and likelihood) and reports, per
configuration, own ÷ platform of the mean predict + update cycles per step. QEMU counts instructions
(-icount), so a configuration's count is exact and does not depend on the machine's load; the two
builds differ only in the functions called, so the ratio is the price of "same bits on every target".

    .venv/bin/python -m uxbench libm_cycles                       # every QEMU board, η = 2 … 16 (~15 minutes)
    .venv/bin/python -m uxbench libm_cycles --boards mps2-an500 --etas 2,4 --steps 4 --out /tmp/libm.md

Writes benchmarks/results/libm_cycles.md and libm_cycles.json.gz beside it.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import asdict
from pathlib import Path

from uxhost import qemu

from . import environment, firmware_costs
from .report import RESULTS, write_study

OUT = RESULTS / "libm_cycles.md"
SCRATCH = environment.REPO / "build" / "libm-cycles"
BUILDS = (None, "platform-libm")  # firmware_costs.VARIANTS: the shipped build, then the platform's libm
BOUND = 1.05  # issue 39: cycles per step may change by at most 5 %
WORST_SHOWN = 5  # configurations listed per board, the dearest first


def arguments(ap) -> None:
    ap.add_argument("--boards", default=",".join(qemu.boards()), help="comma-separated QEMU boards (default: all)")
    ap.add_argument("--etas", default="2,4,8,16", help="the η measured (those each board's RAM holds)")
    ap.add_argument("--steps", type=int, default=20, help="trace length T (default 20)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--scratch", type=Path, default=SCRATCH, help=f"build directory (default {SCRATCH})")
    ap.add_argument("--out", type=Path, default=OUT, help="markdown file; the .json.gz goes beside it")


def key(cost) -> tuple:
    return (cost.system, cost.eta, cost.mode, cost.likelihood)


def step_cycles(cost) -> float:
    """What a step costs on average: a configuration whose steps take one of two paths (a quadrature
    posterior or not) has a median that jumps between them as a few steps change path."""
    return cost.step_mean


def run(args) -> dict:
    started = time.monotonic()
    etas = sorted(int(e) for e in args.etas.split(","))
    if args.steps < 2:
        raise SystemExit("uxbench libm_cycles: a trace needs at least 2 steps (step 0 has no predict)")
    boards = args.boards.split(",")
    unknown = [b for b in boards if b not in qemu.boards()]
    if unknown:
        raise SystemExit(
            f"uxbench libm_cycles: not a QEMU board: {', '.join(unknown)} (QEMU boards: {', '.join(qemu.boards())})"
        )
    env = environment.block({"steps": args.steps, "seed": args.seed, "etas": etas})
    rows = []
    for board in boards:
        board_etas = firmware_costs.board_etas(board, etas)
        costs = {}
        for variant in BUILDS:
            _, image = firmware_costs.build(board, max(board_etas), args.scratch, variant)
            firmware_costs.log(f"built {board} ({variant or 'own libm'})", started)
            measured, _ = firmware_costs.run_board(board, image, board_etas, args.steps, args.steps, args.seed, started)
            costs[variant] = {key(c): c for c in measured}
        own, platform = costs[BUILDS[0]], costs[BUILDS[1]]
        for k in own:
            rows.append(
                dict(
                    board=board,
                    system=k[0],
                    eta=k[1],
                    mode=k[2],
                    likelihood=k[3],
                    own=step_cycles(own[k]),
                    platform=step_cycles(platform[k]),
                    ratio=step_cycles(own[k]) / step_cycles(platform[k]),
                    own_costs=asdict(own[k]),
                    platform_costs=asdict(platform[k]),
                )
            )
    record = dict(meta={**env, "command": args.command, "wall_s": time.monotonic() - started}, rows=rows)
    return dict(markdown=markdown(record), record=record)


def board_summary(rows: list[dict]) -> list[str]:
    lines = [
        "| board | configurations | median | min | max | within 5 % | Σ own ÷ Σ platform |",
        "|---|---|---|---|---|---|---|",
    ]
    for board in dict.fromkeys(r["board"] for r in rows):
        mine = [r for r in rows if r["board"] == board]
        ratios = [r["ratio"] for r in mine]
        within = sum(abs(x - 1) <= BOUND - 1 for x in ratios)
        total = sum(r["own"] for r in mine) / sum(r["platform"] for r in mine)
        lines.append(
            f"| {board} | {len(mine)} | {statistics.median(ratios):.3f} | {min(ratios):.3f} | {max(ratios):.3f} "
            f"| {within}/{len(mine)} | {total:.3f} |"
        )
    return lines


def worst(rows: list[dict]) -> list[str]:
    lines = ["| board | system | η | mode | likelihood | own | platform | ratio |", "|---|---|---|---|---|---|---|---|"]
    for board in dict.fromkeys(r["board"] for r in rows):
        mine = sorted((r for r in rows if r["board"] == board), key=lambda r: -r["ratio"])[:WORST_SHOWN]
        lines += [
            f"| {r['board']} | {r['system']} | {r['eta']} | {r['mode']} | {r['likelihood']} | {r['own']:,.0f} "
            f"| {r['platform']:,.0f} | {r['ratio']:.3f} |"
            for r in mine
        ]
    return lines


def markdown(record: dict) -> str:
    meta, rows = record["meta"], record["rows"]
    size = meta["sizes"]
    return "\n".join(
        [
            "# Firmware cycles per step: the core's own libm against the platform's",
            "",
            f"`python -m uxbench libm_cycles` at commit {meta['commit']}: {size['steps']} steps per trace "
            f"(seed {size['seed']}), η = {', '.join(map(str, size['etas']))} (as far as each board's RAM holds), "
            f"{meta['wall_s'] / 60:.0f} min. Each board built twice from that commit, as shipped and with "
            "`-DUX_PLATFORM_LIBM` (newlib-nano's exp, expm1, log, log1p, sin, cos), the same traces streamed "
            "through both (`uxbench.firmware_costs.run_board`: every system, η, mode, likelihood). A "
            "configuration's figure is its predict + update in QEMU virtual cycles (exact instruction counts), "
            "the mean over steps 1…T−1; ratio = own ÷ platform. Where the two builds' bits differ a step "
            "can take another path (a quadrature posterior or not), so a few ratios far from 1 are the "
            "path's, not the functions' cost.",
            "",
            "## Per board",
            "",
            *board_summary(rows),
            "",
            f"## The {WORST_SHOWN} dearest configurations per board",
            "",
            *worst(rows),
            "",
        ]
    )


report = write_study  # the markdown at --out, the record beside it
