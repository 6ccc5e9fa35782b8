/*
 * wire.h — little-endian field access for the link protocol.
 *
 * Fields are read and written byte by byte so that the code is independent of the CPU's endianness and
 * of the alignment of the frame buffer. Reals always travel as IEEE-754 binary64 (docs/protocol.md).
 */
#ifndef APP_WIRE_H
#define APP_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t wire_get_u16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }

static inline uint32_t wire_get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline double wire_get_f64(const uint8_t *p)
{
    uint64_t bits = (uint64_t)wire_get_u32(p) | ((uint64_t)wire_get_u32(p + 4) << 32);
    double v;
    /* memcpy is the defined way to reinterpret bits; the compiler turns it into a register move. */
    memcpy(&v, &bits, sizeof v);
    return v;
}

static inline void wire_put_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void wire_put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void wire_put_u64(uint8_t *p, uint64_t v)
{
    wire_put_u32(p, (uint32_t)v);
    wire_put_u32(p + 4, (uint32_t)(v >> 32));
}

static inline void wire_put_f64(uint8_t *p, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    wire_put_u64(p, bits);
}

/* A str field: a u8 byte count, then the bytes (a text longer than 255 bytes is cut). Returns the count. */
static inline size_t wire_put_str(uint8_t *p, const char *s)
{
    size_t n = strlen(s);
    if (n > 255u) {
        n = 255u;
    }
    p[0] = (uint8_t)n;
    memcpy(p + 1, s, n);
    return n;
}

#endif /* APP_WIRE_H */
