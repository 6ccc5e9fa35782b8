"""INFO's core clock from the real firmware under QEMU: each board reports the clock its set-up reached, which
its board.mk states as QEMU_CORE_HZ (boards/README.md, "Clocks"). netduinoplus2 tries the PLL, finds QEMU's
RCC reading 0, and falls back to the 16 MHz HSI after its bounded waits; microbit's crystal reads as started
at once; the MPS2 images have a fixed 25 MHz clock. The rated clock the set-up aims for on the part is
BOARD_CORE_HZ."""

import pytest
from fwutil import board_setting

pytestmark = pytest.mark.qemu


def test_info_reports_the_clock_the_set_up_reached(dev, board):
    info = dev.hello()
    assert info.core_hz == int(board_setting(board, "QEMU_CORE_HZ"))
    assert info.core_hz <= int(board_setting(board, "BOARD_CORE_HZ"))
