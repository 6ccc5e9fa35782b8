/*
 * sleep.h — sleep until a peripheral has something, without an interrupt handler (ARMv6-M, ARMv7-M).
 */
#ifndef CORTEXM_SLEEP_H
#define CORTEXM_SLEEP_H

#include <stdint.h>

#define CORTEXM_NVIC_ISER ((volatile uint32_t *)0xE000E100u)
#define CORTEXM_NVIC_ICER ((volatile uint32_t *)0xE000E180u)
#define CORTEXM_NVIC_ICPR ((volatile uint32_t *)0xE000E280u)

/*
 * Returns once (*status & ready) is set, or when another interrupt came, after sleeping in WFI if it was
 * not set yet. The peripheral must raise interrupt `irq` when it becomes ready; that interrupt is never
 * taken. With interrupts masked (PRIMASK) WFI still returns on a pending interrupt that is enabled in the
 * NVIC, and no handler runs: `irq` is enabled for the WFI alone and its pending state cleared before
 * `status` is read, so readiness that comes after that read wakes the WFI and readiness that came before
 * is seen by the read. Any other interrupt (SysTick's wrap) also ends the sleep, and runs once PRIMASK is
 * cleared; an NMI ignores PRIMASK. Outside this function `irq` stays disabled in the NVIC: a peripheral
 * that raises it while the firmware computes costs no cycle.
 */
static inline void cortexm_sleep_unless(unsigned irq, volatile uint32_t *status, uint32_t ready)
{
    uint32_t word = irq >> 5, bit = 1u << (irq & 31u);
    __asm volatile("cpsid i" ::: "memory");
    CORTEXM_NVIC_ICPR[word] = bit;
    if ((*status & ready) == 0u) {
        CORTEXM_NVIC_ISER[word] = bit;
        __asm volatile("dsb\n\twfi" ::: "memory");
        CORTEXM_NVIC_ICER[word] = bit;
        CORTEXM_NVIC_ICPR[word] = bit;
        __asm volatile("dsb\n\tisb" ::: "memory");
    }
    __asm volatile("cpsie i\n\tisb" ::: "memory");
}

#endif /* CORTEXM_SLEEP_H */
