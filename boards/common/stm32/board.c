/*
 * board.c — an STM32 part whose host link is one USART (SR/DR layout). The part's numbers come from
 * stm32_board.h in the board's own folder: which USART, its RCC enable bit and APB bus, the clock set-up's
 * parameters (clock.h).
 *
 * Clock: board_init runs the clock set-up first; the USART's baud divisor comes from the APB clock it
 * reached, and the watchdog's arithmetic below from the core clock it reached (INFO's core_hz).
 *
 * Watchdog: the IWDG resets the chip at most 33 s after its last refresh (iwdg.h), far less than the
 * longest request (boards/README.md), so SysTick's handler stretches it: each kick grants
 * `wraps_granted` SysTick wraps (2^24 core cycles: 0.0999 s at 168 MHz, 1.05 s at 16 MHz), during
 * which the handler refreshes the IWDG; once they are spent it stops, and the IWDG resets the chip. A core
 * that no longer takes interrupts stops refreshing at once. QEMU models no IWDG (hw/arm/stm32f405_soc.c:
 * an unimplemented device): there this code runs, but nothing resets.
 */
#include "board.h"
#include "clock.h"
#include "dwt_cycles.h"
#include "gpio.h"
#include "iwdg.h"
#include "rcc.h"
#include "stm32_board.h"
#include "systick_cycles.h"
#include "usart.h"

#ifndef BOARD_NAME
#error "board.mk defines BOARD_NAME"
#endif

#define SYSTICK_WRAP_CYCLES (1ull << 24) /* SysTick counts core cycles (systick_cycles.c) */

const char board_name[] = BOARD_NAME;

static uint8_t reset_cause;
static uint32_t wraps_granted; /* SysTick wraps a kick allows; 0 until the watchdog starts */
static volatile uint32_t wraps_left; /* of those, not spent yet */

void board_init(void)
{
    reset_cause = stm32_rcc_reset_cause();
    (void)stm32_clock_init();
#ifdef HOST_PINS_GPIO_BASE
    /* Real silicon: the USART reaches the ST-LINK's virtual COM port through two alternate-function
     * pins (QEMU's machines route the USART without them, so their boards leave this out). */
    stm32_rcc_enable(STM32_RCC_AHB1ENR, HOST_PINS_GPIO_RCC_BIT);
    stm32_gpio_alternate(HOST_PINS_GPIO_BASE, HOST_TX_PIN, HOST_PINS_AF);
    stm32_gpio_alternate(HOST_PINS_GPIO_BASE, HOST_RX_PIN, HOST_PINS_AF);
#endif
    stm32_rcc_enable(HOST_USART_RCC_ENR, HOST_USART_RCC_BIT);
    stm32_usart_init(HOST_USART_BASE, stm32_clock_apb_hz(HOST_USART_APB), HOST_BAUD);
    cycles_select();
    board_cycles_restart();
}

uint32_t board_core_hz(void) { return stm32_clock_core_hz(); }

uint8_t board_reset_cause(void) { return reset_cause; }

uint8_t board_getc(void)
{
    uint8_t byte;
    while (!stm32_usart_try_getc(HOST_USART_BASE, &byte)) {
        board_watchdog_kick(); /* waiting for the host is not a hang */
        /* Asleep until the byte comes: an idle board costs QEMU no CPU (and a real one less power).
         * SysTick's wrap, every 2^24 cycles, wakes it and refreshes the IWDG (systick_wrapped). */
        stm32_usart_wait_rx(HOST_USART_BASE, HOST_USART_IRQ);
    }
    return byte;
}

void board_write(const uint8_t *data, size_t len) { stm32_usart_write(HOST_USART_BASE, data, len); }

void board_watchdog_start(uint32_t ms)
{
    /* ⌈ms · f / (1000 · 2^24)⌉ wraps at the core clock f the set-up reached; at most 2^32 − 1. */
    uint64_t per_wrap = 1000u * SYSTICK_WRAP_CYCLES;
    uint64_t wraps = ((uint64_t)ms * stm32_clock_core_hz() + per_wrap - 1u) / per_wrap;
    wraps_granted = wraps > UINT32_MAX ? UINT32_MAX : (uint32_t)wraps;
    wraps_left = wraps_granted;
    stm32_iwdg_start();
}

/* Refreshing an IWDG that has not started does nothing (only KEY_START starts it). */
void board_watchdog_kick(void)
{
    wraps_left = wraps_granted;
    stm32_iwdg_refresh();
}

/* At every SysTick wrap, inside measurements too: kept to a handful of instructions. */
void systick_wrapped(void)
{
    if (wraps_left > 0u) {
        wraps_left--;
        stm32_iwdg_refresh();
    }
}
