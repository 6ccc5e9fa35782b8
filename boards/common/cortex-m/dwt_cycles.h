/*
 * dwt_cycles.h — cycles from DWT CYCCNT on ARMv7-M cores where it counts, else from SysTick.
 */
#ifndef CORTEX_M_DWT_CYCLES_H
#define CORTEX_M_DWT_CYCLES_H

/* Turns CYCCNT on and checks that it advances; sets board_cycle_source to CYCLES_DWT if it does, to
 * CYCLES_SYSTICK_ICOUNT if not (QEMU 7.2 implements no DWT: CYCCNT reads 0). Call once, at boot. */
void cycles_select(void);

#endif /* CORTEX_M_DWT_CYCLES_H */
