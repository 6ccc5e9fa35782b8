/*
 * usart.c — STM32 USART (SR/DR/BRR/CR1 layout, RM0090 §30.6), polled. The protocol is strictly
 * request/answer, so the firmware never computes while bytes arrive and needs no receive interrupt
 * handler. The receive interrupt is raised all the same (never taken: see stm32_usart_wait_rx), so that a
 * board waiting for the host can sleep until a byte comes instead of polling.
 */
#include "usart.h"

#include "sleep.h"

#define REG(base, off) (*(volatile uint32_t *)((base) + (off)))
#define USART_SR 0x00u /* RM0090 §30.6.1 status register */
#define USART_DR 0x04u /* §30.6.2 data register */
#define USART_BRR 0x08u /* §30.6.3 baud rate register */
#define USART_CR1 0x0Cu /* §30.6.4 control register 1 */
#define USART_CR2 0x10u /* §30.6.5: STOP[13:12] = 00, one stop bit */
#define USART_CR3 0x14u /* §30.6.6: no flow control, no DMA */

#define SR_ORE (1u << 3) /* overrun */
#define SR_RXNE (1u << 5) /* a byte waits in DR */
#define SR_TXE (1u << 7) /* DR can take the next byte */
#define CR1_RE (1u << 2)
#define CR1_TE (1u << 3)
#define CR1_RXNEIE (1u << 5)
#define CR1_UE (1u << 13)

void stm32_usart_init(uintptr_t base, uint32_t pclk_hz, uint32_t baud)
{
    REG(base, USART_CR1) = 0u; /* UE = 0 while configuring; M = 0 (8 data bits), no parity */
    REG(base, USART_CR2) = 0u;
    REG(base, USART_CR3) = 0u;
    /* OVER8 = 0: BRR = f_ck / baud with 4 fraction bits, rounded (§30.3.4, "Fractional baud rate"). */
    REG(base, USART_BRR) = (pclk_hz + baud / 2u) / baud;
    REG(base, USART_CR1) = CR1_UE | CR1_TE | CR1_RE | CR1_RXNEIE;
}

void stm32_usart_wait_rx(uintptr_t base, unsigned irq) { cortexm_sleep_unless(irq, &REG(base, USART_SR), SR_RXNE); }

int stm32_usart_try_getc(uintptr_t base, uint8_t *byte)
{
    uint32_t sr = REG(base, USART_SR);
    if ((sr & SR_RXNE) == 0u) {
        /* ORE without RXNE: a byte was lost. Reading SR then DR clears ORE (§30.6.1) and keeps the
         * receiver going; the frame's CRC or COBS check reports the damage to the host. */
        if (sr & SR_ORE) {
            (void)REG(base, USART_DR);
        }
        return 0;
    }
    *byte = (uint8_t)REG(base, USART_DR);
    return 1;
}

void stm32_usart_write(uintptr_t base, const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        while ((REG(base, USART_SR) & SR_TXE) == 0u) {
        }
        REG(base, USART_DR) = data[i];
    }
}
