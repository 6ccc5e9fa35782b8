/*
 * input.h — the fuzz harnesses' reader of libFuzzer's bytes: a u8 or a raw double at a time, 0 once the
 * input runs out (so every input, however short, is a whole run).
 */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    const uint8_t *p;
    size_t left;
} input;

static inline uint8_t take_u8(input *in)
{
    if (in->left == 0)
        return 0;
    in->left--;
    return *in->p++;
}

static inline double take_f64(input *in)
{
    double v = 0;
    if (in->left >= sizeof v) {
        memcpy(&v, in->p, sizeof v);
        in->p += sizeof v;
        in->left -= sizeof v;
    }
    return v;
}

#endif /* FUZZ_INPUT_H */
