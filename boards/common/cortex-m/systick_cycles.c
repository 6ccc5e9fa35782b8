/*
 * systick_cycles.c — a cycle counter from SysTick plus an overflow count, for cores or emulators where
 * DWT CYCCNT does not count (QEMU 7.2 reads it as 0). SysTick runs from the processor clock; under QEMU
 * with -icount the processor clock advances with executed instructions only, so the counts are exactly
 * reproducible ("virtual cycles").
 */
#include <stdint.h>

#include "board.h"
#include "systick_cycles.h"

#define SYST_CSR (*(volatile uint32_t *)0xE000E010u)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014u)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018u)
#define SCB_ICSR (*(volatile uint32_t *)0xE000ED04u)

#define CSR_ENABLE (1u << 0)
#define CSR_TICKINT (1u << 1)
#define CSR_CLKSOURCE_CPU (1u << 2)
#define ICSR_PENDSTSET (1u << 26)
#define ICSR_PENDSTCLR (1u << 25)

#define PERIOD_BITS 24u
#define PERIOD (1ul << PERIOD_BITS) /* SysTick is a 24-bit down counter */

/*
 * Periods completed since the restart. 32 bits are enough for 2^56 ticks (decades at 25 MHz) and, unlike
 * a 64-bit count, are read in one instruction, so the handler can never be seen half-way through.
 */
static volatile uint32_t wraps;

void SysTick_Handler(void);

__attribute__((weak)) void systick_wrapped(void) {}

void SysTick_Handler(void)
{
    wraps++;
    systick_wrapped();
}

void systick_cycles_restart(void)
{
    SYST_CSR = 0u;
    SYST_RVR = PERIOD - 1u;
    SYST_CVR = 0u; /* any write clears the counter; the first tick reloads it without an interrupt */
    SCB_ICSR = ICSR_PENDSTCLR;
    wraps = 0u;
    SYST_CSR = CSR_ENABLE | CSR_TICKINT | CSR_CLKSOURCE_CPU;
}

uint64_t systick_cycles_read(void)
{
    uint32_t w, value, pending;
    do {
        w = wraps;
        value = SYST_CVR;
        pending = SCB_ICSR & ICSR_PENDSTSET;
    } while (w != wraps);
    /*
     * After a restart the counter reads 0, then PERIOD-1, PERIOD-2, …, 0 (interrupt), PERIOD-1, …:
     * t ticks after the restart it reads (PERIOD - t mod PERIOD) mod PERIOD.
     */
    uint32_t in_period = (uint32_t)(PERIOD - value) & (uint32_t)(PERIOD - 1u);
    /* A wrap whose interrupt has not run yet: the counter has just restarted its period. */
    if (pending != 0u && in_period < PERIOD / 2u) {
        w++;
    }
    return ((uint64_t)w << PERIOD_BITS) + in_period;
}

/* The board's counter unless the board chooses another at boot (dwt_cycles.c): weak aliases, so the
 * SysTick-only boards call these functions directly, at no extra cost inside a measurement. */
void board_cycles_restart(void) __attribute__((weak, alias("systick_cycles_restart")));
uint64_t board_cycles_read(void) __attribute__((weak, alias("systick_cycles_read")));
