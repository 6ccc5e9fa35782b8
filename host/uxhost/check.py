"""A board's first check (`uxhost check`): what the firmware reports about itself (INFO), whether it is the
board and the version asked for, and whether it filters every system it has as the reference does — one
standard trace per system, streamed and validated — with the cost of a step, written as a Markdown report
a user can post.

What the report says about time depends on where the cycle counts come from (INFO `cycle_source`):

- QEMU (SysTick under `-icount`): virtual cycles, a fixed number per instruction executed (2^shift ns an
  instruction × the machine's SysTick clock, QEMU_CPU_HZ of the board's board.mk: 1.6 on the MPS2
  machines at shift 6). They count instructions, exactly reproducible, and are no time on silicon: the
  report gives instructions per step and no µs.
- DWT CYCCNT: the core's cycles; µs per step at the core clock, taken from INFO when the firmware
  reports one, else from the board's folder (BOARD_CORE_HZ of its board.mk), and the report says which.
- The host clock (a native build): nanoseconds, so µs directly.

Nothing the firmware does not report is made up: a stack high-water mark or a core clock that neither
INFO nor the board's folder gives is written as not reported.
"""

from __future__ import annotations

import dataclasses
import datetime
import platform
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .errors import InputError, ToolError

STEPS = 50  # each standard trace's length
SEED = 1  # the standard traces' seed
ETA = 16  # atoms per value, lowered to what the firmware was built for
_INFO_FIELDS = ("protocol", "max_eta", "real_bytes", "cycle_source", "reset_cause", "board", "fw_version", "n_systems")


@dataclass
class SystemResult:
    """One system's part of the check."""

    name: str
    kind: str  # "scalar" or "joint (dim N)"
    eta: int | None = None
    steps: int = 0
    ok: bool | None = None  # True: validated; False: failed; None: not checked (and why in `detail`)
    detail: str = ""  # the largest difference against its tolerance, or what went wrong
    cycles: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))  # per step after the first
    resends: int = 0

    @property
    def verdict(self) -> str:
        return {True: "OK", False: "FAIL", None: "not checked"}[self.ok]


@dataclass
class Timing:
    """What a count of the device means: its unit, and how it becomes instructions or µs (None: it does not)."""

    unit: str  # "virtual cycles", "cycles", "ns"
    source: str = ""  # the counter, as the report names it
    per_instruction: float | None = None  # virtual cycles per instruction (QEMU)
    per_us: float | None = None  # counts per µs
    notes: tuple[str, ...] = ()


@dataclass
class CheckReport:
    board: str  # the board asked for
    reached: str  # how the device was reached
    command: str
    steps: int
    flashed: str | None = None  # the flash result's line
    dumps: Path | None = None  # where the dumps are kept (None: deleted)
    info: object = None  # INFO, once the device answered HELLO
    timing: Timing | None = None
    systems: list = field(default_factory=list)
    problems: list = field(default_factory=list)  # each one fails the check
    notes: list = field(default_factory=list)
    started: datetime.datetime = field(default_factory=lambda: datetime.datetime.now(datetime.timezone.utc))
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        checked = [s for s in self.systems if s.ok is not None]
        return not self.problems and bool(checked) and all(s.ok for s in checked)

    def failures(self) -> list[str]:
        out = list(self.problems)
        out += [f"{s.name}: {s.detail}" for s in self.systems if s.ok is False]
        if not self.problems and not any(s.ok is not None for s in self.systems):
            out.append("no system was checked")
        return out

    def summary(self) -> str:
        """One line: the verdict and what it rests on."""
        checked = [s for s in self.systems if s.ok is not None]
        if self.passed:
            return (
                f"PASS: {self.board}, {len(checked)} system(s) streamed and validated, "
                f"{sum(s.steps for s in checked)} steps"
            )
        return f"FAIL: {self.board}: {self.failures()[0]}"

    def markdown(self) -> str:
        return "\n".join(_markdown(self)) + "\n"


