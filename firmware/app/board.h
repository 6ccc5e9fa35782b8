/*
 * board.h — what the application needs from a board. Each folder under boards/ implements it; the
 * application never touches a register itself, so it also builds on a host for tests.
 */
#ifndef APP_BOARD_H
#define APP_BOARD_H

#include <stddef.h>
#include <stdint.h>

/* Clocks, FPU, UART and cycle counter ready; called once before anything else. */
void board_init(void);

/* Next byte from the host link; waits until one arrives, kicking the watchdog while it waits (a board
 * waiting for its host is not hung). */
uint8_t board_getc(void);

/* Sends `len` bytes to the host link and returns when the last one is queued. */
void board_write(const uint8_t *data, size_t len);

/* Restarts the cycle counter at zero. Restarting (rather than reading a free-running counter twice)
 * puts every measurement at the same counter phase, so that under QEMU -icount the counts do not depend
 * on how long the board waited for the host before the measurement. */
void board_cycles_restart(void);

/* Cycles since the last restart. 64 bits: a step of the largest configurations exceeds 2^32 cycles. */
uint64_t board_cycles_read(void);

/* What board_cycles_read counts: CYCLES_SYSTICK_ICOUNT, CYCLES_DWT or CYCLES_HOST_NS (proto.h). Not
 * const: a board may choose its counter in board_init, after checking that DWT CYCCNT counts. */
extern uint8_t board_cycle_source;

/*
 * The watchdog. Started once with the board's timeout (BOARD_WATCHDOG_MS of its board.mk, longer than
 * its longest request), it resets the board unless kicked at least that often; nothing stops it again.
 * A board without one implements both as doing nothing. boards/README.md tells each board's.
 */
void board_watchdog_start(uint32_t ms);
void board_watchdog_kick(void);

/* The core clock in Hz that board_init's clock set-up reached (INFO core_hz): the board's rated clock, or
 * the reset clock it kept when an oscillator or the PLL did not become ready in time (boards/README.md,
 * "Clocks"). */
uint32_t board_core_hz(void);

/* Why the board last started, as board_init found it: RESET_CAUSE_* (proto.h). */
uint8_t board_reset_cause(void);

/* Board name as reported in INFO, e.g. "mps2-an500". */
extern const char board_name[];

#endif /* APP_BOARD_H */
