/*
 * rcc.h — the part of the STM32 reset and clock control the firmware needs: turning a peripheral's clock
 * on. The core keeps its reset clock (the 16 MHz HSI on the F4, RM0090 §6.2.2): the protocol loop needs
 * no speed, and waiting for HSE or PLL ready flags would hang under QEMU, whose RCC is an unimplemented
 * device that reads 0.
 */
#ifndef STM32_RCC_H
#define STM32_RCC_H

#include <stdint.h>

#define STM32_RCC_BASE 0x40023800u /* RM0090 §2.3, memory map (F4 and F7) */
#define STM32_RCC_AHB1ENR 0x30u /* §6.3.10 */
#define STM32_RCC_APB1ENR 0x40u /* §6.3.13: USART2/3, UART4/5 */
#define STM32_RCC_APB2ENR 0x44u /* §6.3.14: USART1 (bit 4), USART6 (bit 5) */

/* Sets bit `bit` of the enable register at offset `enr`. */
void stm32_rcc_enable(uint32_t enr, uint32_t bit);

/* The reset flags of RCC_CSR as RESET_CAUSE_* (proto.h), then cleared, so that the next start reports
 * its own. */
uint8_t stm32_rcc_reset_cause(void);

#endif /* STM32_RCC_H */