# --------------------------------------------------------------------------------------------------
# Running the check


def run_check(
    device,
    board: str,
    reached: str,
    command: str,
    workdir: Path,
    qemu=None,
    flashed: str | None = None,
    steps: int = STEPS,
    eta: int = ETA,
    log=None,
    keep: bool = False,
) -> CheckReport:
    """Checks the device at `device` (a link.Device, open) against `board`: HELLO and DESCRIBE, then a standard
    trace of every system it has, streamed and validated. Every failure of the device — silent, another board,
    another version, a lost link, a posterior off the reference — is a problem in the report, not an
    exception; `workdir` receives the dumps (`keep`: the report says they are there). `log(line)` hears of each
    system as it runs."""
    import time

    from .link import LinkError
    from .protocol import ProtocolError
    from .streaming import greet

    log = log or (lambda line: None)
    report = CheckReport(board, reached, command, steps, flashed=flashed, dumps=workdir if keep else None)
    began = time.monotonic()
    try:
        try:
            info, specs, _ = greet(device)
        except (LinkError, ProtocolError, InputError, ToolError) as exc:
            report.problems.append(f"HELLO: {_one_line(exc)}")
            return report
        report.info = info
        report.timing = timing(info, board, qemu)
        if not _check_identity(report, info):
            return report
        for name, spec in specs.items():
            log(f"{name}: streaming {steps} steps")
            result = _check_system(device, spec, info, workdir, qemu, steps, eta)
            report.systems.append(result)
            log(f"{name}: {result.verdict}{': ' + result.detail if result.detail else ''}")
            if result.ok is False and not _answers(device):
                rest = [s for s in specs if s not in {r.name for r in report.systems}]
                report.problems.append(
                    f"the device stopped answering during {name}" + (f"; not run: {', '.join(rest)}" if rest else "")
                )
                break
    finally:
        report.seconds = time.monotonic() - began
    return report


def _check_identity(report: CheckReport, info) -> bool:
    """The board, the versions and the reset cause INFO reports, into `report`; whether to go on (the board is
    the one asked for: another is not configured; firmware of another C core is, to show how far it agrees)."""
    from .protocol import ResetCause
    from .versions import core_version

    if info.board != report.board:
        report.problems.append(
            f"the device reports board {info.board!r}, not the {report.board} asked for: nothing "
            "was configured (a wrong port, or an image built for another board)"
        )
        return False
    built, core = firmware_core_version(info.fw_version), core_version()
    if built is None:
        report.notes.append(
            f"the firmware's version {info.fw_version!r} names no C core version (CORE+BUILD, as "
            "`make firmware` stamps it): not compared with the host's"
        )
    elif core != "unknown" and built != core:
        report.problems.append(
            f"the firmware was built from C core {built}, this host is C core {core}: flash an "
            "image built from this checkout (make firmware), or check with the uxhost of the "
            "firmware's own checkout"
        )
    if info.reset_cause in (ResetCause.WATCHDOG, ResetCause.LOCKUP):
        report.notes.append(
            f"the board last started after a {ResetCause(info.reset_cause).name.lower()} reset: "
            "it stopped before this check started (docs/hardware.md, \"Watchdog and reset cause\")"
        )
    return True


def firmware_core_version(fw_version: str) -> str | None:
    """The C core version a firmware version string starts with ("0.2.0+cbe339a-dirty" → "0.2.0"), or None
    when it names none ("unversioned", a PlatformIO build's)."""
    head = fw_version.split("+", 1)[0]
    parts = head.split(".")
    return head if "+" in fw_version and len(parts) >= 2 and all(p.isdigit() for p in parts) else None


def _answers(device) -> bool:
    """Whether the device still answers HELLO (after a system failed: go on with the next, or stop)."""
    from .link import LinkError
    from .protocol import ProtocolError

    try:
        device.hello()
        return True
    except (LinkError, ProtocolError):
        return False


