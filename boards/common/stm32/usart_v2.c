/*
 * usart_v2.c — polled driver for the later STM32 USART layout (ISR/ICR/RDR/TDR: STM32F7 RM0410 §34.8,
 * also F0/F3/L4/G4), behind the same usart.h as the SR/DR driver; a board's BOARD_SRCS picks one. The
 * receive interrupt is raised but never taken, as in usart.c (stm32_usart_wait_rx).
 */
#include "usart.h"

#include "sleep.h"

#define REG(base, off) (*(volatile uint32_t *)((base) + (off)))
#define USART_CR1 0x00u /* RM0410 §34.8.1 */
#define USART_CR2 0x04u /* §34.8.2: one stop bit */
#define USART_CR3 0x08u /* §34.8.3: no flow control, no DMA */
#define USART_BRR 0x0Cu /* §34.8.4 */
#define USART_ISR 0x1Cu /* §34.8.8 */
#define USART_ICR 0x20u /* §34.8.9 */
#define USART_RDR 0x24u /* §34.8.10 */
#define USART_TDR 0x28u /* §34.8.11 */

#define CR1_UE (1u << 0)
#define CR1_RE (1u << 2)
#define CR1_TE (1u << 3)
#define CR1_RXNEIE (1u << 5)
#define ISR_ORE (1u << 3)
#define ISR_RXNE (1u << 5)
#define ISR_TXE (1u << 7)
#define ICR_ORECF (1u << 3)

void stm32_usart_init(uintptr_t base, uint32_t pclk_hz, uint32_t baud)
{
    REG(base, USART_CR1) = 0u; /* UE = 0 while configuring; 8 data bits, no parity, OVER8 = 0 */
    REG(base, USART_CR2) = 0u;
    REG(base, USART_CR3) = 0u;
    REG(base, USART_BRR) = (pclk_hz + baud / 2u) / baud; /* §34.5.4: USARTDIV = f_ck / baud */
    REG(base, USART_CR1) = CR1_UE | CR1_TE | CR1_RE | CR1_RXNEIE;
}

void stm32_usart_wait_rx(uintptr_t base, unsigned irq) { cortexm_sleep_unless(irq, &REG(base, USART_ISR), ISR_RXNE); }

int stm32_usart_try_getc(uintptr_t base, uint8_t *byte)
{
    uint32_t isr = REG(base, USART_ISR);
    if ((isr & ISR_RXNE) == 0u) {
        /* An overrun stops reception until ORE is cleared; the frame's CRC reports the loss. */
        if (isr & ISR_ORE) {
            REG(base, USART_ICR) = ICR_ORECF;
        }
        return 0;
    }
    *byte = (uint8_t)REG(base, USART_RDR);
    return 1;
}

void stm32_usart_write(uintptr_t base, const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        while ((REG(base, USART_ISR) & ISR_TXE) == 0u) {
        }
        REG(base, USART_TDR) = data[i];
    }
}
