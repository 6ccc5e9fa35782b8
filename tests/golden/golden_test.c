/*
 * golden_test.c — the firmware's protocol code (firmware/app) against the golden frames of
 * tests/golden/frames.toml (generated into frames.h): each case starts from a freshly initialised device,
 * and every request must be answered with exactly the recorded bytes.
 *
 * Prints one line per case and exits with status 1 when any answer differs. Built with -DGOLDEN_RECORD it
 * is instead one device between stdin and stdout: how tests/golden/record.py records the answers (before
 * frames.h exists).
 *
 * The board is deterministic: its cycle counter always reads GOLDEN_CYCLES, so POSTERIOR answers are
 * byte for byte the same on every run and every machine.
 */
#include <stdio.h>
#include <string.h>

#include "board.h"
#include "dispatch.h"
#include "proto.h"

/* Every byte of the u64 differs, so a field written at the wrong offset or width shows. */
#define GOLDEN_CYCLES 0x0123456789ABCDEFull

const char board_name[] = "golden";
uint8_t board_cycle_source = CYCLES_HOST_NS;

void board_init(void) {}
uint8_t board_getc(void) { return 0u; }
void board_write(const uint8_t *data, size_t len)
{
    (void)data;
    (void)len;
}
void board_cycles_restart(void) {}
uint64_t board_cycles_read(void) { return GOLDEN_CYCLES; }
void board_watchdog_start(uint32_t ms) { (void)ms; }
void board_watchdog_kick(void) {}
/* Not 0, and not cycle_source's value: a field written at the wrong offset shows. */
uint8_t board_reset_cause(void) { return RESET_CAUSE_WATCHDOG; }
uint32_t board_core_hz(void) { return 216000000u; }

#ifdef GOLDEN_RECORD

static void to_stdout(const uint8_t *data, size_t len) { fwrite(data, 1, len, stdout); }

int main(void)
{
    dispatch_init(to_stdout);
    int ch;
    while ((ch = getchar()) != EOF) {
        dispatch_push((uint8_t)ch);
    }
    return 0;
}

#else

#include "frames.h"

static uint8_t captured[4096];
static size_t captured_len;
static int overflow;

static void capture(const uint8_t *data, size_t len)
{
    if (captured_len + len > sizeof captured) {
        overflow = 1;
        return;
    }
    memcpy(captured + captured_len, data, len);
    captured_len += len;
}

static void print_hex(const char *what, const uint8_t *p, size_t n)
{
    printf("  %s (%zu bytes): ", what, n);
    for (size_t i = 0; i < n; i++) {
        printf("%02x", p[i]);
    }
    printf("\n");
}

/* Runs one case; returns 0 when every answer matched. */
static int check_case(const golden_case *c)
{
    dispatch_init(capture);
    for (size_t i = 0; i < c->n_exchanges; i++) {
        const golden_exchange *x = &c->exchanges[i];
        captured_len = 0;
        overflow = 0;
        for (size_t j = 0; j < x->request_len; j++) {
            dispatch_push(x->request[j]);
        }
        if (overflow || captured_len != x->answer_len || memcmp(captured, x->answer, x->answer_len) != 0) {
            printf("FAIL %s, exchange %zu\n", c->name, i);
            print_hex("expected", x->answer, x->answer_len);
            print_hex("answered", captured, captured_len);
            return 1;
        }
    }
    printf("ok   %s\n", c->name);
    return 0;
}

int main(void)
{
    int failed = 0;
    for (size_t i = 0; i < golden_cases_count; i++) {
        failed += check_case(&golden_cases[i]);
    }
    printf("%zu cases, %d failed\n", golden_cases_count, failed);
    return failed != 0;
}

#endif /* GOLDEN_RECORD */
