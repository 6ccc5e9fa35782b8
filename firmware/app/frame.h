/*
 * frame.h — frames on the wire: COBS(header ‖ payload ‖ crc32) ‖ 0x00 (docs/protocol.md, "Framing").
 *
 * The reader turns a byte stream into decoded frames, one byte at a time, with a hard size limit; it
 * does not judge the contents (CRC, header) — that is dispatch.c's job, so that every way a frame can
 * be wrong is answered in one place.
 */
#ifndef APP_FRAME_H
#define APP_FRAME_H

#include <stddef.h>
#include <stdint.h>

#include "cobs.h"
#include "proto.h"

/* Room for the largest frame on the wire, delimiter included. */
#define FRAME_WIRE_MAX (COBS_ENCODED_MAX(PROTO_MAX_FRAME) + 1u)

typedef enum {
    FRAME_PENDING, /* the frame is not complete yet (or an empty frame was skipped) */
    FRAME_READY, /* frame_reader.buf holds frame_reader.length decoded bytes */
    FRAME_TOO_LONG, /* the decoded frame exceeded PROTO_MAX_FRAME; it was discarded */
    FRAME_BAD_COBS /* the frame ended inside a COBS block; it was discarded */
} frame_event;

typedef struct {
    uint8_t *buf; /* PROTO_MAX_FRAME bytes, owned by the caller (a separate object, so that sanitizers
                      and memory protection see an overrun instead of it landing in the struct) */
    size_t length; /* of the last FRAME_READY frame */
    cobs_decoder cobs;
} frame_reader;

void frame_reader_init(frame_reader *r, uint8_t buf[PROTO_MAX_FRAME]);

/* One byte from the wire. After FRAME_READY the frame stays in `buf` until the next byte is pushed. */
frame_event frame_reader_push(frame_reader *r, uint8_t byte);

/* Where a raw frame sits inside a FRAME_WIRE_MAX buffer to be encoded in place (cobs.h): far enough
 * in for the largest frame's code bytes, so also for any shorter one. */
#define FRAME_RAW_IN_WIRE_AT COBS_OVERHEAD_MAX(PROTO_MAX_FRAME)

/*
 * Builds a complete wire frame in `wire` (room for FRAME_WIRE_MAX) from a raw frame in `raw` whose
 * payload (`payload_len` bytes) is already at raw + PROTO_HEADER_BYTES: writes the header and the CRC
 * into `raw` (room for PROTO_MAX_FRAME), then COBS and the delimiter. Returns the wire length. `raw`
 * may be wire + FRAME_RAW_IN_WIRE_AT: the frame is then encoded in place, over its raw bytes.
 */
size_t frame_encode(uint8_t *raw, uint8_t type, uint16_t seq, size_t payload_len, uint8_t *wire);

#endif /* APP_FRAME_H */
