"""Fixtures for the tests that boot the real firmware in QEMU, for every QEMU board under boards/.

One QEMU per board serves a whole test session (booting is cheap, but a link costs a TCP handshake and
pyserial's close is slow); every test starts from a clean device: frame boundary resynchronised, stale
answers drained, filter reset. Tests that need a fresh boot ask for `boot`.
"""

import pytest
from fwutil import BOARDS, build_image, resync

from uxhost import link, qemu


@pytest.fixture(scope="session", params=BOARDS)
def board(request):
    return request.param


@pytest.fixture(scope="session")
def image(board):
    return build_image(board)


@pytest.fixture(scope="session")
def shared_qemu(board, image):
    with qemu.boot(board, image) as instance:
        yield instance


@pytest.fixture(scope="session")
def shared_device(shared_qemu):
    with link.Device.open(shared_qemu.url, timeout=10) as device:
        yield device


@pytest.fixture
def dev(shared_device, shared_qemu):
    resync(shared_device)
    yield shared_device
    assert shared_qemu.alive(), f"QEMU exited: {shared_qemu.stderr()}"


@pytest.fixture
def boot(board, image):
    """A function that boots a fresh QEMU for `board` (optionally at another -icount shift) and returns a
    Device on it; all are closed after the test."""
    instances = []

    def start(icount_shift=qemu.DEFAULT_ICOUNT_SHIFT):
        instance = qemu.boot(board, image, icount_shift=icount_shift)
        device = link.Device.open(instance.url, timeout=10)
        instances.append((instance, device))
        return device

    yield start
    for instance, device in instances:
        device.close()
        instance.close()
