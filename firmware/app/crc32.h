/*
 * crc32.h — CRC-32/ISO-HDLC, the checksum of zlib.crc32 (reflected polynomial 0xEDB88320, initial value
 * and final XOR 0xFFFFFFFF). Check value: crc32("123456789") = 0xCBF43926.
 */
#ifndef APP_CRC32_H
#define APP_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Continues a running checksum: crc32_update(crc32_update(0, a, n), b, m) == crc32 of a‖b. */
uint32_t crc32_update(uint32_t crc, const uint8_t *data, size_t len);

static inline uint32_t crc32(const uint8_t *data, size_t len) { return crc32_update(0u, data, len); }

#endif /* APP_CRC32_H */
