/*
 * frame.c — frame reader and encoder.
 */
#include "frame.h"

#include "crc32.h"
#include "wire.h"

void frame_reader_init(frame_reader *r, uint8_t buf[PROTO_MAX_FRAME])
{
    r->buf = buf;
    r->length = 0;
    cobs_decoder_init(&r->cobs, buf, PROTO_MAX_FRAME);
}

frame_event frame_reader_push(frame_reader *r, uint8_t byte)
{
    if (byte != 0u) {
        cobs_decoder_push(&r->cobs, byte);
        return FRAME_PENDING;
    }
    /* The delimiter: judge the frame, then start the next one whatever the verdict. */
    frame_event ev;
    if (!r->cobs.started) {
        ev = FRAME_PENDING; /* two delimiters in a row: an empty frame, ignored */
    } else if (r->cobs.length > PROTO_MAX_FRAME) {
        ev = FRAME_TOO_LONG;
    } else if (!cobs_decoder_finish(&r->cobs)) {
        ev = FRAME_BAD_COBS;
    } else {
        r->length = r->cobs.length;
        ev = FRAME_READY;
    }
    cobs_decoder_reset(&r->cobs);
    return ev;
}

size_t frame_encode(uint8_t *raw, uint8_t type, uint16_t seq, size_t payload_len, uint8_t *wire)
{
    raw[HEADER_VERSION_AT] = (uint8_t)PROTO_VERSION;
    raw[HEADER_TYPE_AT] = type;
    wire_put_u16(raw + HEADER_SEQ_AT, seq);
    wire_put_u16(raw + HEADER_LENGTH_AT, (uint16_t)payload_len);
    size_t n = PROTO_HEADER_BYTES + payload_len;
    wire_put_u32(raw + n, crc32(raw, n));
    n += PROTO_CRC_BYTES;
    size_t w = cobs_encode(raw, n, wire);
    wire[w++] = 0u;
    return w;
}
