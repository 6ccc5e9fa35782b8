/*
 * cobs.c — COBS encoding and streaming decoding.
 */
#include "cobs.h"

size_t cobs_encode(const uint8_t *in, size_t len, uint8_t *out)
{
    size_t code_at = 0; /* where the current block's code byte goes */
    size_t o = 1;
    uint8_t code = 1; /* 1 + data bytes in the current block */
    for (size_t i = 0; i < len; i++) {
        if (in[i] == 0u) {
            out[code_at] = code;
            code_at = o++;
            code = 1;
        } else {
            out[o++] = in[i];
            code++;
            if (code == 0xFFu) {
                /* A full block of 254 non-zero bytes has no implied zero after it. */
                out[code_at] = code;
                code_at = o++;
                code = 1;
            }
        }
    }
    out[code_at] = code;
    return o;
}

void cobs_decoder_init(cobs_decoder *d, uint8_t *buf, size_t capacity)
{
    d->buf = buf;
    d->capacity = capacity;
    cobs_decoder_reset(d);
}

void cobs_decoder_reset(cobs_decoder *d)
{
    d->length = 0;
    d->remaining = 0;
    d->zero_pending = false;
    d->started = false;
}

static void emit(cobs_decoder *d, uint8_t byte)
{
    if (d->length < d->capacity) {
        d->buf[d->length] = byte;
    }
    /* Saturating count: a frame of 4 GiB of garbage must not wrap back into the valid range. */
    if (d->length < SIZE_MAX) {
        d->length++;
    }
}

void cobs_decoder_push(cobs_decoder *d, uint8_t byte)
{
    d->started = true;
    if (d->remaining == 0u) {
        /* A code byte: the previous block's implied zero is real only now that another block follows. */
        if (d->zero_pending) {
            emit(d, 0u);
        }
        d->remaining = (uint8_t)(byte - 1u);
        d->zero_pending = (byte != 0xFFu);
    } else {
        emit(d, byte);
        d->remaining--;
    }
}

bool cobs_decoder_finish(const cobs_decoder *d) { return d->remaining == 0u; }
