/*
 * systick_cycles.h — the SysTick cycle counter (systick_cycles.c), for boards that combine it with
 * another counter. Boards that count with SysTick alone get it as board_cycles_restart/read.
 */
#ifndef CORTEX_M_SYSTICK_CYCLES_H
#define CORTEX_M_SYSTICK_CYCLES_H

#include <stdint.h>

void systick_cycles_restart(void);
uint64_t systick_cycles_read(void);

/* Called from SysTick's handler at every wrap (every 2^24 processor cycles): a board that stretches its
 * watchdog's timeout over several wraps defines it (common/stm32/board.c); the default does nothing. */
void systick_wrapped(void);

#endif /* CORTEX_M_SYSTICK_CYCLES_H */
