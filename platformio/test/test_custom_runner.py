"""`pio test` for the ux-filter envs (test_framework = custom).

The firmware is the env's own image, built as `pio run` builds it. Testing boots it in QEMU on the board's
machine, streams a simulated trace through the serial link, and validates every posterior against the
reference — what `uxhost stream` and `uxhost validate` do, reported as PlatformIO test cases. Nothing is
uploaded: QEMU boots the ELF. Runs in the project's venv, where uxemu and uxhost are installed.
"""
import os
import tempfile
from pathlib import Path

import click
from platformio.public import TestCase, TestRunnerBase, TestStatus

SYSTEM, STEPS, SEED, ETA = "gss", 20, 7, 8


class CustomTestRunner(TestRunnerBase):
    def stage_building(self):
        if self.options.without_building:
            return None
        click.secho("Building...", bold=True)
        return self.run_project_targets([])

    def stage_uploading(self):
        return None  # QEMU boots the image directly

    def stage_testing(self):
        if self.options.without_testing:
            return None
        click.secho("Testing...", bold=True)
        from uxemu import simulate_many
        from uxhost import qemu
        from uxhost.config import find_spec, resolve, table_specs
        from uxhost.dump import load_dump
        from uxhost.link import Device
        from uxhost.streaming import stream_trace
        from uxhost.validate import compare

        env = self.test_suite.env_name
        board = self.project_config.get(f"env:{env}", "custom_ux_board", env)
        build_dir = Path(self.project_config.get("platformio", "build_dir"))
        elf = build_dir / env / "firmware.elf"
        config = resolve(find_spec(table_specs(), SYSTEM), eta=ETA)
        with tempfile.TemporaryDirectory() as tmp:
            trace = simulate_many(config.model(), 1, STEPS, SEED)[0]
            dump_path = os.path.join(tmp, "dump.jsonl")
            with qemu.boot(board, elf) as instance, Device.open(instance.url, timeout=10) as device:
                info = device.hello()
                self._case("board reports itself", info.board == board,
                           f"INFO says {info.board!r}, the env builds {board!r}")
                summary = stream_trace(device, trace, config, dump_path, progress=False)
            self._case(f"stream {STEPS} steps of {SYSTEM}", summary.steps == STEPS,
                       f"{summary.steps} of {STEPS} steps answered")
            cmp = compare(load_dump(dump_path))
            self._case("posteriors equal the reference", cmp.ok,
                       f"largest relative difference {cmp.largest:.3e} (tolerance {cmp.policy.describe()})")

    def _case(self, name, ok, message):
        click.echo(f"{name}: {'PASSED' if ok else 'FAILED'} ({message})")
        self.test_suite.add_case(TestCase(name=name, status=TestStatus.PASSED if ok else TestStatus.FAILED,
                                          message=message))