def _check_system(device, spec, info, workdir: Path, qemu, steps: int, eta: int) -> SystemResult:
    from .dump import DumpError
    from .link import LinkError
    from .protocol import ProtocolError

    joint = hasattr(spec, "dim")
    result = SystemResult(spec.name, f"joint (dim {spec.dim})" if joint else "scalar")
    host = _host_spec(spec, joint)
    if host is None:
        result.detail = (
            "not in this host's system table with the same id: no model to simulate its standard "
            "trace (a system only the firmware has)"
        )
        return result
    if not host:
        result.detail = "no Python twin to simulate its standard trace from (a system that exists only in C)"
        return result
    result.eta = _eta(eta, info, spec if joint else None)
    dump_path = workdir / f"{spec.name}.jsonl"
    resends = device.resends
    try:
        if joint:
            cycles, cmp_ok, detail = _run_joint(device, spec, result.eta, dump_path, qemu, steps)
        else:
            cycles, cmp_ok, detail = _run_scalar(device, spec, result.eta, dump_path, qemu, steps)
    except (ToolError, LinkError, ProtocolError, DumpError, ValueError) as exc:
        result.ok, result.detail = False, _one_line(exc)
        return result
    finally:
        result.resends = device.resends - resends
    result.steps, result.cycles, result.ok, result.detail = steps, cycles, cmp_ok, detail
    return result


def _host_spec(spec, joint: bool):
    """The host's own description of the device's system (same name and id): its spec when the reference has a
    Python twin of it to simulate the standard trace, False when it has none, None when the host has no such
    system."""
    from uxemu import joint_systems, systems

    table, twins = (joint_systems.SPECS, joint_systems.TWINS) if joint else (systems.SPECS, systems.TWINS)
    host = table.get(spec.name)
    if host is None or host.id != spec.id:
        return None
    return host if spec.name in twins else False


def _eta(eta: int, info, joint_spec=None) -> int:
    """`eta`, lowered to the firmware's largest and, for a joint system, to what one POSTERIOR holds
    (uxhost.joint.posterior_fits)."""
    from .joint import posterior_fits

    eta = min(eta, info.max_eta)
    if joint_spec is not None:
        while eta > 1 and not posterior_fits(joint_spec.dim, eta):
            eta //= 2
    return eta


def _cycles(summary) -> np.ndarray:
    """Predict + update of each step after the first (step 0 only updates)."""
    return np.asarray(summary.cycles_predict, dtype=np.int64) + np.asarray(summary.cycles_update[1:], dtype=np.int64)


def _run_scalar(device, spec, eta: int, dump_path: Path, qemu, steps: int):
    import uxemu

    from .config import resolve
    from .dump import load_dump
    from .streaming import stream_trace

    trace = uxemu.simulate_many(uxemu.systems.get(spec.name), 1, steps, SEED)[0]
    config = resolve(spec, eta=eta)  # the device's own defaults (its precision), as `uxhost stream` sends them
    summary = stream_trace(device, trace, config, dump_path, qemu=qemu, progress=False)
    return _cycles(summary), *_verdict(load_dump(dump_path))


def _verdict(dump) -> tuple[bool, str]:
    """`uxhost validate`'s verdict on a dump, scalar or joint: (ok, the largest difference or the first step off)."""
    from .validate import compare, is_joint

    cmp = compare(dump)
    if cmp.ok:
        return True, f"largest relative difference {cmp.largest:.2g} ({_tolerance(cmp.policy.describe())})"
    k, quantity, diff, tol = cmp.first_bad
    if quantity == "status" and not is_joint(dump):
        return False, _status_difference(dump, cmp.policy, k)
    return False, f"step k={k}: {quantity} differs by {diff:.3g} (tolerance {tol:g})"


