"""Streaming a trace to a device: HELLO, CONFIGURE, one STEP per row, every posterior written to a dump
as it arrives. Used by `uxhost stream` and the demo."""
from __future__ import annotations

import contextlib
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import UserError


@dataclass
class StreamSummary:
    steps: int
    fallbacks: int
    missing: int  # steps without observation (predict only)
    cycles_predict: np.ndarray
    cycles_update: np.ndarray
    cycle_unit: str
    resends: int
    config: object = None  # the ModelConfig that ran
    spec: object = None  # the device's description of its system

    def lines(self) -> list[str]:
        out = [f"{self.steps} steps, {self.fallbacks} fallback(s), {self.missing} without observation, "
               f"{self.resends} resent request(s)"]
        for name, c in (("predict", self.cycles_predict), ("update", self.cycles_update)):
            if c.size:
                out.append(f"{name:<8} median {np.median(c):,.0f}  max {c.max():,} {self.cycle_unit}")
        return out


@contextlib.contextmanager
def device_for(port: str | None, board: str | None, elf: Path | None, timeout: float, baud: int = 115200):
    """(device, QEMU instance or None): opens --port, or boots --board in QEMU and opens its URL."""
    from .link import Device

    if port is not None:
        with Device.open(port, timeout=timeout, baudrate=baud) as device:
            yield device, None
        return
    from .elf import check_board
    from .qemu import boot, find_firmware

    image = find_firmware(board, elf)
    check_board(image, board)
    with boot(board, image) as qemu, Device.open(qemu.url, timeout=timeout) as device:
        yield device, qemu


def stream_trace(device, trace, config, output, trace_path: str | None = None, qemu=None,
                 progress: bool | None = None, expect_board: str | None = None) -> StreamSummary:
    """HELLO, DESCRIBE, CONFIGURE and one STEP per trace row; every posterior is written to `output` at once.

    `config` is a ModelConfig, checked against the system the device describes under its name, or a function
    (device's specs by name, where) -> ModelConfig for a system the host may only learn from the device.
    `progress` None shows the bar only on a terminal. A device lost mid-run (a dead emulator, an
    unplugged board) ends with a UserError that says how many steps the dump kept."""
    from tqdm import tqdm

    from .dump import CYCLE_SOURCES, CYCLE_UNITS, Header, StepRecord, open_writer
    from .link import LinkError
    from .protocol import Likelihood, Mode, PriorKind, ProtocolError, Status

    try:
        info = device.hello()
    except ProtocolError as exc:
        raise UserError(f"the device at {device.url} does not speak the ux-filter link protocol ({exc})") from None
    if expect_board is not None and info.board != expect_board:
        raise UserError(f"the device at {device.url} is a {info.board} (firmware {info.fw_version}), not the "
                        f"{expect_board} asked for: nothing was configured")
    where = f"the firmware {info.fw_version!r} on {info.board}"
    specs = device.systems(info)
    if callable(config):
        config = config(specs, where)
    spec = specs.get(config.system)
    if spec is None or spec.id != config.system_id:
        raise UserError(f"{where} has no system {config.system!r} (it has: {', '.join(specs) or 'none'})")
    if len(config.params) != len(spec.params):
        raise UserError(f"{where} gives system {spec.name} {len(spec.params)} parameters {spec.param_names}, "
                        f"not the {len(config.params)} asked for")
    if config.eta > info.max_eta:
        raise UserError(f"η={config.eta} is larger than the {info.max_eta} this firmware was built for")
    device.configure(config.system_id, config.eta, Mode[config.mode.upper()], Likelihood[config.likelihood.upper()],
                     config.params, PriorKind[config.prior_kind.upper()], config.prior_a, config.prior_b)
    header = Header(config, board=info.board, firmware_version=info.fw_version, protocol=info.protocol,
                    real_bytes=info.real_bytes, cycle_source=CYCLE_SOURCES.get(info.cycle_source, "unknown"),
                    trace=trace_path, trace_steps=len(trace))
    from uxemu.filter import observation

    cp, cu, fallbacks, missing = [], [], 0, 0
    with open_writer(output, header) as out, \
            tqdm(total=len(trace), unit="step", file=sys.stderr, disable=(None if progress is None else not progress),
                 desc="stream", leave=False) as bar:
        for i in range(len(trace)):
            k = int(trace.k[i])
            try:
                post = device.step(k, i > 0, float(trace.u[i]), observation(trace.z[i]))
            except (LinkError, ProtocolError) as exc:
                raise UserError(f"{_lost(qemu, exc)} at step k={k}; the dump {output} keeps the "
                                   f"{out.count} step(s) before it") from None
            x = None if trace.x is None else float(trace.x[i])
            out.write(StepRecord(k, float(trace.u[i]), float(trace.z[i]), x, post.status, post.mean, post.var,
                                 tuple(post.x), tuple(post.w), post.cycles_predict, post.cycles_update))
            cp.append(post.cycles_predict)
            cu.append(post.cycles_update)
            fallbacks += post.status == Status.FALLBACK
            missing += post.status == Status.NO_EVIDENCE
            bar.update()
    # Step 0 only updates: its predict count is not a predict and stays out of the statistics.
    return StreamSummary(len(cu), fallbacks, missing, np.array(cp[1:], dtype=np.int64), np.array(cu, dtype=np.int64),
                         CYCLE_UNITS.get(header.cycle_source, header.cycle_source), device.resends, config, spec)


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
