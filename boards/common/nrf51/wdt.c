/*
 * wdt.c — nRF51 WDT and POWER.RESETREAS (nRF51 Series Reference Manual v3.0, register tables of the WDT
 * and POWER chapters). The WDT counts down from CRV at the 32.768 kHz low-frequency clock, which starting
 * it turns on if nothing else has; at zero it resets the chip, unless every enabled reload request
 * register was written with the reload value first.
 */
#include "wdt.h"

#include "proto.h"

#define WDT_BASE 0x40010000u
#define POWER_BASE 0x40000000u
#define REG(base, off) (*(volatile uint32_t *)((base) + (off)))

#define WDT_TASKS_START 0x000u
#define WDT_CRV 0x504u /* counter reload value: timeout = (CRV + 1) / 32768 s, CRV ≥ 15 */
#define WDT_RREN 0x508u /* which reload request registers are enabled (RR[0] alone) */
#define WDT_CONFIG 0x50Cu /* bit 0: keep running while the CPU sleeps; bit 3: while a debugger halts it */
#define WDT_RR0 0x600u
#define WDT_RR_RELOAD 0x6E524635u
#define MAX_MS 131071999u /* 2^32 ticks of 32.768 kHz, less one tick */

#define POWER_RESETREAS 0x400u /* write-one-to-clear */
#define RESETREAS_RESETPIN (1u << 0)
#define RESETREAS_DOG (1u << 1)
#define RESETREAS_SREQ (1u << 2)
#define RESETREAS_LOCKUP (1u << 3)

void nrf51_wdt_start(uint32_t ms)
{
    /* ms · 32768 / 1000 = ms · 4096 / 125, rounded up, in 32-bit arithmetic (the M0 has no divider for
     * wider ones); CRV's largest value is 36.4 hours. */
    if (ms > MAX_MS) {
        ms = MAX_MS;
    }
    uint32_t ticks = ms / 125u * 4096u + (ms % 125u * 4096u + 124u) / 125u;
    uint32_t crv = ticks < 16u ? 15u : ticks - 1u;
    REG(WDT_BASE, WDT_CRV) = crv;
    REG(WDT_BASE, WDT_RREN) = 1u;
    REG(WDT_BASE, WDT_CONFIG) = 1u; /* runs while the CPU sleeps, pauses while a debugger halts it */
    REG(WDT_BASE, WDT_TASKS_START) = 1u;
}

void nrf51_wdt_reload(void) { REG(WDT_BASE, WDT_RR0) = WDT_RR_RELOAD; }

uint8_t nrf51_reset_cause(void)
{
    uint32_t reas = REG(POWER_BASE, POWER_RESETREAS);
    REG(POWER_BASE, POWER_RESETREAS) = reas;
    /* The bits accumulate until cleared; with several set, the most telling one wins. None set: the
     * power-on reset (or a brown-out) did it. Wake-ups from System OFF (bits 16-18) never happen here. */
    if (reas & RESETREAS_LOCKUP) {
        return RESET_CAUSE_LOCKUP;
    }
    if (reas & RESETREAS_DOG) {
        return RESET_CAUSE_WATCHDOG;
    }
    if (reas & RESETREAS_SREQ) {
        return RESET_CAUSE_SOFTWARE;
    }
    if (reas & RESETREAS_RESETPIN) {
        return RESET_CAUSE_PIN;
    }
    return reas == 0u ? RESET_CAUSE_POWER_ON : RESET_CAUSE_UNKNOWN;
}