def _status_difference(dump, policy, k: int) -> str:
    """ "step k=40: status OK from the device, DEPARTED from the reference" (compare says only that they differ)."""
    from .protocol import Status
    from .validate import reference_posteriors

    def name(code):
        return Status(code).name if code in Status._value2member_map_ else str(code)

    given = dump.steps if policy.reference == "step" else None
    refs = reference_posteriors(
        dump.header.config,
        dump.column("k"),
        dump.column("u"),
        dump.column("z"),
        given,
        float_build=dump.header.real_bytes < 8,
    )
    for rec, (status, *_) in zip(dump.steps, refs):
        if rec.k == k:
            return f"step k={k}: status {name(rec.status)} from the device, {name(status)} from the reference"
    return f"step k={k}: the status differs from the reference's"


def _run_joint(device, spec, eta: int, dump_path: Path, qemu, steps: int):
    from .dump import load_dump
    from .joint import resolve, simulate
    from .streaming import stream_trace

    config = resolve(spec, eta=eta)
    trace = simulate(spec, config.params, steps, SEED)
    summary = stream_trace(device, trace, config, dump_path, qemu=qemu, progress=False)
    return _cycles(summary), *_verdict(load_dump(dump_path))


# --------------------------------------------------------------------------------------------------
# Time


QEMU_COUNTER = "SysTick under QEMU's -icount"
DWT_COUNTER = "DWT CYCCNT"


def timing(info, board: str, qemu=None) -> Timing:
    """What `info`'s cycle counts mean on `board` (module docstring)."""
    from .protocol import CycleSource
    from .qemu import DEFAULT_ICOUNT_SHIFT, board_var

    if info.cycle_source == CycleSource.SYSTICK_ICOUNT:
        hz = board_var(board, "QEMU_CPU_HZ")
        shift = qemu.icount_shift if qemu is not None and qemu.icount_shift is not None else DEFAULT_ICOUNT_SHIFT
        assumed = "" if qemu is not None else " (QEMU's -icount shift assumed to be uxhost's default)"
        if hz is None or not hz.isdigit():
            return Timing(
                "virtual cycles",
                QEMU_COUNTER,
                notes=(
                    "Virtual cycles: SysTick under QEMU's -icount, which counts instructions, not the core's cycles; "
                    f"boards/{board}/board.mk gives no QEMU_CPU_HZ to convert them. No µs: QEMU's time is not the "
                    "silicon's.",
                ),
            )
        per = 2**shift * int(hz) / 1e9
        return Timing(
            "virtual cycles",
            QEMU_COUNTER,
            per_instruction=per,
            notes=(
                f"Virtual cycles: SysTick under QEMU's -icount shift={shift}{assumed}, {per:g} per instruction executed "
                f"(2^{shift} ns an instruction × the machine's {int(hz) / 1e6:g} MHz SysTick clock, QEMU_CPU_HZ of "
                f"boards/{board}/board.mk). They count instructions, exactly reproducible; they are not the core's "
                "cycles, and QEMU's time is no time on silicon: no µs are given.",
            ),
        )
    if info.cycle_source == CycleSource.HOST_NS:
        return Timing(
            "ns", "the host's clock", per_us=1000.0, notes=("Nanoseconds of the host's clock (a native build).",)
        )
    if info.cycle_source == CycleSource.DWT:
        hz, source = core_clock(info, board)
        if hz is None:
            return Timing("cycles", DWT_COUNTER, notes=(f"Core cycles (DWT CYCCNT). No µs: {source}.",))
        return Timing(
            "cycles",
            DWT_COUNTER,
            per_us=hz / 1e6,
            notes=(f"Core cycles (DWT CYCCNT); µs at the core clock {hz / 1e6:g} MHz ({source}).",),
        )
    return Timing(
        f"counts of cycle source {info.cycle_source}",
        "unknown",
        notes=(f"INFO's cycle_source {info.cycle_source} is not one this host knows: no unit, no µs.",),
    )


