/*
 * dispatch.h — the protocol loop: bytes in, answers out. Portable: the caller supplies the byte source
 * and the writer, so the same code runs on a board and in a host test.
 */
#ifndef APP_DISPATCH_H
#define APP_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

typedef void (*dispatch_writer)(const uint8_t *data, size_t len);

void dispatch_init(dispatch_writer write);

/* One byte from the wire; when it ends a frame, the frame is answered through the writer. */
void dispatch_push(uint8_t byte);

#endif /* APP_DISPATCH_H */
