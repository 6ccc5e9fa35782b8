"""What the firmware costs on each QEMU board: flash and RAM per largest η, virtual cycles per step.

1. Builds the firmware for every QEMU board under boards/ at BOARD_MAX_ETA = 8, 16, 32, 64, as far as the
   board's own BOARD_MAX_ETA (what its RAM holds), into a scratch build directory and records flash and
   RAM as `make arm` prints them.
2. Boots each board's largest image in QEMU (`uxhost.qemu`, -icount shift=6) and streams one fixed
   simulated trace per system (T steps, fixed seed) at every η = 2, 4, …, 64 the image holds, in both
   modes, with the kernel and the sampler likelihood; records the virtual cycles (icount) of predict and
   of update at every step. The statistics are over steps 1…T−1, the steps that run predict and update
   (step 0 only updates the prior). The instructions of a step do not depend on the image's largest η
   (only the size of a static array does), so one image per board serves every η it holds; the firmware
   takes any power-of-two η up to its largest at CONFIG time.

4. Joint (vector-state) systems (`--joint-only` runs this part alone and replaces its section of --out):
   mps2-an500 built at BOARD_MAX_ETA = 32 with joint support and without it (-DAPP_JOINT=0), their flash,
   RAM and stack side by side; then one simulated trace per joint system streamed through the image with
   joint support at η = 8, 16, 32 in each mode (refined, paper, cells), its virtual cycles per step as in 2.

3. Measures each emulated board's stack high-water mark on its largest image (uxbench.stack_highwater)
   beside the static worst case the build reserves (firmware/tools/stack_bound.py, printed by `make arm`).

η = 2 and 4 are measured, not built: no image is made for a largest η below 8 (`--build-etas` can ask
for one), since such a build differs from the η = 8 one only by a smaller static workspace, and what a
configuration uses of it is in the cycle tables' "workspace" column.

The slowest configuration, the cubic system's sampler likelihood at η = 64 in refined mode, takes ~50 s
of QEMU time per step; it runs a shorter trace (`--slow-steps`), marked in the tables.

    .venv/bin/python -m uxbench firmware_costs                  # everything (~25 minutes; `make bench-firmware`)
    .venv/bin/python -m uxbench firmware_costs --etas 2,4,8 --steps 6 --out /tmp/fw.md   # a quick look
    .venv/bin/python -m uxbench firmware_costs --sizes-only     # flash, RAM and stack only (~5 minutes)

Writes benchmarks/results/firmware.md, and firmware.json.gz and firmware.csv beside it. --sizes-only leaves
the cycle tables (and the CSV) as the last full run wrote them and replaces the rest.
"""

from __future__ import annotations

import csv
import os
import re
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from uxemu import joint_systems, systems, traces
from uxemu.joint_filter import VECTOR_MODES
from uxhost import joint, link, qemu
from uxhost.streaming import send_configure
from uxhost import protocol as p

from . import environment
from .report import RESULTS, read_json_gz, write_json_gz

ROOT = environment.REPO
OUT = RESULTS / "firmware.md"
# Why paper-mode predict rows vary (the retired latency study measured and fitted it).
LATENCY_NOTE = (
    "The predict rows of paper mode vary with the data: a paper-mode update drops the atoms "
    "whose weight underflows, and the next predict's work is linear in the atoms left (GSS: "
    "predict cycles = a + b·n within 1.8 %, n the posterior's atom count; its worst step is the "
    "full posterior's, n = η). benchmarks/results/firmware_latency.md has the fit and the bound "
    "a + b·η a real-time loop can budget."
)
SCRATCH = ROOT / "build" / "firmware-costs"
SYSTEMS = {systems.spec(name).id: name for name in systems.with_twin()}  # id → name, every system with a twin
MODES = {p.Mode.REFINED: "refined", p.Mode.PAPER: "paper"}
LIKELIHOODS = {p.Likelihood.KERNEL: "kernel", p.Likelihood.SAMPLER: "sampler"}
# Configurations too slow under QEMU for a whole trace (~50 s per step): (system, η, likelihood, mode).
SLOW = {(systems.spec("cubic").id, 64, p.Likelihood.SAMPLER, p.Mode.REFINED)}
SMALLEST_BUILD = 8  # images are built for a largest η of at least this; smaller η run on them
_SIZE_LINE = re.compile(
    r"^(\S+): flash (\d+) bytes, RAM (\d+) bytes \(stack reservation (\d+) B, worst case "
    r"(\d+) B, deepest path: (.*)\)$",
    re.MULTILINE,
)
HIGHWATER_ETAS = [8, 32]  # the η of the high-water workload (every system, mode and likelihood)
FLASH_HEADING, STACK_HEADING, CYCLES_HEADING = (
    "## Flash and RAM per largest η",
    "## Stack",
    "## Virtual cycles per step",
)
JOINT_HEADING = "## Joint systems"
JOINT_BOARD, JOINT_BUILD_ETA, JOINT_ETAS = "mps2-an500", 32, [8, 16, 32]
# Builds other than the shipped one: without joint systems; with the platform's libm (ux/uxm.h, uxbench.libm_cycles).
VARIANTS = {"nojoint": "-DAPP_JOINT=0", "platform-libm": "-DUX_PLATFORM_LIBM"}


