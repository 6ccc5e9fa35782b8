/*
 * board.c — the MPS2 FPGA images under QEMU (AN386 Cortex-M4F, AN500 Cortex-M7, …): UART0 is the host
 * link; cycles come from SysTick because QEMU does not implement DWT CYCCNT (it reads 0).
 *
 * Watchdog: the CMSDK APB watchdog at 0x40008000, clocked by the 25 MHz SYSCLK, its interrupt wired to
 * the NMI (hw/arm/mps2.c). One period of its 32-bit counter lasts at most 2^32 / 25 MHz = 172 s, shorter
 * than the longest request (boards/README.md, "Watchdog and reset cause"), so a timeout spans several
 * periods: each kick grants `periods_granted` of them to the NMI handler, which starts a new period while
 * any is left. When none is, the handler records the cause and waits; the next expiry resets the board.
 * The NMI cannot be masked, so a hung core, a fault handler's loop or interrupts left disabled all end
 * in that reset.
 *
 * Reset cause: the MPS2 has no reset-reason register. The NMI handler writes the cause into a word of
 * .noinit, which neither startup.c nor QEMU's reset touches (QEMU reloads the image's segments and zeroes
 * their .bss, nothing else); boot reads it and leaves "unknown" behind for a reset nobody records. RAM
 * that was never written (QEMU's starts zeroed, a real board's after power-up random) holds no record:
 * power-on.
 */
#include "board.h"
#include "proto.h"
#include "uart.h"
#include "watchdog.h"

#ifndef BOARD_NAME
#error "board.mk defines BOARD_NAME"
#endif
#ifndef BOARD_CORE_HZ
#error "board.mk adds -DBOARD_CORE_HZ=… to BOARD_DEFS"
#endif

#define UART0_BASE 0x40004000u
#define UART0_RX_IRQ 0u /* hw/arm/mps2.c: UART0's receive interrupt, its transmit one is 1 */
#define UART_BAUDDIV 16u /* the fastest the CMSDK UART allows; QEMU does not pace it anyway */
#define WATCHDOG_BASE 0x40008000u
#define TICKS_PER_MS (BOARD_CORE_HZ / 1000u) /* WDOGCLK is SYSCLK_FRQ of hw/arm/mps2.c, 25 MHz */
#define PERIOD_MAX_MS (UINT32_MAX / TICKS_PER_MS) /* 171,798 ms */
#define RECORD_MAGIC 0x52535431u /* "RST1": the record below was written by this firmware */

const char board_name[] = BOARD_NAME;
uint8_t board_cycle_source = CYCLES_SYSTICK_ICOUNT;

static struct {
    uint32_t magic;
    uint32_t cause;
} reset_record __attribute__((section(".noinit")));

static uint8_t reset_cause;
static uint32_t periods_granted; /* periods the NMI handler may restart after a kick */
static volatile uint32_t periods_left; /* of those, not used yet */

void NMI_Handler(void);

static void read_reset_record(void)
{
    int recorded = reset_record.magic == RECORD_MAGIC && reset_record.cause <= RESET_CAUSE_LOCKUP;
    reset_cause = recorded ? (uint8_t)reset_record.cause : (uint8_t)RESET_CAUSE_POWER_ON;
    reset_record.cause = RESET_CAUSE_UNKNOWN;
    reset_record.magic = RECORD_MAGIC;
}

void board_init(void)
{
    read_reset_record();
    cmsdk_uart_init(UART0_BASE, UART_BAUDDIV);
    board_cycles_restart();
}

/* The FPGA image's fixed SYSCLK: nothing to set up. */
uint32_t board_core_hz(void) { return BOARD_CORE_HZ; }

uint8_t board_reset_cause(void) { return reset_cause; }

uint8_t board_getc(void)
{
    uint8_t byte;
    while (!cmsdk_uart_try_getc(UART0_BASE, &byte)) {
        board_watchdog_kick(); /* waiting for the host is not a hang */
        /* Asleep until the byte comes: an idle board (a host gone, or between requests) costs QEMU no
         * CPU. SysTick wakes it every 2^24 cycles (0.67 s at 25 MHz), long before the watchdog's period
         * (at least its timeout / 6), to kick the watchdog again. */
        cmsdk_uart_wait_rx(UART0_BASE, UART0_RX_IRQ);
    }
    return byte;
}

void board_write(const uint8_t *data, size_t len) { cmsdk_uart_write(UART0_BASE, data, len); }

void board_watchdog_start(uint32_t ms)
{
    /* The fewest periods, each a whole number of milliseconds the 32-bit counter holds, that together
     * last at least `ms`, and at least two: the last but one ends in the NMI that records the cause, the
     * last in the reset. */
    uint32_t periods = (ms + PERIOD_MAX_MS - 1u) / PERIOD_MAX_MS;
    if (periods < 2u) {
        periods = 2u;
    }
    uint32_t period_ms = (ms + periods - 1u) / periods;
    periods_granted = periods - 2u;
    periods_left = periods_granted;
    cmsdk_watchdog_start(WATCHDOG_BASE, (period_ms > 0u ? period_ms : 1u) * TICKS_PER_MS);
}

void board_watchdog_kick(void)
{
    periods_left = periods_granted;
    cmsdk_watchdog_clear(WATCHDOG_BASE);
}

/* The watchdog's interrupt, the only source of the NMI on these machines. */
void NMI_Handler(void)
{
    if (periods_left > 0u) {
        periods_left--;
        cmsdk_watchdog_clear(WATCHDOG_BASE);
        return;
    }
    reset_record.cause = RESET_CAUSE_WATCHDOG;
    reset_record.magic = RECORD_MAGIC;
    for (;;) {
        /* until the next expiry resets the board */
    }
}