def core_clock(info, board: str) -> tuple[float | None, str]:
    """(Hz, where it comes from): a clock field of INFO (a `…_hz` field, when the firmware reports one), else
    BOARD_CORE_HZ of the board's board.mk; (None, why not) when neither gives one."""
    from .qemu import board_var

    for name, value in extra_info(info).items():
        if name.endswith("_hz") and isinstance(value, (int, float)) and value > 0:
            return float(value), f"INFO {name}"
    value = board_var(board, "BOARD_CORE_HZ")
    if value is not None and value.isdigit() and int(value) > 0:
        return float(value), f"BOARD_CORE_HZ of boards/{board}/board.mk; INFO reports no clock"
    return None, f"INFO reports no core clock and boards/{board}/board.mk gives no BOARD_CORE_HZ"


def _clock_text(info, board: str) -> str:
    hz, where = core_clock(info, board)
    return f"not reported ({where})" if hz is None else f"{hz / 1e6:g} MHz ({where})"


def extra_info(info) -> dict:
    """INFO's fields beyond protocol 9's (core_hz since 10; a later firmware may report more), by name."""
    return {f.name: getattr(info, f.name) for f in dataclasses.fields(info) if f.name not in _INFO_FIELDS}


def stack_high_water(info) -> str:
    for name, value in extra_info(info).items():
        if "stack" in name:
            return f"{value:,} bytes (INFO {name})" if isinstance(value, int) else f"{value} (INFO {name})"
    return "not reported by this firmware"


# --------------------------------------------------------------------------------------------------
# The report


def _host_lines() -> str:
    from .versions import version_lines

    return (
        ", ".join(version_lines()) + f"; Python {platform.python_version()}, {platform.system()} "
        f"{platform.machine()}" + _checkout()
    )


