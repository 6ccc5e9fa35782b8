"""The end-to-end demonstration behind `make demo`: simulate a Gordon–Salmond–Smith trace, filter it on
the firmware in QEMU, validate every posterior against the reference and draw the result."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .config import ModelConfig, find_spec, resolve, table_specs
from .dump import load_dump
from .qemu import DEFAULT_BOARD, find_firmware
from .traces import load_trace

SYSTEM = "gss"
STEPS = 50
SEED = 2026


@dataclass
class DemoResult:
    out_dir: Path
    steps: int
    board: str
    firmware_version: str
    real_bytes: int
    reset_cause: str
    fallbacks: int
    max_rel: float
    tolerance: str
    ok: bool
    first_bad: tuple | None
    rmse: float
    nll: float
    crps: float
    cycles_per_step: np.ndarray  # predict + update of each step after the first
    cycle_unit: str

    def lines(self, config: ModelConfig, seed: int) -> list[str]:
        c = self.cycles_per_step
        verdict = "OK" if self.ok else f"FAILED at step k={self.first_bad[0]} ({self.first_bad[1]})"
        out = [
            f"ux-filter demo: Gordon-Salmond-Smith, {self.steps} steps (seed {seed}), η={config.eta}, "
            f"{config.mode}, {config.likelihood} likelihood",
            f"  device     {self.board} in QEMU, firmware {self.firmware_version} ({self.real_bytes}-byte reals), "
            f"last reset: {self.reset_cause}",
            f"  filtered   {self.steps} steps, {self.fallbacks} fallback(s)",
            f"  reference  largest relative difference {self.max_rel:.3e} (tolerance {self.tolerance}): {verdict}",
            f"  accuracy   RMSE {self.rmse:.4g}, NLL {self.nll:.4g}, CRPS {self.crps:.4g} (vs the true state)",
        ]
        if c.size:
            out.append(
                f"  latency    {self.cycle_unit} per step (predict + update): median {np.median(c):,.0f}, "
                f"min {c.min():,}, max {c.max():,}"
            )
        out.append(
            f"  written    {self.out_dir / 'trace.csv'}, {self.out_dir / 'dump.jsonl'}, " f"{self.out_dir / 'plot.png'}"
        )
        return out


def demo_config(eta: int = 16) -> ModelConfig:
    return resolve(find_spec(table_specs(), SYSTEM), eta=eta)


def run_demo(
    out_dir: Path,
    board: str = DEFAULT_BOARD,
    elf: Path | None = None,
    steps: int = STEPS,
    seed: int = SEED,
    eta: int = 16,
    timeout: float = 10.0,
) -> tuple[DemoResult, ModelConfig]:
    from uxemu import simulate_many

    from . import qemu
    from .streaming import stream_trace
    from .link import Device
    from .plot import plot_dump
    from .validate import accuracy, compare

    image = find_firmware(board, elf)  # before any work: a missing image is the likeliest first failure
    config = demo_config(eta)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    trace_path, dump_path, plot_path = out_dir / "trace.csv", out_dir / "dump.jsonl", out_dir / "plot.png"

    simulate_many(config.model(), 1, steps, seed)[0].to_csv(trace_path)
    trace = load_trace(trace_path)  # stream what the file says, exactly as `uxhost stream` would
    with qemu.boot(board, image) as instance, Device.open(instance.url, timeout=timeout) as device:
        summary = stream_trace(device, trace, config, dump_path, trace_path=str(trace_path), qemu=instance)

    dump = load_dump(dump_path)
    cmp = compare(dump)
    acc = accuracy(dump, trace.x)
    plot_dump(dump, plot_path)
    cycles = np.array([s.cycles_predict + s.cycles_update for s in dump.steps[1:]], dtype=np.int64)
    result = DemoResult(
        out_dir,
        len(dump),
        dump.header.board,
        dump.header.firmware_version,
        dump.header.real_bytes,
        dump.header.reset_cause,
        summary.fallbacks,
        cmp.largest,
        cmp.policy.describe(),
        cmp.ok,
        cmp.first_bad,
        acc.rmse,
        acc.nll,
        acc.crps,
        cycles,
        dump.header.cycle_unit,
    )
    return result, config
