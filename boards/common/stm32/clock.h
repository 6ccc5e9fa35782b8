/*
 * clock.h — the STM32 F4/F7 clock set-up: the main PLL to the board's rated core clock (BOARD_CORE_HZ of
 * its board.mk), with the flash wait states, the flash accelerator (ART), the voltage scale and, where
 * the rate needs it, over-drive; the F7's L1 caches. Every wait on a ready flag is bounded: when an
 * oscillator, the over-drive or the PLL does not become ready in time (QEMU 7.2's RCC, PWR and flash
 * interface are unimplemented devices that read 0), the core stays on the 16 MHz HSI it starts on, and
 * the set-up says so by the clock it returns (boards/README.md, "Clocks").
 *
 * The board's stm32_board.h gives the parameters:
 *   CLOCK_HSE_HZ       the external clock (0: none; the PLL then runs from the HSI)
 *   CLOCK_HSE_BYPASS   1: an external clock signal on OSC_IN (the ST-LINK's MCO on a Nucleo), 0: a crystal
 *   CLOCK_PLLP, CLOCK_PLLQ   the PLL's output dividers (VCO = 1 MHz · N, N = BOARD_CORE_HZ · P / 1 MHz)
 *   CLOCK_VOS          PWR_CR's voltage-scale bits for scale 1
 *   CLOCK_OVERDRIVE    1: enable over-drive before the switch (F446 above 168 MHz, F7 above 180 MHz)
 *   CLOCK_FLASH_WS     wait states at BOARD_CORE_HZ and 2.7–3.6 V
 *   CLOCK_FLASH_ACR_ON the accelerator's enable bits in FLASH_ACR
 *   CLOCK_APB1_DIV, CLOCK_APB2_DIV   the APB prescalers (1, 2, 4, 8 or 16)
 *   CLOCK_APB1_MAX_HZ, CLOCK_APB2_MAX_HZ   the buses' limits, checked at compile time
 *   CLOCK_L1_CACHES    1: enable the Cortex-M7's instruction and data caches
 */
#ifndef STM32_CLOCK_H
#define STM32_CLOCK_H

#include <stdint.h>

#define STM32_HSI_HZ 16000000u /* the reset clock of every F4 and F7 (RM0090, RM0410: "HSI clock") */

/* Runs the set-up once; returns the core clock reached: BOARD_CORE_HZ, or STM32_HSI_HZ on a fallback. */
uint32_t stm32_clock_init(void);

/* After stm32_clock_init: the core clock and APB bus `apb`'s (1 or 2) clock, in Hz. */
uint32_t stm32_clock_core_hz(void);
uint32_t stm32_clock_apb_hz(unsigned apb);

#endif /* STM32_CLOCK_H */
