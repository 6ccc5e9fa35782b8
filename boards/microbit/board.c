/*
 * board.c — BBC micro:bit v1 (nRF51822, Cortex-M0): the host link is the nRF51's UART on the pins wired
 * to the interface chip's USB serial port (P0.24 TX, P0.25 RX); cycles from SysTick; the nRF51's WDT and
 * its reset reason (POWER.RESETREAS); the HFCLK on the 16 MHz crystal (nrf51/clock.c). QEMU 7.2 models
 * none of these: the WDT's writes are ignored, and every register of its POWER/CLOCK stub reads 1, so
 * RESETREAS reads as a reset by the pin and the crystal as started (boards/README.md).
 */
#include "board.h"
#include "clock.h"
#include "proto.h"
#include "uart.h"
#include "wdt.h"

#ifndef BOARD_NAME
#error "board.mk defines BOARD_NAME"
#endif

#define TXD_PIN 24u
#define RXD_PIN 25u

const char board_name[] = BOARD_NAME;
/* ARMv6-M has no DWT cycle counter (ARMv6-M ARM §C1.8: only watchpoints); SysTick is an option of the
 * architecture, which QEMU provides on its Cortex-M0. */
uint8_t board_cycle_source = CYCLES_SYSTICK_ICOUNT;

static uint8_t reset_cause;
/* Whether the core has SysTick, whose wrap (every 2^24 cycles, 1.05 s) wakes a sleeping board to feed the
 * watchdog: where it is absent its registers read as zero, and the board polls instead of sleeping,
 * since nothing else would wake it before the WDT's 8 s. */
static int can_sleep;

#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)

void board_init(void)
{
    reset_cause = nrf51_reset_cause();
    (void)nrf51_clock_xtal_start(); /* on the crystal or, if it did not start, the RC: 16 MHz either way */
    nrf51_uart_init(TXD_PIN, RXD_PIN, NRF51_BAUD_115200);
    board_cycles_restart();
    can_sleep = SYST_RVR != 0u; /* the restart wrote a non-zero reload value */
}

/* The CPU's HFCLK is 16 MHz from the crystal or the RC oscillator alike (BOARD_CORE_HZ of board.mk). */
uint32_t board_core_hz(void) { return BOARD_CORE_HZ; }

uint8_t board_reset_cause(void) { return reset_cause; }

uint8_t board_getc(void)
{
    uint8_t byte;
    while (!nrf51_uart_try_getc(&byte)) {
        board_watchdog_kick(); /* waiting for the host is not a hang */
        if (can_sleep) {
            nrf51_uart_wait_rx(); /* asleep until the byte comes: an idle board costs QEMU no CPU */
        }
    }
    return byte;
}

void board_write(const uint8_t *data, size_t len) { nrf51_uart_write(data, len); }

void board_watchdog_start(uint32_t ms) { nrf51_wdt_start(ms); }

void board_watchdog_kick(void) { nrf51_wdt_reload(); }
