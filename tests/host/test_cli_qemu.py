"""The CLI against the real firmware in QEMU: stream + validate on every QEMU board, `uxhost qemu`, and an
emulator that dies in the middle of a run."""

import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import uxemu
from uxhost import qemu
from uxhost.cli import main
from uxhost.errors import ToolError
from uxhost.streaming import stream_trace
from uxhost.config import ModelConfig
from uxhost.dump import load_dump
from uxhost.link import Device
from uxhost.protocol import Status
from qemu_image import qemu_image

pytestmark = pytest.mark.qemu


def uxhost_as_from_a_terminal(*args):
    """`python -m uxhost ARGS` with SIGINT at its default, as a terminal's Ctrl-C finds it: a test runner
    started in the background (`cmd &` in a script) passes SIGINT on as ignored, and Python then installs no
    KeyboardInterrupt handler."""
    return subprocess.Popen(
        [sys.executable, "-m", "uxhost", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


def write_trace(path, system, steps, seed, missing=()):
    """A simulated trace; the rows in `missing` lose their observation (an empty z field)."""
    trace = uxemu.simulate_many(uxemu.systems.get(system), 1, steps, seed)[0]
    trace.z[list(missing)] = np.nan
    trace.to_csv(path)
    return path


def real_bytes_of(board):
    """4 for a float build (-DUX_REAL_FLOAT in its board.mk), 8 for the double build."""
    return 4 if "-DUX_REAL_FLOAT" in (qemu._board_var(board, "BOARD_DEFS") or "") else 8


@pytest.mark.parametrize("board", qemu.boards())
def test_stream_to_a_booted_board_then_validate(board, tmp_path, capsys):
    qemu_image(board)
    system, eta = ("gss" if real_bytes_of(board) == 8 else "sv"), 8  # η = 8 fits every board
    missing = (4, 5, 11)  # samples lost on the way: predict-only steps, marked in the dump
    trace = write_trace(tmp_path / "t.csv", system, 15, 3, missing)
    out = tmp_path / "d.npz"
    # Mixture mode (protocol 6) on every board: the device runs it, validate replays it in the reference.
    code = main(
        [
            "stream",
            str(trace),
            "--board",
            board,
            "--system",
            system,
            "--eta",
            str(eta),
            "--mode",
            "mixture",
            "-o",
            str(out),
        ]
    )
    stdout, err = capsys.readouterr()
    assert code == 0, err
    # Resends may happen on a loaded machine (a slow answer is resent, answered from memory): not counted.
    assert re.search(r"15 steps, 0 fallback\(s\), 3 without observation, \d+ resent request\(s\)", stdout), stdout
    assert "virtual cycles (icount)" in stdout
    dump = load_dump(out)
    assert dump.header.board == board and dump.header.cycle_source == "qemu-icount"
    assert dump.header.real_bytes == real_bytes_of(board)
    assert dump.header.config.mode == "mixture"
    assert all(s.cycles_update > 0 for s in dump.steps) and all(s.cycles_predict > 0 for s in dump.steps[1:])
    marked = [i for i, s in enumerate(dump.steps) if s.status == Status.NO_EVIDENCE and np.isnan(s.z)]
    assert marked == list(missing)

    code = main(["validate", str(out), "--trace", str(trace)])
    stdout, _ = capsys.readouterr()
    assert code == 0, stdout
    assert "on every step: OK" in stdout and "RMSE" in stdout
    assert "3 step(s) without observation" in stdout
    assert main(["validate", str(out), "--exact"]) == 0, capsys.readouterr().out  # every bit, on every board


@pytest.mark.parametrize("board", ["mps2-an500", "mps2-an386"])
def test_a_diffuse_prior_is_refocused_on_the_device(board, tmp_path, capsys):
    # A prior 1,000 times the observation noise in mixture mode (refined takes the linear update): the device's
    # first update refocuses, the answer says so (status REFOCUSED on the wire), the summary counts it, the dump
    # keeps it, and validate replays it.
    qemu_image(board)
    trace = write_trace(tmp_path / "t.csv", "lg", 6, 2)
    out = tmp_path / "d.npz"
    code = main(
        [
            "stream",
            str(trace),
            "--board",
            board,
            "--system",
            "lg",
            "--eta",
            "8",
            "--mode",
            "mixture",
            "--prior",
            "gaussian:0,1000",
            "-o",
            str(out),
        ]
    )
    stdout, err = capsys.readouterr()
    assert code == 0, err
    assert "1 update(s) refocused" in stdout, stdout
    assert [s.status for s in load_dump(out).steps] == [Status.REFOCUSED] + [Status.OK] * 5
    code = main(["validate", str(out), "--trace", str(trace)])
    stdout, _ = capsys.readouterr()
    assert code == 0 and "on every step: OK" in stdout, stdout
    assert "1 update(s) refocused onto the likelihood's region" in stdout, stdout
    assert main(["validate", str(out), "--exact"]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("board", ["mps2-an500", "netduinoplus2"])
def test_an_outlier_is_flagged_on_the_device(board, tmp_path, capsys):
    # One reading 8 r off (ν²/S = 35.5 > 5²): the device's update answers OUTLIER (the innovation gate), the summary
    # counts it, the dump keeps it, and validate replays it — on a double and a float board.
    qemu_image(board)
    path = tmp_path / "t.csv"
    trace = uxemu.simulate_many(uxemu.systems.get("lg"), 1, 12, 3)[0]
    trace.z[7] += 8.0
    trace.to_csv(path)
    out = tmp_path / "d.npz"
    code = main(["stream", str(path), "--board", board, "--system", "lg", "--eta", "8", "-o", str(out)])
    stdout, err = capsys.readouterr()
    assert code == 0, err
    assert "1 observation(s) failed the innovation gate" in stdout, stdout
    statuses = [s.status for s in load_dump(out).steps]
    assert statuses[7] == Status.OUTLIER and statuses.count(Status.OUTLIER) == 1, statuses
    code = main(["validate", str(out), "--trace", str(path)])
    stdout, _ = capsys.readouterr()
    assert code == 0 and "on every step: OK" in stdout, stdout
    assert "1 observation(s) failed the innovation gate (status OUTLIER)" in stdout, stdout
    assert main(["validate", str(out), "--exact"]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("board", ["mps2-an500", "netduinoplus2"])
def test_inconsistent_innovations_are_flagged_on_the_device(board, tmp_path, capsys):
    # From step 8 on the readings swing 4 r either side of the truth: most pass the gate, but the running mean of
    # the test ratios passes 3 and the updates that would be OK answer INCONSISTENT; summary, dump and validate
    # say so, on a double and a float board, and the reference agrees bit for bit.
    qemu_image(board)
    path = tmp_path / "t.csv"
    trace = uxemu.simulate_many(uxemu.systems.get("lg"), 1, 20, 3)[0]
    trace.z[8:] += 4.0 * (-1.0) ** np.arange(12)
    trace.to_csv(path)
    out = tmp_path / "d.npz"
    code = main(["stream", str(path), "--board", board, "--system", "lg", "--eta", "8", "-o", str(out)])
    stdout, err = capsys.readouterr()
    assert code == 0, err
    statuses = [s.status for s in load_dump(out).steps]
    assert statuses[:8] == [Status.OK] * 8 and statuses.count(Status.INCONSISTENT) >= 5, statuses
    assert f"{statuses.count(Status.INCONSISTENT)} update(s) after innovations larger" in stdout, stdout
    code = main(["validate", str(out), "--trace", str(path)])
    stdout, _ = capsys.readouterr()
    assert code == 0 and "(status INCONSISTENT)" in stdout, stdout
    assert main(["validate", str(out), "--exact"]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("sig, code", [(signal.SIGINT, 0), (signal.SIGTERM, 128 + signal.SIGTERM)])
def test_qemu_command_serves_until_stopped(sig, code, tmp_path):
    qemu_image("mps2-an500")
    proc = uxhost_as_from_a_terminal("qemu", "--board", "mps2-an500")
    try:
        url = proc.stdout.readline().strip()
        assert re.fullmatch(r"socket://127\.0\.0\.1:\d+", url), url
        pid = int(re.search(r"pid (\d+)", proc.stderr.readline()).group(1))
        with Device.open(url, timeout=10) as dev:
            info = dev.hello()
        assert info.board == "mps2-an500" and info.real_bytes == 8
        proc.send_signal(sig)
        assert proc.wait(timeout=20) == code
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    # QEMU is gone, not left behind as an orphan.
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_qemu_dies_with_a_host_killed_by_sigkill():
    """A host that cannot clean up (SIGKILL, or a test runner's timeout) still leaves no QEMU behind."""
    qemu_image("mps2-an500")
    proc = subprocess.Popen(
        [sys.executable, "-m", "uxhost", "qemu", "--board", "mps2-an500"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        proc.stdout.readline()
        pid = int(re.search(r"pid (\d+)", proc.stderr.readline()).group(1))
        os.kill(pid, 0)  # QEMU runs
    finally:
        proc.kill()
        proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def stream_killed_at(board, elf, trace, cfg, out, step, trace_path=None) -> ToolError:
    """Streams `trace` to a fresh QEMU of `board` whose process is killed just before STEP number `step`
    (0-based); returns the ToolError the stream ends with."""
    with qemu.boot(board, elf) as instance:

        class KilledAtStep(Device):
            steps = 0

            def step(self, *args, **kwargs):
                if self.steps == step:
                    instance.process.kill()
                self.steps += 1
                return super().step(*args, **kwargs)

        device = Device.open(instance.url, timeout=1.0)
        device.__class__ = KilledAtStep
        with device, pytest.raises(ToolError) as exc:
            stream_trace(device, trace, cfg, out, trace_path=trace_path, qemu=instance)
    return exc.value


def test_emulator_dying_mid_run_is_one_clear_error(tmp_path):
    elf = qemu_image("mps2-an500")
    trace = uxemu.simulate_many(uxemu.systems.get("gss"), 1, 10, 1)[0]
    cfg = ModelConfig("gss", (3.0, 1.0), 4, "refined", "kernel", "gaussian", 0.0, 5.0)
    out = tmp_path / "d.jsonl"

    error = stream_killed_at("mps2-an500", elf, trace, cfg, out, 3)
    assert str(error) == (
        f"QEMU (mps2-an500) was killed by SIGKILL at step k=3; " f"the dump {out} keeps the 3 step(s) before it"
    )
    assert [s.k for s in load_dump(out).steps] == [0, 1, 2]


def test_missing_image_asks_for_make_firmware(tmp_path, capsys):
    trace = write_trace(tmp_path / "t.csv", "gss", 3, 1)
    for argv in (
        [
            "stream",
            str(trace),
            "--board",
            "mps2-an500",
            "--elf",
            str(tmp_path / "none.elf"),
            "-o",
            str(tmp_path / "d.jsonl"),
        ],
        ["qemu", "--elf", str(tmp_path / "none.elf")],
        ["demo", "--out", str(tmp_path / "demo"), "--elf", str(tmp_path / "none.elf")],
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.strip().endswith(f"error: firmware image {tmp_path / 'none.elf'} does not exist")


def test_qemu_command_reports_an_emulator_that_dies(tmp_path):
    qemu_image("mps2-an500")
    proc = subprocess.Popen(
        [sys.executable, "-m", "uxhost", "qemu"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        proc.stdout.readline()
        pid = int(re.search(r"pid (\d+)", proc.stderr.readline()).group(1))
        os.kill(pid, signal.SIGKILL)
        assert proc.wait(timeout=20) == 2
        assert proc.stderr.read().strip() == "uxhost qemu: error: QEMU (mps2-an500) was killed by SIGKILL"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_ctrl_c_during_a_stream_keeps_the_dump_and_stops_qemu(tmp_path):
    qemu_image("mps2-an500")
    trace = write_trace(tmp_path / "t.csv", "gss", 2000, 1)
    out = tmp_path / "d.npz"
    journal = tmp_path / "d.npz.partial.jsonl"
    proc = uxhost_as_from_a_terminal("stream", str(trace), "--board", "mps2-an500", "--eta", "8", "-o", str(out))
    try:
        deadline = time.monotonic() + 30
        while not (journal.exists() and journal.read_text().count("\n") >= 4):
            assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
            time.sleep(0.05)
        children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=20) == 130
        assert proc.stderr.read().strip().endswith("uxhost stream: interrupted")
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    dump = load_dump(out)
    assert 3 <= len(dump) < 2000 and [s.k for s in dump.steps] == list(range(len(dump)))
    assert not journal.exists()
    for pid in map(int, children):  # QEMU was stopped, not orphaned
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)


def test_an_image_for_another_board_is_refused_before_booting(tmp_path, capsys):
    elf = qemu_image("mps2-an500")
    trace = write_trace(tmp_path / "t.csv", "gss", 3, 1)
    code = main(["stream", str(trace), "--board", "mps2-an386", "--elf", str(elf), "-o", str(tmp_path / "d.jsonl")])
    _, err = capsys.readouterr()
    assert code == 2
    assert f"{elf} was built for board mps2-an500, not mps2-an386" in err
    assert not (tmp_path / "d.jsonl").exists()


def test_a_device_of_another_board_is_refused_before_configure(tmp_path, capsys):
    trace = write_trace(tmp_path / "t.csv", "gss", 3, 1)
    with qemu.boot("mps2-an500", qemu_image("mps2-an500")) as instance:
        code = main(
            [
                "stream",
                str(trace),
                "--port",
                instance.url,
                "--expect-board",
                "mps2-an386",
                "-o",
                str(tmp_path / "d.jsonl"),
            ]
        )
        _, err = capsys.readouterr()
        assert code == 2
        assert "is a mps2-an500" in err and "not the mps2-an386 asked for: nothing was configured" in err
        with Device.open(instance.url, timeout=5) as device:  # the device is untouched and still serves
            assert device.hello().board == "mps2-an500"


@pytest.mark.parametrize("board", ["mps2-an500", "mps2-an386"])
def test_killed_emulator_then_resume_equals_an_uninterrupted_run(board, tmp_path, capsys):
    # QEMU is killed at step 14 of 40; `stream --resume` boots a fresh one, replays the 14 recorded steps
    # (each must come back bit for bit) and goes on. The dump then equals an uninterrupted run's.
    elf = qemu_image(board)
    system = "gss" if real_bytes_of(board) == 8 else "sv"
    trace_path = write_trace(tmp_path / "t.csv", system, 40, 4, missing=(20,))
    whole = tmp_path / "whole.jsonl"
    assert main(["stream", str(trace_path), "--board", board, "--eta", "8", "-o", str(whole)]) == 0

    spec = uxemu.systems.SPECS[system]
    cfg = ModelConfig(system, spec.defaults, 8, "refined", "kernel", *spec.prior)
    out = tmp_path / "cut.jsonl"
    error = stream_killed_at(board, elf, uxemu.Trace.from_csv(trace_path), cfg, out, 14, str(trace_path))
    assert "keeps the 14 step" in str(error)
    capsys.readouterr()

    assert main(["stream", str(trace_path), "--board", board, "--resume", str(out)]) == 0
    stdout, _ = capsys.readouterr()
    assert "resumed: 14 recorded step(s) replayed" in stdout
    resumed, reference = load_dump(out), load_dump(whole)
    assert resumed.header.resumed_at == (14,)
    assert [(s.k, math.isnan(s.z), s.posterior()) for s in resumed.steps] == [
        (s.k, math.isnan(s.z), s.posterior()) for s in reference.steps
    ]
