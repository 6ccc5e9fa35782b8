/*
 * usart.h — polled driver for the STM32 USART with the SR/DR/BRR/CR1 register layout (STM32F1, F2, F4:
 * RM0090 §30.6 on the F405/F407). The F0/F3/F7/L4/G4 parts have the later layout (ISR/RDR/TDR) and need
 * another driver beside this one.
 */
#ifndef STM32_USART_H
#define STM32_USART_H

#include <stddef.h>
#include <stdint.h>

/* 8N1 at `baud` from a USART kernel clock of `pclk_hz`; the USART's RCC clock must already be on. */
void stm32_usart_init(uintptr_t base, uint32_t pclk_hz, uint32_t baud);
/* 1 and the next received byte in *byte, or 0 at once when none has arrived. */
int stm32_usart_try_getc(uintptr_t base, uint8_t *byte);
void stm32_usart_write(uintptr_t base, const uint8_t *data, size_t len);
/* Sleeps (WFI) until a byte has arrived or another interrupt comes; `irq` is the USART's interrupt number
 * on the NVIC. Returns at once when a byte is waiting. */
void stm32_usart_wait_rx(uintptr_t base, unsigned irq);

#endif /* STM32_USART_H */
