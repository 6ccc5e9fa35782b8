"""`uxhost stream`: drive a device through a trace — HELLO, CONFIGURE, one STEP per row — and dump
every posterior as it arrives."""
from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .common import (BOARDS, CommandError, add_model_arguments, find_firmware, load_trace, model_config,
                     positive_float)


def register(sub) -> None:
    parser = sub.add_parser(
        "stream", help="stream a trace to a device and dump the posteriors (JSONL or NPZ)",
        description="Stream a trace (CSV k,u,z[,x]) to a device: HELLO (checks the protocol version), "
                    "CONFIGURE, then one STEP per row, predicting on all but the first. Each posterior is "
                    "appended to the dump as it arrives.")
    parser.add_argument("trace", type=Path, help="trace CSV with columns k,u,z[,x]")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--port", metavar="URL",
                       help="pyserial URL of the device: /dev/ttyACM0, socket://127.0.0.1:PORT, …")
    where.add_argument("--board", choices=BOARDS, help="boot this QEMU board and stream to it")
    parser.add_argument("--elf", type=Path, help="firmware image for --board (default: build/BOARD/firmware.elf)")
    add_model_arguments(parser)
    parser.add_argument("--timeout", type=positive_float, default=10.0,
                        help="seconds to wait for each answer before resending (default: %(default)s)")
    parser.add_argument("-o", "--output", type=Path, required=True, help="dump file to write (.jsonl or .npz)")
    parser.set_defaults(run=run)


@dataclass
class StreamSummary:
    steps: int
    fallbacks: int
    cycles_predict: np.ndarray
    cycles_update: np.ndarray
    cycle_unit: str
    resends: int

    def lines(self) -> list[str]:
        out = [f"{self.steps} steps, {self.fallbacks} fallback(s), {self.resends} resent request(s)"]
        for name, c in (("predict", self.cycles_predict), ("update", self.cycles_update)):
            if c.size:
                out.append(f"{name:<8} median {np.median(c):,.0f}  max {c.max():,} {self.cycle_unit}")
        return out


def run(args) -> int:
    from ..dump import dump_format

    # Everything that can be checked without the device is checked before it is opened (or booted).
    config = model_config(args)
    trace = load_trace(args.trace)
    dump_format(args.output)
    with device_for(args.port, args.board, args.elf, args.timeout) as (device, qemu):
        summary = stream_trace(device, trace, config, args.output, trace_path=str(args.trace), qemu=qemu)
    print(f"streamed {args.trace} to {device.url}: dump {args.output}")
    for line in summary.lines():
        print("  " + line)
    return 0


@contextlib.contextmanager
def device_for(port: str | None, board: str | None, elf: Path | None, timeout: float):
    """(device, QEMU instance or None): opens --port, or boots --board in QEMU and opens its URL."""
    from ..link import Device

    if port is not None:
        with Device.open(port, timeout=timeout) as device:
            yield device, None
        return
    from ..qemu import boot

    image = find_firmware(board, elf)
    with boot(board, image) as qemu, Device.open(qemu.url, timeout=timeout) as device:
        yield device, qemu


def stream_trace(device, trace, config, output, trace_path: str | None = None, qemu=None,
                 progress: bool | None = None) -> StreamSummary:
    """HELLO, CONFIGURE and one STEP per trace row; every posterior is written to `output` at once.

    `progress` None shows the bar only on a terminal. A device lost mid-run (a dead emulator, an
    unplugged board) ends with a CommandError that says how many steps the dump kept."""
    from tqdm import tqdm

    from ..dump import CYCLE_SOURCES, CYCLE_UNITS, Header, StepRecord, open_writer
    from ..link import LinkError
    from ..protocol import Likelihood, Mode, PriorKind, ProtocolError, Status

    try:
        info = device.hello()
    except ProtocolError as exc:
        raise CommandError(f"the device at {device.url} does not speak the ux-filter link protocol ({exc})") from None
    if config.eta > info.max_eta:
        raise CommandError(f"η={config.eta} is larger than the {info.max_eta} this firmware was built for")
    if config.system_id not in info.system_ids:
        raise CommandError(f"firmware {info.fw_version!r} on {info.board} does not include system {config.system}")
    device.configure(config.system_id, config.eta, Mode[config.mode.upper()], Likelihood[config.likelihood.upper()],
                     config.params, PriorKind[config.prior_kind.upper()], config.prior_a, config.prior_b)
    header = Header(config, board=info.board, firmware_version=info.fw_version, protocol=info.protocol,
                    real_bytes=info.real_bytes, cycle_source=CYCLE_SOURCES.get(info.cycle_source, "unknown"),
                    trace=trace_path, trace_steps=len(trace))
    cp, cu, fallbacks = [], [], 0
    with open_writer(output, header) as out, \
            tqdm(total=len(trace), unit="step", file=sys.stderr, disable=(None if progress is None else not progress),
                 desc="stream", leave=False) as bar:
        for i in range(len(trace)):
            k = int(trace.k[i])
            try:
                post = device.step(k, i > 0, float(trace.u[i]), float(trace.z[i]))
            except (LinkError, ProtocolError) as exc:
                raise CommandError(f"{_lost(qemu, exc)} at step k={k}; the dump {output} keeps the "
                                   f"{out.count} step(s) before it") from None
            x = None if trace.x is None else float(trace.x[i])
            out.write(StepRecord(k, float(trace.u[i]), float(trace.z[i]), x, post.status, post.mean, post.var,
                                 tuple(post.x), tuple(post.w), post.cycles_predict, post.cycles_update))
            cp.append(post.cycles_predict)
            cu.append(post.cycles_update)
            fallbacks += post.status == Status.FALLBACK
            bar.update()
    # Step 0 only updates: its predict count is not a predict and stays out of the statistics.
    return StreamSummary(len(cu), fallbacks, np.array(cp[1:], dtype=np.int64), np.array(cu, dtype=np.int64),
                         CYCLE_UNITS.get(header.cycle_source, header.cycle_source), device.resends)


def _lost(qemu, exc) -> str:
    """Why the device went quiet: the emulator's own end when we started it, else the link's words."""
    from ..link import DeviceError

    if qemu is None or isinstance(exc, DeviceError):  # a device that answers with ERROR is alive
        return str(exc)
    try:  # QEMU may still be closing its side of the socket: give it a moment to be seen exiting
        code = qemu.process.wait(timeout=1.0)
    except subprocess.TimeoutExpired:
        return str(exc)
    return f"QEMU ({qemu.board}) {qemu_end(code, qemu.stderr())}"


def qemu_end(code: int, stderr: str) -> str:
    """'was killed by SIGKILL' or 'exited with code N: <its last error line>'."""
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    # QEMU warns about unused devices on every start; an error line is what tells why it stopped.
    said = [line for line in stderr.strip().splitlines() if "warning:" not in line]
    return f"exited with code {code}" + (f": {said[-1]}" if said else "")
