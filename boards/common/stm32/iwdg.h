/*
 * iwdg.h — the STM32 independent watchdog (RM0090 for the F4, RM0410 for the F7, chapter "Independent
 * watchdog": the same registers at the same address): a 12-bit down counter clocked by the LSI RC oscillator through a
 * prescaler. At zero it resets the chip; once started nothing stops it short of a reset.
 */
#ifndef STM32_IWDG_H
#define STM32_IWDG_H

/* Starts it with its prescaler at /64 and the largest reload: 4096 · 64 LSI periods, 8.2 s at the
 * LSI's typical 32 kHz, 5.6 s at its fastest (47 kHz in the F4 and F7 datasheets). It stops while a
 * debugger halts the core, so that loading an image over the probe cannot reset the chip. */
void stm32_iwdg_start(void);

/* Reloads the counter. */
void stm32_iwdg_refresh(void);

#endif /* STM32_IWDG_H */
