/*
 * main.c — the firmware: one protocol loop, forever. Everything it needs lives in static memory.
 *
 * The watchdog is kicked while the board waits for a byte and once more after each one, so that a
 * request's time runs from its last byte: the board's timeout bounds one request, and the watchdog's
 * phase inside a request never depends on how long the host took to send it (cycle counts under QEMU
 * stay reproducible).
 */
#include "board.h"
#include "dispatch.h"

int main(void)
{
    board_init();
    dispatch_init(board_write);
#ifdef APP_WATCHDOG_MS
    board_watchdog_start(APP_WATCHDOG_MS);
#endif
    for (;;) {
        uint8_t byte = board_getc();
        board_watchdog_kick();
        dispatch_push(byte);
    }
}