def _checkout() -> str:
    from .versions import REPO_ROOT

    try:
        res = subprocess.run(
            ["git", "-C", str(REPO_ROOT), "describe", "--always", "--dirty"],
            capture_output=True,
            text=True,
            timeout=10,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return ""
    return f"; checkout {res.stdout.strip()}" if res.returncode == 0 and res.stdout.strip() else ""


def _info_rows(r: CheckReport) -> list[str]:
    """The table rows of what the board reported in INFO, beside this host's versions."""
    from .dump import reset_cause_name
    from .protocol import PROTOCOL_VERSION
    from .versions import core_version

    info = r.info
    match = "match" if info.board == r.board else "**another board**"
    built = firmware_core_version(info.fw_version)
    core = core_version()
    versus = (
        "" if built is None else f" (C core {built}; this host's {core}: {'match' if built == core else '**differs**'})"
    )
    rows = [
        f"| board reported | {_cell(info.board)} ({match}) |",
        f"| firmware | {_cell(info.fw_version)}{versus} |",
        f"| protocol | {info.protocol} (this host: {PROTOCOL_VERSION}) |",
        f"| reals | {info.real_bytes}-byte ({'double' if info.real_bytes >= 8 else 'float'} build) |",
        f"| largest η | {info.max_eta} |",
        f"| systems | {info.n_systems} |",
        f"| cycle counter | {_cell(f'{r.timing.source}: {r.timing.unit}' if r.timing else '?')} |",
        f"| last reset | {reset_cause_name(info.reset_cause)} |",
        f"| core clock | {_cell(_clock_text(info, r.board))} |",
        f"| stack high-water | {stack_high_water(info)} |",
    ]
    for name, value in extra_info(info).items():
        if not name.endswith("_hz"):  # the core clock's row says it
            rows.append(f"| INFO {name} | {_cell(str(value))} |")
    return rows


def _system_row(s, t) -> str:
    """One system's row of the Systems table (t: the timing, or None)."""
    c = s.cycles
    cost = f"{np.median(c):,.0f}, {c.max():,}" if c.size else "—"
    row = [
        s.name,
        s.kind,
        "—" if s.eta is None else str(s.eta),
        str(s.steps) if s.steps else "—",
        f"**{s.verdict}**" if s.ok is False else s.verdict,
        cost,
    ]
    if t and t.per_instruction:
        row.append(f"{np.median(c) / t.per_instruction:,.0f}" if c.size else "—")
    row.append(f"{np.median(c) / t.per_us:,.1f}" if t and t.per_us and c.size else "—")
    detail = s.detail + (f"; {s.resends} resent request(s)" if s.resends else "")
    return "| " + " | ".join([*row, _cell(detail)]) + " |"


def _systems_section(r: CheckReport) -> list[str]:
    """The Systems section: how each was checked, one row per system, the timing's notes."""
    out = [
        "",
        "## Systems",
        "",
        f"Each system's standard trace: {r.steps} steps simulated with seed {SEED} from the system table's "
        "model, streamed with the device's default parameters and prior and the default mode (kernel likelihood; "
        "refined for a scalar system, the cell filter for a joint one), every posterior validated against the "
        "reference. Cost: predict + update of each step after the "
        "first (step 0 only updates), median and largest.",
        "",
    ]
    t = r.timing
    unit = t.unit if t else "counts"
    head = ["system", "kind", "η", "steps", "validate", f"{unit}/step (median, max)"]
    if t and t.per_instruction:
        head.append("instructions/step (median)")
    head += ["µs/step (median)", "detail"]
    out += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += [_system_row(s, t) for s in r.systems]
    if t:
        out += [""] + list(t.notes)
    return out


def _verdict_section(r: CheckReport) -> list[str]:
    out = ["", "## Verdict", ""]
    if r.passed:
        out.append(f"**PASS**: {r.summary()[len('PASS: '):]}.")
    else:
        out.append("**FAIL**:")
        out += [f"- {_cell(line)}" for line in r.failures()]
    if r.notes:
        out += ["", "Notes:"] + [f"- {_cell(n)}" for n in r.notes]
    return out


def _markdown(r: CheckReport) -> list[str]:
    verdict = "PASS" if r.passed else "FAIL"
    out = [
        f"# ux-filter board check: {r.board} — {verdict}",
        "",
        f"`{r.command}`, {r.started:%Y-%m-%d %H:%M} UTC, {r.seconds:.1f} s",
        "",
        "| | |",
        "|---|---|",
        f"| board asked for | {r.board} |",
        f"| reached | {_cell(r.reached)} |",
    ]
    if r.flashed:
        out.append(f"| flashed | {_cell(r.flashed)} |")
    if r.dumps is not None:
        out.append(f"| dumps | {_cell(str(r.dumps / 'SYSTEM.jsonl'))} (`uxhost validate` replays one) |")
    if r.info is not None:
        out += _info_rows(r)
    out.append(f"| host | {_cell(_host_lines())} |")
    if r.systems:
        out += _systems_section(r)
    return out + _verdict_section(r)


def _tolerance(described: str) -> str:
    """ "tolerance 1e-09", or "tolerances mean 0.001, law (W1) 0.01" for a policy's description of several."""
    return f"tolerances {described[1:-1]}" if described.startswith("(") else f"tolerance {described}"


def _cell(text: str) -> str:
    """Text for a Markdown table cell or list item: one line, no column breaks."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _one_line(exc: BaseException) -> str:
    return " ".join((str(exc) or type(exc).__name__).split())


def command_line(argv) -> str:
    """`uxhost ARGS` as the user typed them (for the report's first line)."""
    import shlex

    return "uxhost " + " ".join(shlex.quote(a) for a in argv)


__all__ = [
    "CheckReport",
    "SystemResult",
    "Timing",
    "command_line",
    "core_clock",
    "firmware_core_version",
    "run_check",
    "stack_high_water",
    "timing",
]
