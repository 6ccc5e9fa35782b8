/*
 * systick_cycles.h — the SysTick cycle counter (systick_cycles.c), for boards that combine it with
 * another counter. Boards that count with SysTick alone get it as board_cycles_restart/read.
 */
#ifndef CORTEX_M_SYSTICK_CYCLES_H
#define CORTEX_M_SYSTICK_CYCLES_H

#include <stdint.h>

void systick_cycles_restart(void);
uint64_t systick_cycles_read(void);

#endif /* CORTEX_M_SYSTICK_CYCLES_H */
