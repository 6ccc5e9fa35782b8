/*
 * native_board.c — the board interface (firmware/app/board.h) on a host process: stdin is the link's
 * receive side, stdout its transmit side. Built with the sanitizers by test_app_native.py, so that the
 * exact protocol code of the firmware is fuzzed on the host. End of input ends the process.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "board.h"
#include "proto.h"

const char board_name[] = "native-test";
uint8_t board_cycle_source = CYCLES_HOST_NS;

static struct timespec started;

void board_init(void) { board_cycles_restart(); }

uint8_t board_getc(void)
{
    int c = getchar();
    if (c == EOF) {
        fflush(stdout);
        exit(0);
    }
    return (uint8_t)c;
}

void board_write(const uint8_t *data, size_t len) { fwrite(data, 1, len, stdout); }

void board_cycles_restart(void) { clock_gettime(CLOCK_MONOTONIC, &started); }

/* A process has no watchdog, and each one starts afresh. */
void board_watchdog_start(uint32_t ms) { (void)ms; }

void board_watchdog_kick(void) {}

uint32_t board_core_hz(void) { return 0u; /* a host process: no core clock of its own */ }

uint8_t board_reset_cause(void) { return RESET_CAUSE_POWER_ON; }

uint64_t board_cycles_read(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long long ns = (long long)(now.tv_sec - started.tv_sec) * 1000000000LL + (now.tv_nsec - started.tv_nsec);
    return ns < 0 ? 0u : (uint64_t)ns;
}
