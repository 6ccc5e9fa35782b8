/*
 * clock.h — the nRF51's high-frequency clock on its crystal (nRF51 Series Reference Manual v3.0, "Clock
 * management"). The CPU runs at 16 MHz from either source; the crystal gives the UART and the radio their
 * accuracy (the RC oscillator's tolerance is a few percent). The wait for the crystal is bounded: when
 * EVENTS_HFCLKSTARTED does not come, the set-up stops the request and the core stays on the RC oscillator,
 * still at 16 MHz (boards/README.md, "Clocks").
 */
#ifndef NRF51_CLOCK_H
#define NRF51_CLOCK_H

#include <stdint.h>

#define NRF51_HFCLK_HZ 16000000u

/* Starts the crystal (XTALFREQ: a 16 MHz one, as on the micro:bit); returns 1 when it runs, 0 when its
 * start timed out. */
int nrf51_clock_xtal_start(void);

#endif /* NRF51_CLOCK_H */
