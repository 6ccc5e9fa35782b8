"""The watchdog and the reset cause INFO reports, on the real firmware in QEMU.

Where QEMU models the board's watchdog (QEMU_WATCHDOG in its board.mk: the CMSDK APB watchdog of the MPS2
machines), a board made to hang through QEMU's GDB server resets by itself and then says why; a request
longer than two of the watchdog's counter periods does not trip it. QEMU runs these without -no-reboot,
so that the board's reset reboots it instead of ending QEMU.

The hang lasts the board's whole timeout (BOARD_WATCHDOG_MS, 900 s) of virtual time: at -icount shift=10
(1.024 µs an instruction) that is 0.88·10^9 instructions of a spin loop, 16 times fewer than at the
default shift.
"""

import subprocess

import pytest
from fwutil import BOARDS
from fwutil import CUBIC, board_setting, configure_args

from uxhost import link, qemu
from uxhost import protocol as p

pytestmark = pytest.mark.qemu

HANG_SHIFT = 10
WATCHDOG_BOARDS = [b for b in BOARDS if qemu.board_var(b, "QEMU_WATCHDOG")]
CMSDK_PERIOD_MAX_S = 2**32 / 25e6  # the longest period of the CMSDK watchdog's 32-bit counter at 25 MHz


def gdb(instance, *commands: str) -> str:
    """Runs GDB commands against the board's GDB server (halting it), then detaches, which lets it run."""
    args = ["gdb-multiarch", "-q", "-nx", "-batch", "-ex", f"target remote {instance.gdb_address}"]
    for command in (*commands, "detach"):
        args += ["-ex", command]
    done = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def symbol(image, name: str) -> int:
    """The address of a function of the image (arm-none-eabi-nm)."""
    listing = subprocess.run(["arm-none-eabi-nm", str(image)], capture_output=True, text=True, check=True).stdout
    found = [int(line.split()[0], 16) for line in listing.splitlines() if line.split()[-1] == name]
    assert len(found) == 1, f"{name} in {image}: {found}"
    return found[0] & ~1


def wait_for_info(dev, rounds: int = 60) -> p.Info:
    """INFO once the board answers again (a reset drops nothing on the host side of the link)."""
    for _ in range(rounds):
        try:
            return dev.hello(timeout=5)
        except link.DeviceTimeout:
            continue
    raise AssertionError(f"the board did not answer HELLO for {rounds * 5} s")


@pytest.fixture
def debug_boot(image, board):
    """A function that boots `board` with a GDB server beside the image and reboots allowed."""
    if subprocess.run(["which", "gdb-multiarch"], capture_output=True).returncode != 0:
        pytest.skip("gdb-multiarch is missing (make deps)")
    opened = []

    def start(icount_shift=qemu.DEFAULT_ICOUNT_SHIFT):
        instance = qemu.boot(board, image, icount_shift=icount_shift, debug=True, reboot=True)
        device = link.Device.open(instance.url, timeout=10)
        opened.append((instance, device))
        return instance, device

    yield start
    for instance, device in opened:
        device.close()
        instance.close()


def test_a_boot_reports_the_cause_qemu_gives(dev, board):
    expected = p.ResetCause[board_setting(board, "QEMU_RESET_CAUSE").upper()]
    assert dev.hello().reset_cause == expected


@pytest.mark.parametrize("board", WATCHDOG_BOARDS, indirect=True)
def test_a_hung_board_resets_and_reports_the_watchdog(debug_boot, image, board):
    instance, dev = debug_boot(HANG_SHIFT)
    assert dev.hello().reset_cause == p.ResetCause.POWER_ON
    dev.configure(**configure_args(CUBIC, 4))
    # The CPU jumps into the fault handlers' endless loop in thread mode: nothing kicks the watchdog again.
    gdb(instance, f"set $pc = {symbol(image, 'Default_Handler'):#x}")
    info = wait_for_info(dev)
    assert instance.alive(), instance.stderr()
    assert info.reset_cause == p.ResetCause.WATCHDOG and info.board == board
    # It really started again: the configuration is gone, and it works.
    with pytest.raises(link.DeviceError, match="ERR_NOT_CONFIGURED"):
        dev.step(0, False, 0.0, 1.0)
    dev.configure(**configure_args(CUBIC, 4))
    assert dev.step(0, False, 0.0, 1.0).status == p.Status.OK
    assert dev.hello().reset_cause == p.ResetCause.WATCHDOG  # until the next reset


@pytest.mark.parametrize("board", WATCHDOG_BOARDS, indirect=True)
def test_a_reset_nobody_records_is_unknown(debug_boot, board):
    # The cause lives in RAM that QEMU's reset leaves alone: the boot left "unknown" there for a reset
    # that no handler records, like this one from QEMU's monitor.
    instance, dev = debug_boot()
    assert dev.hello().reset_cause == p.ResetCause.POWER_ON
    gdb(instance, "monitor system_reset")
    assert wait_for_info(dev).reset_cause == p.ResetCause.UNKNOWN
    assert instance.alive(), instance.stderr()


@pytest.mark.parametrize("board", WATCHDOG_BOARDS, indirect=True)
def test_a_request_longer_than_the_watchdogs_period_completes(debug_boot, board):
    # A cubic η = 32 step with the sampler likelihood in mixture mode (its update works on η² predicted
    # atoms, then on the density's 129 nodes, each a lift of η² noise points) at shift=10: about 380 s of
    # virtual time, more than two of the counter's longest periods and less than the board's 900 s
    # timeout, so the watchdog's interrupt restarts it during the request; the board answers and has not
    # reset.
    _, dev = debug_boot(HANG_SHIFT)
    dev.configure(**configure_args(CUBIC, 32, mode=p.Mode.MIXTURE, likelihood=p.Likelihood.SAMPLER))
    dev.step(0, False, 0.0, 1.0)
    post = dev.step(1, True, 0.0, 1.0, timeout=300)
    seconds = (post.cycles_predict + post.cycles_update) / qemu.cpu_hz(board)
    assert 2 * CMSDK_PERIOD_MAX_S < seconds < float(board_setting(board, "BOARD_WATCHDOG_MS")) / 1000, seconds
    assert post.status == p.Status.OK and post.count == 32
    assert dev.hello().reset_cause == p.ResetCause.POWER_ON
