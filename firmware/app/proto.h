/*
 * proto.h — constants of the link protocol, version 1. docs/protocol.md is the specification; the names
 * and numbers here are copied from it and must change only together with it.
 */
#ifndef APP_PROTO_H
#define APP_PROTO_H

#define PROTO_VERSION 1u

#define PROTO_HEADER_BYTES 6u
#define PROTO_CRC_BYTES 4u
#define PROTO_MAX_PAYLOAD 1200u
#define PROTO_MAX_FRAME (PROTO_HEADER_BYTES + PROTO_MAX_PAYLOAD + PROTO_CRC_BYTES)

/* Message types: requests have bit 7 clear, answers set. */
#define MSG_HELLO 0x01u
#define MSG_CONFIGURE 0x02u
#define MSG_STEP 0x03u
#define MSG_RESET 0x04u
#define MSG_INFO 0x81u
#define MSG_CONFIGURED 0x82u
#define MSG_POSTERIOR 0x83u
#define MSG_RESET_DONE 0x84u
#define MSG_ERROR 0x7Fu

/* ERROR.code */
#define ERR_CRC 1u
#define ERR_LENGTH 2u
#define ERR_TOO_LONG 3u
#define ERR_TYPE 4u
#define ERR_VERSION 5u
#define ERR_NOT_CONFIGURED 6u
#define ERR_CONFIG 7u
#define ERR_EVIDENCE 8u
#define ERR_COBS 9u
#define ERR_INTERNAL 10u

/* INFO.cycle_source */
#define CYCLES_SYSTICK_ICOUNT 0u
#define CYCLES_DWT 1u
#define CYCLES_HOST_NS 2u

/* STEP.flags */
#define STEP_FLAG_PREDICT 0x01u

/* Fixed parts of the payloads. */
#define CONFIGURE_FIXED_BYTES 22u /* system eta mode likelihood n_params prior_kind prior_a prior_b */
#define STEP_FIXED_BYTES 16u      /* k flags u m n_evidence */
#define STEP_EVIDENCE_BYTES 16u   /* z ω */
#define STEP_MAX_EVIDENCE 64u
#define POSTERIOR_FIXED_BYTES 38u /* k status mean var cycles_predict:u64 cycles_update:u64 count */
#define POSTERIOR_ATOM_BYTES 16u  /* x w */

#endif /* APP_PROTO_H */
