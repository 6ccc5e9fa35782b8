/*
 * watchdog.h — the Arm CMSDK APB watchdog (Cortex-M System Design Kit TRM, DDI 0479C §3.9): a 32-bit down
 * counter clocked by WDOGCLK. When it reaches zero it raises its interrupt and reloads; when it reaches
 * zero again with the interrupt still raised, it resets the system.
 */
#ifndef CMSDK_WATCHDOG_H
#define CMSDK_WATCHDOG_H

#include <stdint.h>

/* Counts `load` ticks per period, interrupt and reset enabled, registers locked against stray writes. */
void cmsdk_watchdog_start(uintptr_t base, uint32_t load);

/* Clears the interrupt and reloads the counter: a new period starts. */
void cmsdk_watchdog_clear(uintptr_t base);

#endif /* CMSDK_WATCHDOG_H */
