/*
 * clock.c — the nRF51's HFCLK on the 16 MHz crystal (clock.h): XTALFREQ = 16 MHz, TASKS_HFCLKSTART, a
 * bounded wait for EVENTS_HFCLKSTARTED, then HFCLKSTAT must name the crystal as the source.
 *
 * QEMU 7.2 maps a stub over POWER/CLOCK that reads 1 at every offset and ignores writes
 * (hw/arm/nrf51_soc.c, clock_read): the event reads as come at once and HFCLKSTAT.SRC as the crystal, so
 * the set-up succeeds there without waiting.
 */
#include "clock.h"

#define CLOCK_BASE 0x40000000u
#define REG(off) (*(volatile uint32_t *)(CLOCK_BASE + (off)))
#define TASKS_HFCLKSTART 0x000u
#define TASKS_HFCLKSTOP 0x004u
#define EVENTS_HFCLKSTARTED 0x100u
#define HFCLKSTAT 0x40Cu
#define HFCLKSTAT_SRC_XTAL (1u << 0)
#define XTALFREQ 0x550u
#define XTALFREQ_16MHZ 0xFFu

/* At least 4 cycles a poll at 16 MHz: ≥ 16 ms, well beyond the crystal's start-up (under 1 ms typical,
 * nRF51822 product specification). */
#define XTAL_WAIT_POLLS 65536u

int nrf51_clock_xtal_start(void)
{
    REG(XTALFREQ) = XTALFREQ_16MHZ;
    REG(EVENTS_HFCLKSTARTED) = 0u;
    REG(TASKS_HFCLKSTART) = 1u;
    for (uint32_t n = 0u; n < XTAL_WAIT_POLLS; n++) {
        if (REG(EVENTS_HFCLKSTARTED) != 0u) {
            REG(EVENTS_HFCLKSTARTED) = 0u;
            return (REG(HFCLKSTAT) & HFCLKSTAT_SRC_XTAL) != 0u;
        }
    }
    REG(TASKS_HFCLKSTOP) = 1u;
    return 0;
}
