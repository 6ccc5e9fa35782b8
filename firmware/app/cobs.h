/*
 * cobs.h — Consistent Overhead Byte Stuffing (Cheshire & Baker): removes every 0x00 from a frame so that
 * 0x00 can delimit frames on the wire. Encoding is one call; decoding is a byte-at-a-time state machine
 * so that a frame is decoded while it arrives and never has to be stored twice.
 */
#ifndef APP_COBS_H
#define APP_COBS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Largest encoding of `n` bytes: one code byte per started block of 254 data bytes. */
#define COBS_ENCODED_MAX(n) ((n) + (n) / 254u + 1u)

/* What encoding can add to `n` bytes: the code bytes. */
#define COBS_OVERHEAD_MAX(n) (COBS_ENCODED_MAX(n) - (n))

/*
 * Encodes `len` bytes into `out` (room for COBS_ENCODED_MAX(len)); returns the encoded length. No 0x00
 * is written: the caller appends the delimiter.
 *
 * `in` may lie inside `out`, at out + d with d ≥ COBS_OVERHEAD_MAX(len): the encoding then overwrites
 * its input in place (one buffer for a frame and its encoding). Safe because each output byte lands at
 * or before the input byte being read: after i input bytes the output has i data bytes and b ≤ d code
 * bytes (b blocks begun, never more than the whole encoding's), so it writes out[i + b] while reading
 * in[i] = out[d + i]; a block's code byte goes back to a place already passed.
 */
size_t cobs_encode(const uint8_t *in, size_t len, uint8_t *out);

/*
 * Streaming decoder. Feed every non-zero byte of a frame with cobs_decoder_push; at the delimiter call
 * cobs_decoder_finish. Bytes beyond `capacity` are counted but not stored, so an oversized frame is
 * recognised (decoded length > capacity) without overrunning the buffer.
 */
typedef struct {
    uint8_t *buf;
    size_t capacity;
    size_t length; /* decoded bytes so far, including those that did not fit */
    uint8_t remaining; /* data bytes still expected in the current block; 0 = next byte is a code */
    bool zero_pending; /* the block that just ended implies a 0x00 if another block follows */
    bool started; /* at least one byte of this frame has arrived */
} cobs_decoder;

void cobs_decoder_init(cobs_decoder *d, uint8_t *buf, size_t capacity);

/* Starts a new frame (keeps the buffer). */
void cobs_decoder_reset(cobs_decoder *d);

/* One encoded byte, never 0x00 (the delimiter is the caller's business). */
void cobs_decoder_push(cobs_decoder *d, uint8_t byte);

/* The frame's delimiter arrived: true when the encoding was complete (every block had all its bytes). */
bool cobs_decoder_finish(const cobs_decoder *d);

#endif /* APP_COBS_H */
