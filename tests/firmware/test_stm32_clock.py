"""The STM32 clock set-up (boards/common/stm32/clock.c) with each board's stm32_board.h, compiled for this host
and run against a register file mapped at the parts' addresses (RCC, PWR, FLASH, the SCB): the register values
it writes are checked field by field against the reference manuals (RM0090, RM0390, RM0410), where the PLL
becomes ready, where only the HSE fails (the PLL then takes the HSI) and where nothing becomes ready (the
fallback to the HSI, which is what QEMU 7.2 gives netduinoplus2). What this cannot show: that a part locks at
these settings (docs/hardware.md, "Clock")."""

import mmap
import shutil
import subprocess
from dataclasses import dataclass

import pytest

from uxhost import qemu

REPO = qemu.REPO_ROOT
MHZ = 1_000_000
HSI = 16 * MHZ


@dataclass(frozen=True)
class Part:
    """A board's clock as its part's reference manual and the board's user manual give it."""

    hse_hz: int  # the board's HSE: a crystal or the ST-LINK's MCO in bypass
    bypass: bool
    flash_ws: int  # wait states at the rated clock, 2.7–3.6 V
    acr_on: int  # FLASH_ACR enable bits: F4 PRFTEN|ICEN|DCEN, F7 PRFTEN|ARTEN
    vos: int  # PWR_CR scale-1 bits
    overdrive: bool
    apb1_max: int
    apb2_max: int
    l1_caches: bool


F4_ACR = (1 << 8) | (1 << 9) | (1 << 10)
PARTS = {
    "netduinoplus2": Part(25 * MHZ, False, 5, F4_ACR, 1 << 14, False, 42 * MHZ, 84 * MHZ, False),  # RM0090
    "nucleo-f446re": Part(8 * MHZ, True, 5, F4_ACR, 3 << 14, True, 45 * MHZ, 90 * MHZ, False),  # RM0390
    "nucleo-f767zi": Part(8 * MHZ, True, 7, (1 << 8) | (1 << 9), 3 << 14, True, 54 * MHZ, 108 * MHZ, True),  # RM0410
}

HARNESS = r"""
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "clock.h"

#define R(a) (*(volatile uint32_t *)(uintptr_t)(a))

void stm32_rcc_enable(uint32_t enr, uint32_t bit) /* rcc.c's, on the mapped RCC */
{
    R(0x40023800u + enr) |= 1u << bit;
}

static void map(uintptr_t at)
{
    void *p = mmap((void *)at, 0x1000, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p != (void *)at) {
        puts("nomap");
        exit(0);
    }
}

int main(int argc, char **argv)
{
    (void)argc;
    int hse = argv[1][0] == '1', pll = argv[2][0] == '1';
    map(0x40007000u);
    map(0x40023000u);
    map(0xE000E000u);
    R(0x40023804u) = 0x24003010u;                           /* RCC_PLLCFGR's reset value */
    R(0x40023800u) = 0x83u | (hse ? 1u << 17 : 0u) | (pll ? 1u << 25 : 0u); /* HSION, HSIRDY; HSERDY, PLLRDY */
    if (pll) {
        R(0x40007004u) = (1u << 16) | (1u << 17);           /* PWR_CSR ODRDY, ODSWRDY */
        R(0x40023808u) = 0x8u;                              /* RCC_CFGR SWS = PLL once switched */
    }
    R(0xE000ED80u) = (127u << 13) | (3u << 3) | 1u;          /* CCSIDR: 128 sets, 4 ways, 32-byte lines */
    uint32_t hz = stm32_clock_init();
    printf("%u %u %u %u %u %u %u %u %u\n", hz, stm32_clock_apb_hz(1), stm32_clock_apb_hz(2), R(0x40023800u),
           R(0x40023804u), R(0x40023808u) & ~0xCu, R(0x40023C00u), R(0x40007000u), R(0xE000ED14u));
    return 0;
}
"""


