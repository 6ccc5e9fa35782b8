/*
 * messages.h — payloads of the link protocol: parse a request, run it, write the answer's payload.
 * The frame around it (header, CRC, COBS, retries) is dispatch.c's.
 */
#ifndef APP_MESSAGES_H
#define APP_MESSAGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t error; /* 0: the answer is `type` with `length` bytes of payload; else an ERROR code */
    uint16_t detail; /* ERROR.detail */
    uint8_t type;
    size_t length;
} message_result;

void messages_init(void);

/* A request type this firmware answers (HELLO, DESCRIBE, CONFIGURE, STEP, RESET). */
bool messages_known(uint8_t type);

/*
 * Runs the request `type` with `payload` (`length` bytes) and writes the answer's payload to `answer`
 * (room for PROTO_MAX_PAYLOAD). `frame_bytes` is the decoded frame's size, the detail of ERR_LENGTH.
 * `answer` is written only when the result is not an error (every check and the work itself come first):
 * dispatch.c keeps the last answer there for retries, and a failed request must leave it intact.
 */
message_result messages_run(uint8_t type, const uint8_t *payload, size_t length, size_t frame_bytes, uint8_t *answer);

#endif /* APP_MESSAGES_H */
