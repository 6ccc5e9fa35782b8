/*
 * rcc.c — peripheral clock enable (RM0090 §6.3.10–§6.3.14).
 */
#include "rcc.h"

#include "proto.h"

#define RCC_REG(off) (*(volatile uint32_t *)(STM32_RCC_BASE + (off)))

void stm32_rcc_enable(uint32_t enr, uint32_t bit)
{
    RCC_REG(enr) |= 1u << bit;
    /* The clock reaches the peripheral two bus cycles later; reading the register back waits for it
     * (STM32F40x errata ES0182 §2.1.13, "Delay after an RCC peripheral clock enabling"). */
    (void)RCC_REG(enr);
}

/* RCC_CSR (offset 0x74 on the F4 and the F7, RM0090 and RM0410 "RCC clock control & status register"). */
#define RCC_CSR 0x74u
#define CSR_RMVF (1u << 24) /* writing 1 clears every flag below */
#define CSR_BORRSTF (1u << 25)
#define CSR_PINRSTF (1u << 26)
#define CSR_PORRSTF (1u << 27)
#define CSR_SFTRSTF (1u << 28)
#define CSR_IWDGRSTF (1u << 29)
#define CSR_WWDGRSTF (1u << 30)

uint8_t stm32_rcc_reset_cause(void)
{
    uint32_t csr = RCC_REG(RCC_CSR);
    RCC_REG(RCC_CSR) = csr | CSR_RMVF;
    /* Every reset drives the NRST pin low, so PINRSTF accompanies the others: it names the cause only
     * alone. A power-on also sets BORRSTF. No flag at all (QEMU's RCC reads 0): unknown. */
    if (csr & (CSR_IWDGRSTF | CSR_WWDGRSTF)) {
        return RESET_CAUSE_WATCHDOG;
    }
    if (csr & CSR_SFTRSTF) {
        return RESET_CAUSE_SOFTWARE;
    }
    if (csr & (CSR_PORRSTF | CSR_BORRSTF)) {
        return RESET_CAUSE_POWER_ON;
    }
    if (csr & CSR_PINRSTF) {
        return RESET_CAUSE_PIN;
    }
    return RESET_CAUSE_UNKNOWN;
}
