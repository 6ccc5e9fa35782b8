"""Streaming a trace to a device: HELLO, CONFIGURE, one STEP per row, every posterior written to a dump
as it arrives. Used by `uxhost stream` and the demo."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from array import array
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .dump import count_statuses, status_lines
from .errors import InputError, ToolError
from .protocol import Status


@dataclass
class StreamSummary:
    steps: int
    cycles_predict: np.ndarray
    cycles_update: np.ndarray
    cycle_unit: str
    resends: int
    config: object = None  # the ModelConfig that ran
    spec: object = None  # the device's description of its system
    replayed: int = 0  # steps of a resumed dump replayed (and checked bit for bit) before the run went on
    statuses: dict = field(default_factory=dict)  # steps per status that says something (dump.count_statuses)
    device: str = ""  # "board at N MHz, firmware version", as INFO said (Info.device)
    reset_cause: str = ""  # why the device last started, as INFO said (dump.reset_cause_name)
    silences: int = 0  # of the resends: after a wait that met silence
    damaged: int = 0  # after an answer that arrived damaged
    unread: int = 0  # after the device said it could not read a frame (perhaps the request)

    @property
    def fallbacks(self) -> int:
        return self.statuses.get(Status.FALLBACK, 0)

    @property
    def missing(self) -> int:
        """Steps without observation (predict only)."""
        return self.statuses.get(Status.NO_EVIDENCE, 0)

    def lines(self) -> list[str]:
        out = [f"device   {self.device}; last reset: {self.reset_cause}"] if self.device else []
        out.append(
            f"{self.steps} steps, {self.fallbacks} fallback(s), {self.missing} without observation, "
            f"{self.resends} resent request(s)"
        )
        if self.resends:
            out.append(
                f"resent after: {self.silences} silence(s), {self.damaged} damaged answer(s), {self.unread} "
                "request(s) the device could not read"
            )
        out += status_lines(self.statuses, skip=(Status.FALLBACK, Status.NO_EVIDENCE))  # in the line above
        if self.replayed:
            out.append(f"resumed: {self.replayed} recorded step(s) replayed, every posterior bit-identical to the dump")
        for name, c in (("predict", self.cycles_predict), ("update", self.cycles_update)):
            if c.size:
                out.append(f"{name:<8} median {np.median(c):,.0f}  max {c.max():,} {self.cycle_unit}")
        return out


@contextlib.contextmanager
def device_for(
    port: str | None,
    board: str | None,
    elf: Path | None,
    timeout: float,
    baud: int = 115200,
    retries: int | None = None,
):
    """(device, QEMU instance or None): opens --port, or boots --board in QEMU and opens its URL.
    `retries`: resends of an unanswered request (None: the link's default)."""
    from .link import DEFAULT_RETRIES, Device

    retries = DEFAULT_RETRIES if retries is None else retries
    if port is not None:
        with Device.open(port, timeout=timeout, retries=retries, baudrate=baud) as device:
            yield device, None
        return
    from .elf import check_board
    from .qemu import boot, find_firmware, require_emulated

    require_emulated(
        board,
        f"flash it (uxhost flash) and use --port with its serial port (uxhost ports lists "
        f"them) and --expect-board {board}",
    )
    image = find_firmware(board, elf)
    check_board(image, board)
    with boot(board, image) as qemu, Device.open(qemu.url, timeout=timeout, retries=retries) as device:
        yield device, qemu


def stream_trace(
    device,
    trace,
    config,
    output,
    trace_path: str | None = None,
    qemu=None,
    progress: bool | None = None,
    expect_board: str | None = None,
    resume=None,
) -> StreamSummary:
    """HELLO, DESCRIBE, CONFIGURE and one STEP per trace row; every posterior is written to `output` at once.

    `config` is a ModelConfig, or a JointConfig for a vector-state system (whose trace's z are rows), checked
    against the system the device describes under its name, or a function (device's specs by name, where) ->
    config for a system the host may only learn from the device. Every system streams through this one flow:
    the same requests, records of its kind, the same summary.
    `progress` None shows the bar only on a terminal. A device lost mid-run (a dead emulator, an
    unplugged board) ends with a ToolError that says how many steps the dump kept.

    `resume`: the Dump of an earlier run of this trace and configuration that was cut short. Its steps are
    replayed on the (fresh) device first and every answer must equal the recorded posterior bit for bit —
    determinism makes a continued run exactly the run that was lost — then the run goes on from the first
    step the dump lacks, into `output`, which keeps the earlier records. A replay that differs stops before
    `output` is touched."""
    from tqdm import tqdm

    from .dump import CYCLE_UNITS, open_writer

    info, specs, where = greet(device, expect_board)
    if callable(config):
        config = config(specs, where)
    spec = configure_device(device, info, specs, config, where)
    kept = list(resume.steps) if resume is not None else []
    header = _header(config, info, trace_path, len(trace), resume)
    tally = _Tally()
    with tqdm(
        total=len(trace),
        unit="step",
        file=sys.stderr,
        disable=(None if progress is None else not progress),
        desc="replay" if kept else "stream",
        leave=False,
    ) as bar:
        for i, rec in enumerate(kept):
            post = step_row(device, trace, i, qemu, f"{output} is unchanged")
            if _record(trace, i, post).posterior() != rec.posterior():
                raise InputError(
                    f"{where} answers step k={rec.k} of the replay differently from the dump: not the "
                    f"run the dump recorded (another build, board or configuration), so it cannot be "
                    f"continued exactly; {output} is unchanged"
                )
            tally.add(rec)
            bar.update()
        bar.set_description("stream")
        with open_writer(output, header, kept) as out:
            for i in range(len(kept), len(trace)):
                post = step_row(device, trace, i, qemu, f"the dump {output} keeps the {out.count} step(s) before it")
                record = _record(trace, i, post)
                out.write(record)
                tally.add(record)
                bar.update()
    return StreamSummary(
        tally.steps,
        np.array(tally.cycles_predict, dtype=np.int64),
        np.array(tally.cycles_update, dtype=np.int64),
        CYCLE_UNITS.get(header.cycle_source, header.cycle_source),
        device.resends,
        config,
        spec,
        replayed=len(kept),
        statuses=tally.statuses,
        device=info.device(),
        reset_cause=header.reset_cause,
        silences=device.silences,
        damaged=device.damaged,
        unread=device.unread,
    )


class _Tally:
    """What the summary needs of a run's records, without keeping them (the dump has them): a run of any
    length holds 16 bytes a step, its two cycle counts, instead of every posterior."""

    def __init__(self):
        self.steps = 0
        self.statuses = count_statuses(())
        self.cycles_predict, self.cycles_update = array("q"), array("q")

    def add(self, record) -> None:
        if self.steps:  # step 0 only updates: its predict count is not a predict and stays out of the statistics
            self.cycles_predict.append(record.cycles_predict)
        self.cycles_update.append(record.cycles_update)
        self.steps += 1
        if record.status in self.statuses:
            self.statuses[record.status] += 1


def _header(config, info, trace_path: str | None, steps: int, resume):
    """The dump's header of this run: a vector-state system's (JointHeader) or a scalar one's."""
    from .dump import CYCLE_SOURCES, Header, reset_cause_name
    from .joint import JointConfig, JointHeader

    fields = dict(
        board=info.board,
        firmware_version=info.fw_version,
        protocol=info.protocol,
        real_bytes=info.real_bytes,
        cycle_source=CYCLE_SOURCES.get(info.cycle_source, "unknown"),
        reset_cause=reset_cause_name(info.reset_cause),
        trace=trace_path,
        trace_steps=steps,
    )
    resumed_at = (resume.header.resumed_at + (len(resume.steps),)) if resume is not None else ()
    return (JointHeader if isinstance(config, JointConfig) else Header)(config, **fields, resumed_at=resumed_at)


def greet(device, expect_board: str | None = None):
    """(INFO, the device's systems by name, "the firmware … on BOARD"): HELLO and DESCRIBE, refusing a device
    that does not speak the protocol or reports another board than `expect_board` (before any CONFIGURE)."""
    from .protocol import ProtocolError

    try:
        info = device.hello()
    except ProtocolError as exc:
        raise ToolError(f"the device at {device.url} does not speak the ux-filter link protocol ({exc})") from None
    if expect_board is not None and info.board != expect_board:
        raise ToolError(
            f"the device at {device.url} is a {info.board} (firmware {info.fw_version}), not the "
            f"{expect_board} asked for: nothing was configured"
        )
    return info, device.systems(info), f"the firmware {info.fw_version!r} on {info.board}"


def configure_device(device, info, specs, config, where):
    """Checks `config` (a ModelConfig or a JointConfig) against the device's description of its system and
    sends CONFIGURE; the spec."""
    spec = specs.get(config.system)
    if spec is None or spec.id != config.system_id:
        raise InputError(f"{where} has no system {config.system!r} (it has: {', '.join(specs) or 'none'})")
    if len(config.params) != len(spec.params):
        raise InputError(
            f"{where} gives system {spec.name} {len(spec.params)} parameters {spec.param_names}, "
            f"not the {len(config.params)} asked for"
        )
    shape = (getattr(spec, "dim", 1), getattr(spec, "dim_obs", 1))
    if shape != (config.dim, config.dim_obs):
        raise InputError(
            f"{where} says {spec.name} has {shape[0]} state and {shape[1]} observation "
            f"component(s); the configuration has {config.dim} and {config.dim_obs}"
        )
    if config.eta > info.max_eta:
        raise InputError(f"η={config.eta} is larger than the {info.max_eta} this firmware was built for")
    send_configure(device, config)
    return spec


def send_configure(device, config):
    """CONFIGURE of `config` (a ModelConfig or a JointConfig) as it stands, unchecked; the device's answer."""
    from .protocol import Likelihood, Mode, PriorKind

    return device.configure(
        config.system_id,
        config.eta,
        Mode[config.mode.upper()],
        Likelihood[config.likelihood.upper()],
        config.params,
        [(PriorKind[kind.upper()], a, b) for kind, a, b in config.priors],
    )


def step_row(device, trace, i: int, qemu, kept: str):
    """STEP for row i of the trace (predict on all rows but the first; a NaN z is sent without evidence).
    A lost device is a ToolError that ends with what was kept (`kept`)."""
    from .link import LinkError
    from .protocol import ProtocolError

    k, z = int(trace.k[i]), trace.observation(i)
    try:
        return device.step(
            k,
            i > 0,
            float(trace.u[i]),
            None if z is None else np.atleast_1d(z),
            dim_obs=1 if trace.z.ndim == 1 else trace.z.shape[1],
        )
    except (LinkError, ProtocolError) as exc:
        raise ToolError(f"{_lost(qemu, exc)} at step k={k}; {kept}") from None


def _record(trace, i: int, post):
    """The dump's record of row i and its answer: a scalar system's StepRecord, a vector-state one's JointStep."""
    from .dump import StepRecord
    from .joint import JointStep

    k, u = int(trace.k[i]), float(trace.u[i])
    cycles = (post.cycles_predict, post.cycles_update)
    if trace.z.ndim == 2:
        z = trace.observation(i)
        x = None if trace.x is None else tuple(float(v) for v in trace.x[i])
        return JointStep(
            k,
            u,
            None if z is None else tuple(float(v) for v in z),
            x,
            post.status,
            post.mean,
            post.cov,
            post.log_evidence,
            post.w,
            post.x,
            *cycles,
        )
    x = None if trace.x is None else float(trace.x[i])
    return StepRecord(
        k,
        u,
        float(trace.z[i]),
        x,
        post.status,
        post.mean[0],
        post.cov[0],
        tuple(post.x),
        tuple(post.w),
        *cycles,
        post.log_evidence,
    )


def _lost(qemu, exc) -> str:
    """Why the device went quiet: the emulator's own end when we started it, else the link's words."""
    from .link import DeviceError
    from .qemu import qemu_end

    if qemu is None or isinstance(exc, DeviceError):  # a device that answers with ERROR is alive
        return str(exc)
    try:  # QEMU may still be closing its side of the socket: give it a moment to be seen exiting
        code = qemu.process.wait(timeout=1.0)
    except subprocess.TimeoutExpired:
        return str(exc)
    return f"QEMU ({qemu.board}) {qemu_end(code, qemu.stderr())}"
