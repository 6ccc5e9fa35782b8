"""An idle emulator sleeps: `uxhost qemu` serving a board that waits for its host costs (almost) no CPU, while
a client is connected and after it has gone. The firmware sleeps (WFI) until a byte arrives instead of
polling its UART, and QEMU then idles too.

Measured as the QEMU process's own CPU time (user + system, /proc/PID/stat), not wall time: a loaded machine
can only lower the share a busy emulator gets, never raise an idle one's."""

import os
import re
import signal
import subprocess
import sys
import time

import pytest

from uxhost import qemu
from uxhost.link import Device

pytestmark = pytest.mark.qemu

# Every QEMU board's firmware sleeps while it waits for the host (boards/common/cortex-m/sleep.h). (A real
# micro:bit, whose nRF51 has no SysTick to wake it for its watchdog, polls: boards/microbit/board.c.)
SLEEPING_BOARDS = qemu.boards()
INTERVAL_S = 3.0
BOUND = 0.2  # of the interval: a polling firmware keeps QEMU at 100 % of a core


def cpu_seconds(pid: int) -> float:
    """The process's CPU time so far, user + system, all its threads."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def busy_share(pid: int) -> float:
    """CPU seconds the process used over INTERVAL_S of wall time, as a share of that time."""
    before, started = cpu_seconds(pid), time.monotonic()
    time.sleep(INTERVAL_S)
    return (cpu_seconds(pid) - before) / (time.monotonic() - started)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("board", SLEEPING_BOARDS)
def test_an_idle_emulator_sleeps_with_a_client_and_after_it(board):
    if not qemu.image_path(board).is_file():
        pytest.skip(f"no firmware image for {board} (make firmware)")
    proc = subprocess.Popen(
        [sys.executable, "-m", "uxhost", "qemu", "--board", board],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url = proc.stdout.readline().strip()
        pid = int(re.search(r"pid (\d+)", proc.stderr.readline()).group(1))
        with Device.open(url, timeout=10) as dev:
            dev.hello()
            connected = busy_share(pid)
        after = busy_share(pid)
        with Device.open(url, timeout=10) as dev:  # and it still wakes for the next client
            assert dev.hello().board == board
        assert connected < BOUND and after < BOUND, (connected, after)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
