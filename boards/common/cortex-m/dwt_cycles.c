/*
 * dwt_cycles.c — board_cycles_restart/read over DWT CYCCNT where it counts, SysTick otherwise.
 *
 * CYCCNT is 32 bits wide (9 s at 480 MHz) and raises no interrupt when it wraps, while a step of the
 * largest configurations exceeds 2^32 cycles. SysTick, which keeps running in both cases, counts the
 * same processor clock (CLKSOURCE = 1) and is restarted together with CYCCNT, so the two differ by the
 * few cycles between their restarts: SysTick's 64-bit count supplies the bits above CYCCNT's 32.
 */
#include <stdint.h>

#include "board.h"
#include "dwt_cycles.h"
#include "proto.h"
#include "systick_cycles.h"

/* ARMv7-M Architecture Reference Manual: DEMCR (C1.6.5), DWT_CTRL and DWT_CYCCNT (C1.8.7, C1.8.8). */
#define DEMCR (*(volatile uint32_t *)0xE000EDFCu)
#define DWT_CTRL (*(volatile uint32_t *)0xE0001000u)
#define DWT_CYCCNT (*(volatile uint32_t *)0xE0001004u)
/* CoreSight lock access register of the DWT (Cortex-M7 TRM §9.1); a no-op on cores without a lock. */
#define DWT_LAR (*(volatile uint32_t *)0xE0001FB0u)

#define DEMCR_TRCENA (1u << 24) /* powers the DWT and ITM */
#define DWT_CTRL_CYCCNTENA (1u << 0) /* CYCCNT counts */
#define DWT_CTRL_NOCYCCNT (1u << 25) /* set when the core has no cycle counter */
#define CORESIGHT_UNLOCK 0xC5ACCE55u

uint8_t board_cycle_source = CYCLES_SYSTICK_ICOUNT;

void cycles_select(void)
{
    DEMCR |= DEMCR_TRCENA;
    DWT_LAR = CORESIGHT_UNLOCK;
    board_cycle_source = CYCLES_SYSTICK_ICOUNT;
    if (DWT_CTRL & DWT_CTRL_NOCYCCNT) {
        return;
    }
    DWT_CYCCNT = 0u;
    DWT_CTRL |= DWT_CTRL_CYCCNTENA;
    /* A few dozen instructions: a counting CYCCNT has moved by at least as many cycles. */
    for (volatile uint32_t i = 0; i < 16u; i++) {
    }
    if (DWT_CYCCNT != 0u) {
        board_cycle_source = CYCLES_DWT;
    }
}

void board_cycles_restart(void)
{
    systick_cycles_restart();
    if (board_cycle_source == CYCLES_DWT) {
        DWT_CYCCNT = 0u;
    }
}

uint64_t board_cycles_read(void)
{
    if (board_cycle_source != CYCLES_DWT) {
        return systick_cycles_read();
    }
    uint32_t exact = DWT_CYCCNT;
    uint64_t coarse = systick_cycles_read();
    /* The signed 32-bit difference of the low words corrects the coarse count to CYCCNT's. */
    return coarse + (uint64_t)(int64_t)(int32_t)(exact - (uint32_t)coarse);
}
