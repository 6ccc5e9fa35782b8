"""`pio test` for the ux-filter envs (test_framework = custom).

The firmware is the env's own image, built as `pio run` builds it. Testing streams a simulated trace to it
through the serial link and validates every posterior against the reference — what `uxhost stream` and
`uxhost validate` do, reported as PlatformIO test cases. On an emulated board nothing is uploaded: QEMU boots
the ELF on the board's machine. On a hardware board (the Nucleo envs) the image is uploaded as
`pio run -t upload` does it (`uxhost flash`), and the trace goes through the board's serial port, test_port
(`pio test --test-port`; `uxhost ports` lists them). Runs in the project's venv, where uxemu and uxhost are
installed.
"""

import contextlib
import os
import tempfile
from pathlib import Path

import click
from platformio.public import TestCase, TestRunnerBase, TestStatus
from platformio.test.exception import UnitTestSuiteError

SYSTEM, STEPS, SEED, ETA = "gss", 20, 7, 8


class CustomTestRunner(TestRunnerBase):
    def stage_building(self):
        if self.options.without_building:
            return None
        click.secho("Building...", bold=True)
        return self.run_project_targets([])

    def _board(self):
        env = self.test_suite.env_name
        return self.project_config.get(f"env:{env}", "custom_ux_board", env)

    def _hardware(self):
        from uxhost import qemu

        return not qemu.emulated(self._board())

    def setup(self):
        if self._hardware() and not self.options.without_testing and not self.get_test_port():
            raise UnitTestSuiteError(
                f"{self._board()} is a hardware board: give its serial port, test_port = /dev/ttyACM0 in the env "
                "or `pio test --test-port PORT` (`uxhost ports` lists them)"
            )

    def stage_uploading(self):
        if self.options.without_uploading or not self._hardware():
            return None  # QEMU boots the image directly
        click.secho("Uploading...", bold=True)
        try:
            return self.run_project_targets(["upload"])
        except Exception as exc:  # PlatformIO's ReturnErrorCode; uxhost flash printed why
            raise UnitTestSuiteError("uploading failed (the error above)") from exc

    def stage_testing(self):
        if self.options.without_testing:
            return None
        click.secho("Testing...", bold=True)
        from uxemu import simulate_many
        from uxhost.config import find_spec, resolve, table_specs
        from uxhost.dump import load_dump
        from uxhost.link import Device
        from uxhost.streaming import stream_trace
        from uxhost.validate import compare

        env = self.test_suite.env_name
        board = self._board()
        build_dir = Path(self.project_config.get("platformio", "build_dir"))
        elf = build_dir / env / "firmware.elf"
        config = resolve(find_spec(table_specs(), SYSTEM), eta=ETA)
        with tempfile.TemporaryDirectory() as tmp:
            trace = simulate_many(config.model(), 1, STEPS, SEED)[0]
            dump_path = os.path.join(tmp, "dump.jsonl")
            with self._link(board, elf) as url, Device.open(url, timeout=10) as device:
                info = device.hello()
                self._case(
                    "board reports itself", info.board == board, f"INFO says {info.board!r}, the env builds {board!r}"
                )
                summary = stream_trace(device, trace, config, dump_path, progress=False)
            self._case(
                f"stream {STEPS} steps of {SYSTEM}",
                summary.steps == STEPS,
                f"{summary.steps} of {STEPS} steps answered",
            )
            cmp = compare(load_dump(dump_path))
            self._case(
                "posteriors equal the reference",
                cmp.ok,
                f"largest relative difference {cmp.largest:.3e} (tolerance {cmp.policy.describe()})",
            )

    @contextlib.contextmanager
    def _link(self, board, elf):
        """The serial URL of the env's firmware running: the board's test_port (flashed at the uploading
        stage), or QEMU's, booting the image."""
        from uxhost import qemu

        if self._hardware():
            if not self.get_test_port():
                raise UnitTestSuiteError(f"{board} is a hardware board: give its serial port as test_port")
            yield self.get_test_port()
        else:
            with qemu.boot(board, elf) as instance:
                yield instance.url

    def _case(self, name, ok, message):
        click.echo(f"{name}: {'PASSED' if ok else 'FAILED'} ({message})")
        self.test_suite.add_case(
            TestCase(name=name, status=TestStatus.PASSED if ok else TestStatus.FAILED, message=message)
        )
