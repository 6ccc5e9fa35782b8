/*
 * main.c — the firmware: one protocol loop, forever. Everything it needs lives in static memory.
 */
#include "board.h"
#include "dispatch.h"

int main(void)
{
    board_init();
    dispatch_init(board_write);
    for (;;) {
        dispatch_push(board_getc());
    }
}
