/*
 * dispatch.c — judges each frame (length, CRC, version, type), answers retries from memory and hands
 * everything else to messages.c.
 *
 * Retry memory: the encoded answer of the last *executed* request, with that request's seq and CRC. A
 * request with the same seq and the same CRC is the host resending a frame whose answer it did not get;
 * it is answered from memory, byte for byte, without running again. (Requiring the CRC as well as the
 * seq keeps a new host session, which starts at a random seq that may be the remembered one, from being
 * answered with an old session's answer to a different request.) Error answers are never stored.
 */
#include "dispatch.h"

#include <stdbool.h>

#include "crc32.h"
#include "frame.h"
#include "messages.h"
#include "proto.h"
#include "wire.h"

/* Largest wire size of an ERROR frame: header, payload, CRC, COBS overhead, delimiter. */
#define ERROR_WIRE_MAX (COBS_ENCODED_MAX(PROTO_HEADER_BYTES + ERROR_BYTES + PROTO_CRC_BYTES) + 1u)

static dispatch_writer writer;
static frame_reader reader;
static uint8_t request[PROTO_MAX_FRAME];

/*
 * The retry memory and the next answer share one buffer: messages_run builds its answer at
 * stored.wire + FRAME_RAW_IN_WIRE_AT and frame_encode encodes it in place. Safe because messages_run
 * writes an answer only when it succeeds (messages.h), and a success replaces the stored answer anyway;
 * an error answer is built on the stack, so the remembered answer survives every failed request.
 */
static struct {
    bool valid;
    uint16_t seq;
    uint32_t request_crc;
    size_t length;
    uint8_t wire[FRAME_WIRE_MAX];
} stored;
static uint8_t *const answer_raw = stored.wire + FRAME_RAW_IN_WIRE_AT;

void dispatch_init(dispatch_writer write)
{
    writer = write;
    frame_reader_init(&reader, request);
    stored.valid = false;
    messages_init();
}

static void send_error(uint16_t seq, uint8_t code, uint16_t detail)
{
    uint8_t raw[PROTO_HEADER_BYTES + ERROR_BYTES + PROTO_CRC_BYTES];
    uint8_t wire[ERROR_WIRE_MAX];
    raw[PROTO_HEADER_BYTES + ERROR_CODE_AT] = code;
    wire_put_u16(raw + PROTO_HEADER_BYTES + ERROR_DETAIL_AT, detail);
    size_t n = frame_encode(raw, MSG_ERROR, seq, ERROR_BYTES, wire);
    writer(wire, n);
}

static void handle_frame(const uint8_t *f, size_t n)
{
    /* Until the CRC has vouched for the header its seq means nothing, so such errors carry seq 0. */
    if (n < PROTO_HEADER_BYTES + PROTO_CRC_BYTES) {
        send_error(0u, ERR_LENGTH, (uint16_t)n);
        return;
    }
    size_t body = n - PROTO_CRC_BYTES;
    uint32_t crc = crc32(f, body);
    if (crc != wire_get_u32(f + body)) {
        send_error(0u, ERR_CRC, 0u);
        return;
    }
    uint8_t version = f[HEADER_VERSION_AT];
    uint8_t type = f[HEADER_TYPE_AT];
    uint16_t seq = wire_get_u16(f + HEADER_SEQ_AT);
    uint16_t length = wire_get_u16(f + HEADER_LENGTH_AT);
    if (version != PROTO_VERSION) {
        send_error(seq, ERR_VERSION, version);
        return;
    }
    if ((size_t)length != body - PROTO_HEADER_BYTES) {
        send_error(seq, ERR_LENGTH, (uint16_t)n);
        return;
    }
    if (!messages_known(type)) {
        send_error(seq, ERR_TYPE, type);
        return;
    }
    /* seq 0 is never used by a host, so it is never taken for a retry. */
    if (stored.valid && seq != 0u && seq == stored.seq && crc == stored.request_crc) {
        writer(stored.wire, stored.length);
        return;
    }
    message_result r = messages_run(type, f + PROTO_HEADER_BYTES, length, n, answer_raw + PROTO_HEADER_BYTES);
    if (r.error != 0u) {
        send_error(seq, r.error, r.detail);
        return;
    }
    stored.length = frame_encode(answer_raw, r.type, seq, r.length, stored.wire);
    stored.seq = seq;
    stored.request_crc = crc;
    stored.valid = true;
    writer(stored.wire, stored.length);
}

void dispatch_push(uint8_t byte)
{
    switch (frame_reader_push(&reader, byte)) {
        case FRAME_READY:
            handle_frame(reader.buf, reader.length);
            break;
        case FRAME_TOO_LONG:
            send_error(0u, ERR_TOO_LONG, 0u);
            break;
        case FRAME_BAD_COBS:
            send_error(0u, ERR_COBS, 0u);
            break;
        case FRAME_PENDING:
            break;
    }
}
