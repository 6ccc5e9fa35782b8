/*
 * wdt.h — the nRF51 watchdog and reset reason (nRF51 Series Reference Manual v3.0: WDT; POWER.RESETREAS).
 */
#ifndef NRF51_WDT_H
#define NRF51_WDT_H

#include <stdint.h>

/* Starts the watchdog: it resets the chip `ms` (rounded up to a 32.768 kHz tick) after the last
 * reload. Once started nothing stops it or changes its timeout, short of a reset. */
void nrf51_wdt_start(uint32_t ms);

/* Reloads the counter (reload request register 0). */
void nrf51_wdt_reload(void);

/* POWER.RESETREAS as RESET_CAUSE_* (proto.h), then cleared, so that the next start reports its own. */
uint8_t nrf51_reset_cause(void);

#endif /* NRF51_WDT_H */