@dataclass
class Build:
    board: str
    max_eta: int
    flash: int
    ram: int
    stack: int  # the reservation
    stack_bound: int  # the static worst case it is sized from
    stack_path: str  # the deepest path


@dataclass
class StackMark:
    board: str
    max_eta: int  # the image's largest η
    etas: list[int]  # the workload's η
    high_water: int  # bytes of stack used at most, measured
    reserved: int
    stack_bound: int


@dataclass
class Costs:
    board: str
    system: str
    eta: int
    mode: str
    likelihood: str
    steps: int  # steps measured (1…T−1)
    workspace_bytes: int
    predict_median: float
    predict_max: int
    update_median: float
    update_max: int
    update_step0: int  # the first update, on the prior alone
    fallbacks: int
    step_mean: float = float("nan")  # predict + update, mean over steps 1…T−1 (records before it: NaN)


def log(message: str, started: float) -> None:
    print(f"[{time.monotonic() - started:6.1f} s] {message}", file=sys.stderr, flush=True)


def build(board: str, max_eta: int, scratch: Path, variant: str | None = None) -> tuple[Build, Path]:
    """Builds `board` for η ≤ `max_eta` and returns its sizes and the image's path; `variant` (a key of
    VARIANTS) adds its defines to the board's own, in a build directory of its own."""
    out = scratch / f"{board}-eta{max_eta}{'-' + variant if variant else ''}"
    defs = [f"BOARD_DEFS={qemu.board_var(board, 'BOARD_DEFS') or ''} {VARIANTS[variant]}"] if variant else []
    proc = subprocess.run(
        [
            "make",
            "-s",
            "-j2",
            "-C",
            str(ROOT / "firmware"),
            "arm",
            f"BOARD={board}",
            f"BUILD={out}",
            f"BOARD_MAX_ETA={max_eta}",
            *defs,
        ],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        sys.exit(f"firmware build for {board} (η ≤ {max_eta}) failed:\n{proc.stdout}{proc.stderr}")
    match = _SIZE_LINE.search(proc.stdout)
    if match is None or match.group(1) != board:
        sys.exit(f"no size line in the output of `make arm` for {board}:\n{proc.stdout}")
    flash, ram, stack, bound = (int(match.group(i)) for i in (2, 3, 4, 5))
    return Build(board, max_eta, flash, ram, stack, bound, match.group(6)), out / "firmware.elf"


def stack_mark(board: str, image: Path, max_eta: int, bound: int) -> StackMark:
    """The stack's high-water mark of `image` on `board` after every system, mode and likelihood."""
    from . import stack_highwater  # it imports this module: imported here, when both are loaded

    etas = [eta for eta in HIGHWATER_ETAS if eta <= max_eta] or [max_eta]
    used, reserved = stack_highwater.high_water(board, etas, image)
    return StackMark(board, max_eta, etas, used, reserved, bound)


def measure(
    device: link.Device, board: str, system: int, eta: int, mode: int, likelihood: int, trace, steps: int
) -> Costs:
    """Streams the first `steps` steps of `trace` through one configuration and summarises its cycle
    counts."""
    model = systems.get(int(system))
    configured = device.configure(
        system, eta, mode, likelihood, model.params, [(p.PriorKind.GAUSSIAN, model.prior.mu, model.prior.sigma)]
    )
    posts = [device.step(int(trace.k[i]), i > 0, float(trace.u[i]), float(trace.z[i])) for i in range(steps)]
    return Costs(
        board,
        SYSTEMS[system],
        eta,
        MODES[mode],
        LIKELIHOODS[likelihood],
        len(posts) - 1,
        configured.workspace_bytes,
        *cycle_summary(posts),
    )


def cycle_summary(posts) -> tuple:
    """(predict median, predict max, update median, update max, step 0's update, fallbacks, mean of predict +
    update) of a run's POSTERIOR answers; step 0 only updates, so its counts stay out of the medians, maxima
    and mean."""
    predict = [s.cycles_predict for s in posts[1:]]
    update = [s.cycles_update for s in posts[1:]]
    return (
        statistics.median(predict),
        max(predict),
        statistics.median(update),
        max(update),
        posts[0].cycles_update,
        sum(s.fallback for s in posts),
        statistics.fmean(p + u for p, u in zip(predict, update)),
    )


def board_etas(board: str, etas: list[int]) -> list[int]:
    """The η of `etas` that `board`'s RAM holds (BOARD_MAX_ETA of its board.mk)."""
    largest = int(qemu.board_var(board, "BOARD_MAX_ETA") or 64)
    return [eta for eta in etas if eta <= largest]


def default_builds(etas: list[int]) -> list[int]:
    """The largest η to build images for when --build-etas is not given: those of `etas` from
    SMALLEST_BUILD up, or SMALLEST_BUILD alone (the smaller η run on the images built)."""
    return [eta for eta in etas if eta >= SMALLEST_BUILD] or [SMALLEST_BUILD]


def run_board(
    board: str, image: Path, etas: list[int], steps: int, slow_steps: int, seed: int, started: float
) -> tuple[list[Costs], str]:
    """Every configuration on one booted board; returns the costs and the firmware's version string."""
    out = []
    # One trace per system: the same observations at every η, mode and likelihood.
    traces_of = {s: traces.simulate(systems.get(int(s)), steps, np.random.default_rng([seed, int(s)])) for s in SYSTEMS}
    with qemu.boot(board, image) as instance, link.Device.open(instance.url, timeout=600) as device:
        # A HELLO that reaches the board before its UART listens is lost: ask again after seconds, not
        # after the 600 s a slow step may need.
        info = device.hello(timeout=link.BOOT_HELLO_TIMEOUT)
        if info.cycle_source != p.CycleSource.SYSTICK_ICOUNT:
            sys.exit(f"{board} counts {p.CycleSource(info.cycle_source).name}, not virtual cycles")
        for system in SYSTEMS:
            for eta in etas:
                for likelihood in LIKELIHOODS:
                    for mode in MODES:
                        n = slow_steps if (system, eta, likelihood, mode) in SLOW else steps
                        t0 = time.monotonic()
                        device.reset()
                        costs = measure(device, board, system, eta, mode, likelihood, traces_of[system], n)
                        out.append(costs)
                        log(
                            f"{board} {costs.system} η={eta} {costs.mode} {costs.likelihood}: predict "
                            f"{human(costs.predict_median)}, update {human(costs.update_median)} "
                            f"({time.monotonic() - t0:.1f} s)",
                            started,
                        )
        instance.check()
    return out, info.fw_version


def rated_hz(board: str) -> int:
    """The board's rated core clock, which its clock set-up reaches on the part (BOARD_CORE_HZ of board.mk)."""
    return int(qemu.board_var(board, "BOARD_CORE_HZ"))


def rated_us(instructions: float, board: str) -> str:
    """µs per step at the board's rated clock, counting one cycle an instruction."""
    us = instructions / rated_hz(board) * 1e6
    return f"{us:,.0f}" if us >= 100 else f"{us:.3g}"


def rated_note(boards: list[str]) -> str:
    clocks = ", ".join(f"{b} {rated_hz(b) / 1e6:g} MHz" for b in boards)
    return (
        "\"µs at the rated clock\" is instruction-count based: the instructions per step divided by the "
        f"board's rated core clock (BOARD_CORE_HZ of its board.mk: {clocks}), as if every instruction "
        "took one cycle: not a measurement of a part, whose time differs both ways (the M7 issues up to two "
        "instructions a cycle; divides, FPU latencies, flash wait states and cache misses cost more). The "
        "Nucleo boards run these instructions too: nucleo-f767zi "
        "mps2-an500's at 216 MHz, nucleo-f446re netduinoplus2's at 180 MHz (its cycles need the board: "
        "docs/hardware.md)."
    )


def human(cycles: float) -> str:
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if cycles >= scale:
            return f"{cycles / scale:.3g}{suffix}"
    return f"{cycles:.0f}"


def tool_version(command: list[str]) -> str:
    try:
        return subprocess.run(command, capture_output=True, text=True).stdout.splitlines()[0].strip()
    except (OSError, IndexError):
        return "unknown"


def sizes_markdown(builds: list[Build], marks: list[StackMark]) -> list[str]:
    """The flash and RAM table and the stack table."""
    lines = [
        FLASH_HEADING,
        "",
        "As `make -C firmware arm BOARD=… BOARD_MAX_ETA=η` prints them: flash = `.vectors` + `.text` + "
        "`.ARM.exidx` + `.data`; RAM = `.data` + `.bss` + `.noinit` + the stack reservation (the workspace for η is in "
        "`.bss`). The stack reservation is the image's static worst case (firmware/tools/stack_bound.py) "
        "rounded up to 8 B.",
        "",
        "| board | largest η | flash (bytes) | RAM (bytes) | of which stack | static worst case |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for b in builds:
        lines.append(f"| {b.board} | {b.max_eta} | {b.flash:,} | {b.ram:,} | {b.stack:,} | {b.stack_bound:,} |")
    lines += [
        "",
        STACK_HEADING,
        "",
        "The static worst case, from GCC's `-fstack-usage` frames along the call graph of the linked machine "
        "code plus the nested exceptions (the configurable ones, HardFault and NMI, each with its exception "
        "frame: 108 B with an FPU, 36 B without), is what `make arm` reserves; the build fails if an image "
        "would reserve less. It does not depend on the largest η: the stack's arrays are sized by the core's "
        "UX_MAX_ETA, not the board's. The high-water mark is measured in QEMU on the board's largest image "
        "(`python -m uxbench stack_highwater`: the lowest non-zero word of the zero-initialised stack after every "
        "system, mode and likelihood at the η listed).",
        "",
        "| board | largest η | reservation | static worst case | measured high-water mark (η) | measured / static |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for m in marks:
        lines.append(
            f"| {m.board} | {m.max_eta} | {m.reserved:,} | {m.stack_bound:,} | {m.high_water:,} "
            f"({', '.join(map(str, m.etas))}) | {m.high_water / m.stack_bound:.3f} |"
        )
    lines += ["", "Deepest path (the same at every largest η of a board):", ""]
    for board in dict.fromkeys(b.board for b in builds):
        path = {b.stack_path for b in builds if b.board == board}
        lines.append(f"- {board}: {' / '.join(sorted(path))}")
    return lines + [""]


def generated(meta: dict) -> str:
    """The results' opening line: the command and the environment block (a record from before the block
    names the load and the commit only)."""
    firmware = ", ".join(meta["fw_versions"])
    if "environment" in meta:
        return (
            f"Generated by `{meta['command']}` in {meta['wall_s']:.0f} s. {environment.line(meta['environment'])} "
            f"Firmware {firmware}."
        )
    return (
        f"Generated by `{meta['command']}` in {meta['wall_s']:.0f} s (load average {meta['load']} at the "
        f"start); commit {meta['commit']}, firmware {firmware}."
    )


def markdown(builds: list[Build], marks: list[StackMark], costs: list[Costs], meta: dict) -> str:
    shift = meta["icount_shift"]
    boards = [b for b in dict.fromkeys(b.board for b in builds) if b in qemu.boards()]
    real = [b for b in dict.fromkeys(b.board for b in builds) if b not in qemu.boards()]
    clocks = ", ".join(f"{b} {qemu.cpu_hz(b) / 1e6:g} MHz (× {2**shift * qemu.cpu_hz(b) / 1e9:g})" for b in boards)
    lines = [
        "# Firmware costs per board",
        "",
        generated(meta),
        "",
        f"- Compiler: {meta['gcc']}, `-O2` (firmware/arm.mk). QEMU: {meta['qemu']}.",
        f"- QEMU command for {meta['qemu_command'].split(' -M ')[1].split()[0]} (`-M` names each board's "
        f"machine; the port is a free one chosen per run): `{meta['qemu_command']}`.",
        f"- Virtual cycles (icount): `-icount shift={shift}` gives every instruction 2^{shift} ns of "
        f"virtual time and SysTick counts at the CPU clock of each machine (QEMU_CPU_HZ in its board.mk), "
        f"so virtual cycles = instructions × 2^{shift} ns × clock (`uxhost.qemu.instructions_of`): "
        f"{clocks}. They count instructions executed, exactly and reproducibly, not the timing of a real "
        "Cortex-M0, M4F or M7 (no pipeline, memory wait states or FPU latencies); compare boards by "
        "instructions.",
        *(
            [
                f"- {', '.join(real)}: real boards QEMU does not emulate — flash, RAM and the static stack only; "
                "their cycles (DWT CYCCNT) need the hardware (docs/hardware.md)."
            ]
            if real
            else []
        ),
        "",
        *sizes_markdown(builds, marks),
        CYCLES_HEADING,
        "",
        f"One simulated trace per system, T = {meta['steps']} steps (seed {meta['seed']}, the same "
        f"observations at every η, mode and likelihood), streamed to the board's largest "
        "image (the last row of the board in the table above; a smaller η, 2 and 4 included, is chosen at "
        "CONFIG time and runs the same instructions on it as on its own build); median and "
        f"maximum over steps 1…T−1, each of which runs predict then update. Rows marked † ran "
        f"T = {meta['slow_steps']} (too slow under QEMU for a whole trace). \"workspace\" is the bytes "
        "the configuration uses (CONFIGURED.workspace_bytes). k = 10³, M = 10⁶, G = 10⁹ virtual cycles.",
        "",
        rated_note(boards),
        "",
        LATENCY_NOTE,
    ]
    for board in dict.fromkeys(c.board for c in costs):
        for likelihood in LIKELIHOODS.values():
            rows = [c for c in costs if c.board == board and c.likelihood == likelihood]
            if not rows:
                continue
            lines += [
                "",
                f"### {board}, {likelihood} likelihood",
                "",
                "| system | η | mode | predict median | predict max | update median | update max | "
                "instructions per step (from the medians) | µs at the rated clock | workspace |",
                "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
            ]
            for c in rows:
                mark = " †" if c.steps != meta["steps"] - 1 else ""
                instr = qemu.instructions_of(c.predict_median + c.update_median, shift, c.board)
                lines.append(
                    f"| {c.system} | {c.eta}{mark} | {c.mode} | {human(c.predict_median)} | "
                    f"{human(c.predict_max)} | {human(c.update_median)} | {human(c.update_max)} | "
                    f"{human(instr)} | {rated_us(instr, c.board)} | {c.workspace_bytes:,} |"
                )
    fell = [f"{c.board} {c.system} η={c.eta} {c.mode} {c.likelihood}: {c.fallbacks}" for c in costs if c.fallbacks]
    lines += [
        "",
        "Steps whose posterior fell back to the prior (every likelihood zero), included in the "
        f"statistics: {'; '.join(fell) if fell else 'none'}.",
        "",
    ]
    return "\n".join(lines)


@dataclass
class JointCosts:
    board: str
    system: str
    eta: int
    mode: str
    steps: int
    workspace_bytes: int
    predict_median: float
    predict_max: int
    update_median: float
    update_max: int
    update_step0: int
    fallbacks: int
    step_mean: float = float("nan")


# The joint filters: the atom filter's modes, and the cell filter (ux/joint_cells.h).
JOINT_MODES = VECTOR_MODES


def run_joint(board: str, image: Path, etas: list[int], steps: int, seed: int, started: float) -> list[JointCosts]:
    """Every joint system at every η of `etas` in each of JOINT_MODES on one booted board."""
    out = []
    with qemu.boot(board, image) as instance, link.Device.open(instance.url, timeout=600) as device:
        info = device.hello(timeout=link.BOOT_HELLO_TIMEOUT)
        if info.cycle_source != p.CycleSource.SYSTICK_ICOUNT:
            sys.exit(f"{board} counts {p.CycleSource(info.cycle_source).name}, not virtual cycles")
        for name in joint_systems.names():
            spec = joint_systems.spec(name)
            trace = joint.simulate(spec, spec.defaults, steps, seed)
            for eta in (e for e in etas if joint.posterior_fits(spec.dim, e)):  # else no answer fits a frame
                for mode in JOINT_MODES:
                    cfg = joint.resolve(spec, eta=eta, mode=mode)
                    device.reset()
                    configured = send_configure(device, cfg)  # a joint system's: the kernel likelihood
                    posts = [
                        device.step(int(trace.k[i]), i > 0, 0.0, trace.observation(i), dim_obs=cfg.dim_obs)
                        for i in range(steps)
                    ]
                    c = JointCosts(board, name, eta, mode, steps - 1, configured.workspace_bytes, *cycle_summary(posts))
                    out.append(c)
                    log(
                        f"{board} {name} η={eta} {mode}: predict {human(c.predict_median)}, update "
                        f"{human(c.update_median)}",
                        started,
                    )
        instance.check()
    return out


def joint_markdown(builds: list[Build], costs: list[JointCosts], meta: dict) -> list[str]:
    """The joint systems' section: the image with and without them, and their cycles per step."""
    shift = meta["icount_shift"]
    with_joint, without = builds
    lines = [
        JOINT_HEADING,
        "",
        f"Generated by `{meta['command']}`; commit {meta['commit']}. {JOINT_BOARD} built at BOARD_MAX_ETA = "
        f"{JOINT_BUILD_ETA} with joint systems (the workspace sized for the table's largest state dimension: "
        "APP_JOINT_MAX_DIM of firmware/app/session.h) and without them (-DAPP_JOINT=0). The scalar and the "
        "joint filter never run at once: they share the filter slots and the workspace, so joint support costs "
        "flash and stack, and static RAM only where a joint filter or its workspace is larger than a scalar "
        f"one: {(with_joint.ram - with_joint.stack) - (without.ram - without.stack):,} B here.",
        "",
        "| image | flash (bytes) | RAM (bytes) | of which stack | static worst case | deepest path |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for label, b in (("with joint systems", with_joint), ("without (-DAPP_JOINT=0)", without)):
        lines.append(f"| {label} | {b.flash:,} | {b.ram:,} | {b.stack:,} | {b.stack_bound:,} | {b.stack_path} |")
    lines += [
        "",
        f"Cycles: one simulated trace per joint system, T = {meta['joint_steps']} steps (seed {meta['seed']}, "
        f"the same observations at every η and mode; cells: the cell filter), streamed to the image with joint systems; median and "
        "maximum over steps 1…T−1 (predict then update), virtual cycles as above (-icount shift="
        f"{shift}). An η whose POSTERIOR would exceed MAX_PAYLOAD is refused and not measured (d = 2: η = 64; "
        "d = 4: η ≥ 32). \"workspace\" "
        "is CONFIGURED.workspace_bytes; \"µs at the rated clock\" as above.",
        "",
        "| system | η | mode | predict median | predict max | update median | update max | "
        "instructions per step (from the medians) | µs at the rated clock | workspace |",
        "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for c in costs:
        instr = qemu.instructions_of(c.predict_median + c.update_median, shift, c.board)
        lines.append(
            f"| {c.system} | {c.eta} | {c.mode} | {human(c.predict_median)} | {human(c.predict_max)} | "
            f"{human(c.update_median)} | {human(c.update_max)} | {human(instr)} | "
            f"{rated_us(instr, c.board)} | {c.workspace_bytes:,} |"
        )
    fell = [f"{c.system} η={c.eta} {c.mode}: {c.fallbacks}" for c in costs if c.fallbacks]
    lines += ["", f"Steps that fell back to the prior: {'; '.join(fell) if fell else 'none'}.", ""]
    return lines


def joint_part(scratch: Path, steps: int, seed: int, started: float, meta: dict) -> tuple[list[str], dict]:
    """Builds, measures and writes up the joint systems' part; (markdown lines, JSON record)."""
    builds, images = [], []
    for no_joint in (False, True):
        b, elf = build(JOINT_BOARD, JOINT_BUILD_ETA, scratch, "nojoint" if no_joint else None)
        builds.append(b)
        images.append(elf)
        log(
            f"built {JOINT_BOARD} η ≤ {JOINT_BUILD_ETA}{' without joint' if no_joint else ''}: flash {b.flash:,} B, "
            f"RAM {b.ram:,} B, stack {b.stack:,} B",
            started,
        )
    costs = run_joint(JOINT_BOARD, images[0], JOINT_ETAS, steps, seed, started)
    meta = {**meta, "joint_steps": steps}
    return joint_markdown(builds, costs, meta), {
        "joint_builds": [asdict(b) for b in builds],
        "joint_cycles": [asdict(c) for c in costs],
        "joint_steps": steps,
    }


def replace_joint(text: str, lines: list[str]) -> str:
    """`text` with its joint systems' section replaced (or appended when it has none)."""
    head, sep, rest = text.partition(JOINT_HEADING)
    tail = ""
    if sep and "\n## " in rest:
        tail = "## " + rest.split("\n## ", 1)[1]
    return head.rstrip("\n") + "\n\n" + "\n".join(lines) + ("\n" + tail if tail else "")


_SIZES_NOTE = re.compile(r"^Flash, RAM and stack regenerated by .*\n\n", re.MULTILINE)


def replace_sizes(text: str, builds: list[Build], marks: list[StackMark], meta: dict) -> str:
    """`text`, a whole run's markdown, with its flash, RAM and stack sections replaced and a note saying
    so below its first paragraph; its cycle tables are kept."""
    if FLASH_HEADING not in text or CYCLES_HEADING not in text:
        sys.exit(
            f"--sizes-only needs a whole run's results to update (with {FLASH_HEADING!r} and "
            f"{CYCLES_HEADING!r}); run without it first"
        )
    head, rest = text.split(FLASH_HEADING, 1)
    tail = CYCLES_HEADING + rest.split(CYCLES_HEADING, 1)[1]
    note = (
        f"Flash, RAM and stack regenerated by `{meta['command']}` in {meta['wall_s']:.0f} s; commit "
        f"{meta['commit']}. The cycle tables are the run's above.\n\n"
    )
    title, first, others = _SIZES_NOTE.sub("", head).split("\n\n", 2)
    return "\n\n".join([title, first, note + others]) + "\n".join(sizes_markdown(builds, marks)) + "\n" + tail


def render(record: dict) -> str:
    """The markdown of a whole run from its JSON record, as the run wrote it (--render-only)."""
    meta = {
        k: record[k]
        for k in (
            "command",
            "wall_s",
            "load",
            "commit",
            "fw_versions",
            "gcc",
            "qemu",
            "qemu_command",
            "icount_shift",
            "steps",
            "slow_steps",
            "seed",
            "environment",
        )
        if k in record
    }
    joint = [JointCosts(**c) for c in record["joint_cycles"]]
    joint_steps = record.get("joint_steps", max(c.steps for c in joint) + 1)  # older records: T − 1 steps measured
    return (
        markdown(
            [Build(**b) for b in record["builds"]],
            [StackMark(**m) for m in record["stack"]],
            [Costs(**c) for c in record["cycles"]],
            meta,
        )
        + "\n"
        + "\n".join(
            joint_markdown([Build(**b) for b in record["joint_builds"]], joint, {**meta, "joint_steps": joint_steps})
        )
    )


def arguments(ap) -> None:
    ap.add_argument(
        "--boards",
        default=",".join(qemu.all_boards()),
        help="comma-separated boards (default: every board folder; those QEMU does not emulate get "
        "flash and RAM only)",
    )
    ap.add_argument(
        "--etas", default="2,4,8,16,32,64", help="the η measured, on each board's largest image (those it holds)"
    )
    ap.add_argument(
        "--build-etas",
        help="largest η of the builds (default: the η of --etas from "
        f"{SMALLEST_BUILD} up, or {SMALLEST_BUILD} when none is)",
    )
    ap.add_argument("--steps", type=int, default=20, help="trace length T (default 20)")
    ap.add_argument("--slow-steps", type=int, default=2, help="T for the slowest configuration (default 2)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--scratch", type=Path, default=SCRATCH, help=f"build directory (default {SCRATCH})")
    ap.add_argument("--out", type=Path, default=OUT, help="markdown file; .json.gz and .csv go beside it")
    ap.add_argument("--joint-steps", type=int, default=12, help="trace length T of the joint systems (default 12)")
    ap.add_argument(
        "--joint-only",
        action="store_true",
        help="the joint systems' part only: replace its section of --out (and its key in the .json.gz)",
    )
    ap.add_argument(
        "--sizes-only",
        action="store_true",
        help="builds and stack marks only: replace those sections of --out (and its .json.gz), keep "
        "its cycle tables",
    )
    ap.add_argument(
        "--render-only",
        action="store_true",
        help="no measurement: write --out again from its .json.gz (after a change of the tables' layout)",
    )


def run(args) -> dict:
    """Measures what the options ask for; what to write: {"markdown", "record"} and, for a whole run, "cycles"
    (the CSV's rows). A part's run (--joint-only, --sizes-only) merges into the files a whole run wrote."""
    if args.render_only:
        record = read_record(args.out)
        return dict(markdown=render(record), record=record)
    boards = args.boards.split(",")
    etas = sorted(int(e) for e in args.etas.split(","))
    build_etas = sorted(int(e) for e in args.build_etas.split(",")) if args.build_etas else default_builds(etas)
    if args.steps < 2 or args.slow_steps < 2:
        raise SystemExit("uxbench firmware_costs: a trace needs at least 2 steps (step 0 has no predict)")
    started = time.monotonic()
    env = environment.block({"steps": args.steps, "slow_steps": args.slow_steps, "seed": args.seed})
    command = args.command
    if args.joint_only:
        lines, record = joint_part(args.scratch, args.joint_steps, args.seed, started, joint_meta(args, env))
        old = read_record(args.out) if record_path(args.out).exists() else {}
        return dict(
            markdown=replace_joint(args.out.read_text() if args.out.exists() else "", lines), record={**old, **record}
        )
    builds, images, largest = build_all(boards, build_etas, args.scratch, started)
    marks = stack_marks(boards, builds, images, largest, started)
    if args.sizes_only:
        meta = {"command": command, "wall_s": time.monotonic() - started, "commit": env["commit"]}
        record = read_record(args.out)
        record.update(sizes=meta, builds=[asdict(b) for b in builds], stack=[asdict(m) for m in marks])
        return dict(markdown=replace_sizes(args.out.read_text(), builds, marks, meta), record=record)
    return whole_run(args, boards, etas, (builds, images, largest, marks), env, started)


def joint_meta(args, env: dict) -> dict:
    return {
        "command": args.command,
        "commit": env["commit"],
        "icount_shift": qemu.DEFAULT_ICOUNT_SHIFT,
        "seed": args.seed,
    }


def stack_marks(boards: list[str], builds: list[Build], images: dict, largest: dict, started: float) -> list[StackMark]:
    """Each emulated board's high-water mark on its largest image."""
    marks = []
    for board in (b for b in boards if b in qemu.boards()):
        bound = next(b.stack_bound for b in builds if b.board == board and b.max_eta == largest[board])
        marks.append(stack_mark(board, images[board], largest[board], bound))
        log(f"{board} stack high-water mark {marks[-1].high_water:,} B of {bound:,} B", started)
    return marks


def whole_run(args, boards: list[str], etas: list[int], built: tuple, env: dict, started: float) -> dict:
    """The cycles of every emulated board and the joint part, beside the builds and marks: a whole run's results."""
    builds, images, largest, marks = built
    emulated = [b for b in boards if b in qemu.boards()]
    costs, versions = [], []
    for board in emulated:
        board_costs, version = run_board(
            board,
            images[board],
            [eta for eta in etas if eta <= largest[board]],
            args.steps,
            args.slow_steps,
            args.seed,
            started,
        )
        costs += board_costs
        versions.append(version)
    meta = {
        "command": args.command,
        "wall_s": time.monotonic() - started,
        "load": " / ".join(f"{v:.1f}" for v in os.getloadavg()),
        "commit": env["commit"],
        "environment": env,
        "fw_versions": sorted(set(versions)),
        "gcc": tool_version(["arm-none-eabi-gcc", "--version"]),
        "qemu": tool_version([qemu.QEMU, "--version"]),
        "qemu_command": " ".join(qemu.command(emulated[0], Path("firmware.elf"), 0)).replace("port=0,", "port=PORT,"),
        "icount_shift": qemu.DEFAULT_ICOUNT_SHIFT,
        "steps": args.steps,
        "slow_steps": args.slow_steps,
        "seed": args.seed,
    }
    joint_lines, joint_record = joint_part(args.scratch, args.joint_steps, args.seed, started, joint_meta(args, env))
    record = dict(meta, **joint_record)
    record["slow"] = [[SYSTEMS[s], e, LIKELIHOODS[lik], MODES[m]] for s, e, lik, m in sorted(SLOW)]
    record["builds"] = [asdict(b) for b in builds]
    record["stack"] = [asdict(m) for m in marks]
    record["cycles"] = [asdict(c) for c in costs]
    return dict(
        markdown=markdown(builds, marks, costs, meta) + "\n" + "\n".join(joint_lines),
        record=record,
        cycles=record["cycles"],
    )


def build_all(boards: list[str], build_etas: list[int], scratch: Path, started: float):
    """Every board's images at the build η it holds: (builds, {board: its largest image}, {board: its η})."""
    builds, images, largest = [], {}, {}
    for board in boards:
        held = board_etas(board, build_etas)
        if not held:
            raise SystemExit(
                f"{board} holds η ≤ {qemu.board_var(board, 'BOARD_MAX_ETA')}: none of the builds' η "
                f"{','.join(map(str, build_etas))}"
            )
        for eta in held:
            b, elf = build(board, eta, scratch)
            builds.append(b)
            images[board], largest[board] = elf, eta  # the largest η last: it runs every η measured
            log(
                f"built {board} η ≤ {eta}: flash {b.flash:,} B, RAM {b.ram:,} B, stack {b.stack:,} B "
                f"(worst case {b.stack_bound:,} B)",
                started,
            )
    return builds, images, largest


def report(results: dict, args) -> None:
    """--out, its .json.gz record beside it and, for a whole run, the .csv of the cycles."""
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(results["markdown"])
    if args.render_only:
        return
    write_json_gz(record_path(args.out), results["record"])
    if "cycles" in results:
        with args.out.with_suffix(".csv").open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(results["cycles"][0]))
            writer.writeheader()
            writer.writerows(results["cycles"])
    print(
        f"wrote {args.out} (+ {record_path(args.out).name}{', .csv' if 'cycles' in results else ''})", file=sys.stderr
    )


def record_path(out: Path) -> Path:
    """The raw record beside the markdown: firmware.md → firmware.json.gz."""
    return out.with_suffix(".json.gz")


def read_record(out: Path) -> dict:
    path = record_path(out)
    if not path.exists():
        raise SystemExit(f"uxbench firmware_costs: {path} is missing: run the whole benchmark first")
    return read_json_gz(path)
