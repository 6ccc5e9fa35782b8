/*
 * startup.c — reset and exception vectors for ARMv7-M cores (Cortex-M3/M4/M7).
 *
 * The reset handler enables the FPU before any C code can touch a floating-point register, copies
 * .data from its load address, zeroes .bss and calls main. Symbols come from sections.ld.
 */
#include <stdint.h>

extern uint32_t __data_load__, __data_start__, __data_end__;
extern uint32_t __bss_start__, __bss_end__;
extern uint32_t __stack_top__;

int main(void);
void Reset_Handler(void);
void Default_Handler(void);
void SysTick_Handler(void);

#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88u)

/* general-regs-only: the FPU is still off when this starts, so not one VFP instruction may run here. */
__attribute__((noreturn, target("general-regs-only"))) void Reset_Handler(void)
{
#if defined(__ARM_FP)
    /* CP10 and CP11 full access (bits 20..23); the barriers make the change visible before C code. */
    SCB_CPACR |= 0xFu << 20;
    __asm volatile("dsb\n\tisb" ::: "memory");
#endif
    for (uint32_t *src = &__data_load__, *dst = &__data_start__; dst < &__data_end__;) {
        *dst++ = *src++;
    }
    for (uint32_t *dst = &__bss_start__; dst < &__bss_end__;) {
        *dst++ = 0u;
    }
    (void)main();
    for (;;) {
    }
}

/*
 * A fault is a firmware bug, never a consequence of what the host sent: stop here, where a debugger
 * (or QEMU's -d int) shows the state, instead of resetting and losing it.
 */
void Default_Handler(void)
{
    for (;;) {
    }
}

void NMI_Handler(void) __attribute__((weak, alias("Default_Handler")));
void HardFault_Handler(void) __attribute__((weak, alias("Default_Handler")));
void MemManage_Handler(void) __attribute__((weak, alias("Default_Handler")));
void BusFault_Handler(void) __attribute__((weak, alias("Default_Handler")));
void UsageFault_Handler(void) __attribute__((weak, alias("Default_Handler")));
void SVC_Handler(void) __attribute__((weak, alias("Default_Handler")));
void DebugMon_Handler(void) __attribute__((weak, alias("Default_Handler")));
void PendSV_Handler(void) __attribute__((weak, alias("Default_Handler")));

/* 16 system exceptions + 32 external interrupts (the MPS2 FPGA images have 32); none is enabled. */
#define VECTOR_COUNT (16 + 32)

typedef void (*vector)(void);

__attribute__((section(".vectors"), used)) const vector vector_table[VECTOR_COUNT] = {
    [0] = (vector)(uintptr_t)&__stack_top__,
    [1] = Reset_Handler,
    [2] = NMI_Handler,
    [3] = HardFault_Handler,
    [4] = MemManage_Handler,
    [5] = BusFault_Handler,
    [6] = UsageFault_Handler,
    [11] = SVC_Handler,
    [12] = DebugMon_Handler,
    [14] = PendSV_Handler,
    [15] = SysTick_Handler,
    [16 ... VECTOR_COUNT - 1] = Default_Handler,
};