def field(value: int, lo: int, bits: int) -> int:
    return (value >> lo) & ((1 << bits) - 1)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None or mmap.PAGESIZE != 0x1000:
        pytest.skip("needs a host C compiler and 4 KiB pages")
    out = tmp_path_factory.mktemp("stm32_clock")
    (out / "harness.c").write_text(HARNESS)
    programs = {}

    def run(board: str, hse: bool, pll: bool) -> list[int]:
        if board not in programs:
            exe = out / board
            core_hz = qemu.board_var(board, "BOARD_CORE_HZ")
            subprocess.run(
                [
                    cc,
                    "-std=c11",
                    "-D_GNU_SOURCE",
                    "-O1",
                    "-Wall",
                    "-Wextra",
                    "-Werror",
                    "-Wno-int-to-pointer-cast",  # the parts' 32-bit addresses as 64-bit pointers
                    f"-DBOARD_CORE_HZ={core_hz}u",
                    f"-I{REPO / 'boards' / board}",
                    f"-I{REPO / 'boards/common/stm32'}",
                    f"-I{REPO / 'firmware/app'}",
                    str(out / "harness.c"),
                    str(REPO / "boards/common/stm32/clock.c"),
                    "-o",
                    str(exe),
                ],
                check=True,
            )
            programs[board] = exe
        text = subprocess.run(
            [str(programs[board]), "1" if hse else "0", "1" if pll else "0"],
            check=True,
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
        if text.strip() == "nomap":
            pytest.skip("the parts' addresses cannot be mapped in this process")
        return [int(v) for v in text.split()]

    return run


@pytest.mark.parametrize("board", sorted(PARTS))
@pytest.mark.parametrize("hse", [True, False], ids=["hse", "hse-fails"])
def test_the_pll_reaches_the_rated_clock(run, board, hse):
    part, rated = PARTS[board], int(qemu.board_var(board, "BOARD_CORE_HZ"))
    hz, apb1, apb2, cr, pllcfgr, cfgr, acr, pwr_cr, ccr = run(board, hse, True)
    assert hz == rated and apb1 == rated // 4 <= part.apb1_max and apb2 == rated // 2 <= part.apb2_max
    # RCC_PLLCFGR: PLLM 5:0, PLLN 14:6, PLLP 17:16 (0 → /2), PLLSRC 22, PLLQ 27:24; bits outside kept.
    source = part.hse_hz if hse else HSI
    m, n, p, q = field(pllcfgr, 0, 6), field(pllcfgr, 6, 9), 2 * (field(pllcfgr, 16, 2) + 1), field(pllcfgr, 24, 4)
    assert field(pllcfgr, 22, 1) == hse and pllcfgr & 0xF0BC0000 == 0x24003010 & 0xF0BC0000
    assert 1 * MHZ <= source // m <= 2 * MHZ and source % m == 0  # the VCO's input range
    assert 100 * MHZ <= source // m * n <= 432 * MHZ  # the VCO's output range
    assert source // m * n // p == rated and source // m * n // q <= 48 * MHZ
    # RCC_CR: PLL on; HSE on (and bypassed on a Nucleo) only when it became ready.
    assert cr & (1 << 24) and bool(cr & (1 << 16)) == hse and bool(cr & (1 << 18)) == (hse and part.bypass)
    # RCC_CFGR: SW = PLL, AHB /1, APB1 /4 (0b101), APB2 /2 (0b100).
    assert field(cfgr, 0, 2) == 2 and field(cfgr, 4, 4) == 0 and field(cfgr, 10, 3) == 0b101
    assert field(cfgr, 13, 3) == 0b100
    assert field(acr, 0, 4) == part.flash_ws and acr & part.acr_on == part.acr_on
    assert pwr_cr & part.vos == part.vos and bool(pwr_cr & (3 << 16) == 3 << 16) == part.overdrive
    assert bool(ccr & (1 << 16) and ccr & (1 << 17)) == part.l1_caches  # SCB CCR DC, IC


@pytest.mark.parametrize("board", sorted(PARTS))
def test_nothing_ready_leaves_the_hsi(run, board):
    # What QEMU 7.2's unimplemented RCC gives (boards/README.md, "Clocks"): every wait runs out.
    hz, apb1, apb2, cr, _, cfgr, _, pwr_cr, _ = run(board, False, False)
    assert hz == apb1 == apb2 == HSI
    assert field(cfgr, 0, 2) == 0 and cfgr & 0xFCF0 == 0  # SW = HSI, every prescaler /1
    assert not cr & ((1 << 24) | (1 << 16) | (1 << 18))  # PLL and HSE off again
    assert not pwr_cr & (3 << 16)  # over-drive off
