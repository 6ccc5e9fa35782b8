/*
 * watchdog.c — CMSDK APB watchdog (DDI 0479C §3.9, registers in table 3-11).
 */
#include "watchdog.h"

#define REG(base, off) (*(volatile uint32_t *)((base) + (off)))

#define WDOG_LOAD 0x000u
#define WDOG_CONTROL 0x008u
#define WDOG_INTCLR 0x00Cu
#define WDOG_LOCK 0xC00u

#define CONTROL_INTEN (1u << 0) /* also starts the counter */
#define CONTROL_RESEN (1u << 1)
#define LOCK_KEY 0x1ACCE551u /* any other value locks */

void cmsdk_watchdog_start(uintptr_t base, uint32_t load)
{
    REG(base, WDOG_LOCK) = LOCK_KEY;
    REG(base, WDOG_LOAD) = load; /* also reloads the counter */
    REG(base, WDOG_INTCLR) = 1u;
    REG(base, WDOG_CONTROL) = CONTROL_INTEN | CONTROL_RESEN;
    REG(base, WDOG_LOCK) = 0u;
}

void cmsdk_watchdog_clear(uintptr_t base)
{
    REG(base, WDOG_LOCK) = LOCK_KEY;
    REG(base, WDOG_INTCLR) = 1u;
    REG(base, WDOG_LOCK) = 0u;
}
