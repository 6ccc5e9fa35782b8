/*
 * rcc.c — peripheral clock enable (RM0090 §6.3.10–§6.3.14).
 */
#include "rcc.h"

#define RCC_REG(off) (*(volatile uint32_t *)(STM32_RCC_BASE + (off)))

void stm32_rcc_enable(uint32_t enr, uint32_t bit)
{
    RCC_REG(enr) |= 1u << bit;
    /* The clock reaches the peripheral two bus cycles later; reading the register back waits for it
     * (STM32F40x errata ES0182 §2.1.13, "Delay after an RCC peripheral clock enabling"). */
    (void)RCC_REG(enr);
}
