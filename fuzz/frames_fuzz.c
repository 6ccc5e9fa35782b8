/*
 * frames_fuzz.c — libFuzzer harness of the link: any byte stream, fed to the firmware's own frame decoder
 * and dispatch (firmware/app) on a freshly initialised device, must be answered with well-formed frames
 * only. An input is the bytes of one or more requests; a delimiter is appended so the last one ends.
 *
 * The oracle beyond the sanitizers: every answer is one COBS frame that decodes, carries a valid CRC, the
 * protocol's version and a device message type, and a POSTERIOR's status or an ERROR's code is one of the
 * protocol's (oracle.h, generated from docs/protocol.toml, so what is added there is known here without an
 * edit); otherwise the harness aborts (a finding).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "crc32.h"
#include "dispatch.h"
#include "frame.h"
#include "oracle.h"
#include "proto.h"

const char board_name[] = "fuzz";
uint8_t board_cycle_source = CYCLES_HOST_NS;

void board_init(void) {}
uint8_t board_getc(void) { return 0u; }
void board_write(const uint8_t *data, size_t len)
{
    (void)data;
    (void)len;
}
void board_cycles_restart(void) {}
uint64_t board_cycles_read(void) { return 0u; }
void board_watchdog_start(uint32_t ms) { (void)ms; }
void board_watchdog_kick(void) {}
uint8_t board_reset_cause(void) { return RESET_CAUSE_POWER_ON; }
uint32_t board_core_hz(void) { return 0u; }

static uint8_t answer_buf[PROTO_MAX_FRAME];

/* Every answer the device writes: exactly one complete, valid frame. */
static void check_answer(const uint8_t *data, size_t len)
{
    frame_reader r;
    frame_event ev = FRAME_PENDING;
    size_t i, payload;
    const uint8_t *body;
#ifdef FUZZ_CORRUPT_ANSWERS /* the oracle's own test: a damaged answer must be caught */
    static uint8_t damaged[FRAME_WIRE_MAX];
    if (len > 2 && len <= sizeof damaged) {
        memcpy(damaged, data, len);
        damaged[len / 2] = damaged[len / 2] == 1u ? 2u : 1u; /* never 0: the frame stays one frame */
        data = damaged;
    }
#endif
    frame_reader_init(&r, answer_buf);
    if (len < 2 || data[len - 1] != 0u)
        abort();
    for (i = 0; i < len; ++i) {
        ev = frame_reader_push(&r, data[i]);
        if (ev != FRAME_PENDING && i + 1 != len)
            abort(); /* an answer is one frame, delimited once, at its end */
    }
    if (ev != FRAME_READY || r.length < PROTO_HEADER_BYTES + PROTO_CRC_BYTES)
        abort();
    uint32_t crc = (uint32_t)answer_buf[r.length - 4] | (uint32_t)answer_buf[r.length - 3] << 8 |
                   (uint32_t)answer_buf[r.length - 2] << 16 | (uint32_t)answer_buf[r.length - 1] << 24;
    if (crc != crc32(answer_buf, r.length - PROTO_CRC_BYTES) || answer_buf[0] != PROTO_VERSION ||
        !oracle_device_type(answer_buf[1]))
        abort();
    payload = r.length - PROTO_HEADER_BYTES - PROTO_CRC_BYTES;
    body = answer_buf + PROTO_HEADER_BYTES;
    if (answer_buf[1] == MSG_POSTERIOR && (payload <= POSTERIOR_STATUS_AT || !oracle_status(body[POSTERIOR_STATUS_AT])))
        abort();
    if (answer_buf[1] == MSG_ERROR && (payload <= ERROR_CODE_AT || !oracle_error_code(body[ERROR_CODE_AT])))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t i;
    dispatch_init(check_answer);
    for (i = 0; i < size; ++i)
        dispatch_push(data[i]);
    dispatch_push(0u);
    return 0;
}
