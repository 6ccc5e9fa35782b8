// GENERATED from docs/protocol.toml by scripts/codegen — do not edit by hand.
// Change the source and run `make generate`; tests fail when this file and its source drift apart.
/*
 * proto.h — the link protocol's numbers and payload layouts (docs/protocol.md). Offsets are in bytes
 * from the start of the payload; a field after a string or an array has its offset as a macro of
 * the counts before it. FIELD_ numbers are the detail of ERR_CONFIG / ERR_EVIDENCE: fields counted
 * from 0 in payload order, each array element (each field of a record element) one field.
 */
#ifndef APP_PROTO_H
#define APP_PROTO_H

#define PROTO_VERSION 13u
#define PROTO_HEADER_BYTES 6u
#define PROTO_CRC_BYTES 4u
#define PROTO_MAX_PAYLOAD 1200u
#define PROTO_MAX_FRAME (PROTO_HEADER_BYTES + PROTO_MAX_PAYLOAD + PROTO_CRC_BYTES)
#define PROTO_MAX_EVIDENCE 64u

/* Header fields. */
#define HEADER_VERSION_AT 0u
#define HEADER_TYPE_AT 1u
#define HEADER_SEQ_AT 2u
#define HEADER_LENGTH_AT 4u

/* Message types. */
#define MSG_HELLO 0x01u
#define MSG_INFO 0x81u
#define MSG_CONFIGURE 0x02u
#define MSG_CONFIGURED 0x82u
#define MSG_STEP 0x03u
#define MSG_POSTERIOR 0x83u
#define MSG_DESCRIBE 0x05u
#define MSG_SYSTEM 0x85u
#define MSG_RESET 0x04u
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

/* cycle_source */
#define CYCLES_SYSTICK_ICOUNT 0u
#define CYCLES_DWT 1u
#define CYCLES_HOST_NS 2u

/* reset_cause */
#define RESET_CAUSE_UNKNOWN 0u
#define RESET_CAUSE_POWER_ON 1u
#define RESET_CAUSE_PIN 2u
#define RESET_CAUSE_WATCHDOG 3u
#define RESET_CAUSE_SOFTWARE 4u
#define RESET_CAUSE_LOCKUP 5u

/* mode */
#define MODE_REFINED 0u
#define MODE_PAPER 1u
#define MODE_MIXTURE 2u
#define MODE_CELLS 3u

/* likelihood */
#define LIKELIHOOD_KERNEL 0u
#define LIKELIHOOD_SAMPLER 1u

/* prior_kind */
#define PRIOR_GAUSSIAN 0u
#define PRIOR_LAPLACE 1u

/* param_domain */
#define DOMAIN_REAL 0u
#define DOMAIN_POSITIVE 1u
#define DOMAIN_NONNEGATIVE 2u

/* status */
#define STATUS_OK 0u
#define STATUS_FALLBACK 1u
#define STATUS_NO_EVIDENCE 2u
#define STATUS_REFOCUSED 3u
#define STATUS_OUTLIER 4u
#define STATUS_DEPARTED 5u
#define STATUS_INCONSISTENT 6u

/* step_flags */
#define STEP_FLAG_PREDICT 0x01u

/* HELLO: empty */
#define HELLO_BYTES 0u

/* INFO: protocol:u16 max_eta:u8 real_bytes:u8 cycle_source:u8 reset_cause:u8 core_hz:u32 board:str fw_version:str n_systems:u8 */
#define INFO_PROTOCOL_AT 0u
#define INFO_MAX_ETA_AT 2u
#define INFO_REAL_BYTES_AT 3u
#define INFO_CYCLE_SOURCE_AT 4u
#define INFO_RESET_CAUSE_AT 5u
#define INFO_CORE_HZ_AT 6u
#define INFO_BOARD_AT 10u
#define INFO_FW_VERSION_AT(board_len) (11u + (board_len))
#define INFO_N_SYSTEMS_AT(board_len, fw_version_len) (12u + (board_len) + (fw_version_len))
#define INFO_BYTES(board_len, fw_version_len) (13u + (board_len) + (fw_version_len))
#define INFO_MIN_BYTES 13u /* every count 0, every string empty */

/* CONFIGURE: system:u8 eta:u8 mode:u8 likelihood:u8 n_params:u8 params:f64[n_params] dim:u8 priors:(kind:u8 a:f64 b:f64)[dim] */
#define CONFIGURE_SYSTEM_AT 0u
#define CONFIGURE_ETA_AT 1u
#define CONFIGURE_MODE_AT 2u
#define CONFIGURE_LIKELIHOOD_AT 3u
#define CONFIGURE_N_PARAMS_AT 4u
#define CONFIGURE_PARAMS_AT 5u
#define CONFIGURE_PARAMS_BYTES 8u /* one element */
#define CONFIGURE_DIM_AT(n_params) (5u + 8u * (n_params))
#define CONFIGURE_PRIORS_AT(n_params) (6u + 8u * (n_params))
#define CONFIGURE_PRIORS_BYTES 17u /* one element */
#define CONFIGURE_PRIORS_KIND_AT 0u /* within an element */
#define CONFIGURE_PRIORS_A_AT 1u /* within an element */
#define CONFIGURE_PRIORS_B_AT 9u /* within an element */
#define CONFIGURE_BYTES(n_params, dim) (6u + 8u * (n_params) + 17u * (dim))
#define CONFIGURE_MIN_BYTES 6u /* every count 0, every string empty */
#define CONFIGURE_FIELD_SYSTEM 0u
#define CONFIGURE_FIELD_ETA 1u
#define CONFIGURE_FIELD_MODE 2u
#define CONFIGURE_FIELD_LIKELIHOOD 3u
#define CONFIGURE_FIELD_N_PARAMS 4u
#define CONFIGURE_FIELD_PARAMS(i) (5u + (i))
#define CONFIGURE_FIELD_DIM(n_params) (5u + (n_params))
#define CONFIGURE_FIELD_PRIORS_KIND(n_params, i) (6u + (n_params) + 3u * (i) + 0u)
#define CONFIGURE_FIELD_PRIORS_A(n_params, i) (6u + (n_params) + 3u * (i) + 1u)
#define CONFIGURE_FIELD_PRIORS_B(n_params, i) (6u + (n_params) + 3u * (i) + 2u)

/* CONFIGURED: count:u8 workspace_bytes:u32 */
#define CONFIGURED_COUNT_AT 0u
#define CONFIGURED_WORKSPACE_BYTES_AT 1u
#define CONFIGURED_BYTES 5u

/* STEP: k:u32 flags:u8 u:f64 m:u16 n_evidence:u8 dim_obs:u8 omega:f64[n_evidence] z:f64[n_evidence*dim_obs] */
#define STEP_K_AT 0u
#define STEP_FLAGS_AT 4u
#define STEP_U_AT 5u
#define STEP_M_AT 13u
#define STEP_N_EVIDENCE_AT 15u
#define STEP_DIM_OBS_AT 16u
#define STEP_OMEGA_AT 17u
#define STEP_OMEGA_BYTES 8u /* one element */
#define STEP_Z_AT(n_evidence) (17u + 8u * (n_evidence))
#define STEP_Z_BYTES 8u /* one element */
#define STEP_BYTES(n_evidence, dim_obs) (17u + 8u * (n_evidence) + 8u * (n_evidence) * (dim_obs))
#define STEP_MIN_BYTES 17u /* every count 0, every string empty */
#define STEP_FIELD_K 0u
#define STEP_FIELD_FLAGS 1u
#define STEP_FIELD_U 2u
#define STEP_FIELD_M 3u
#define STEP_FIELD_N_EVIDENCE 4u
#define STEP_FIELD_DIM_OBS 5u
#define STEP_FIELD_OMEGA(i) (6u + (i))
#define STEP_FIELD_Z(n_evidence, i) (6u + (n_evidence) + (i))

/* POSTERIOR: k:u32 status:u8 log_evidence:f64 cycles_predict:u64 cycles_update:u64 dim:u8 mean:f64[dim] cov:f64[dim*dim] count:u8 w:f64[count] x:f64[count*dim] */
#define POSTERIOR_K_AT 0u
#define POSTERIOR_STATUS_AT 4u
#define POSTERIOR_LOG_EVIDENCE_AT 5u
#define POSTERIOR_CYCLES_PREDICT_AT 13u
#define POSTERIOR_CYCLES_UPDATE_AT 21u
#define POSTERIOR_DIM_AT 29u
#define POSTERIOR_MEAN_AT 30u
#define POSTERIOR_MEAN_BYTES 8u /* one element */
#define POSTERIOR_COV_AT(dim) (30u + 8u * (dim))
#define POSTERIOR_COV_BYTES 8u /* one element */
#define POSTERIOR_COUNT_AT(dim) (30u + 8u * (dim) + 8u * (dim) * (dim))
#define POSTERIOR_W_AT(dim) (31u + 8u * (dim) + 8u * (dim) * (dim))
#define POSTERIOR_W_BYTES 8u /* one element */
#define POSTERIOR_X_AT(dim, count) (31u + 8u * (dim) + 8u * (dim) * (dim) + 8u * (count))
#define POSTERIOR_X_BYTES 8u /* one element */
#define POSTERIOR_BYTES(dim, count) (31u + 8u * (dim) + 8u * (dim) * (dim) + 8u * (count) + 8u * (count) * (dim))
#define POSTERIOR_MIN_BYTES 31u /* every count 0, every string empty */

/* DESCRIBE: index:u8 */
#define DESCRIBE_INDEX_AT 0u
#define DESCRIBE_BYTES 1u
#define DESCRIBE_FIELD_INDEX 0u

/* SYSTEM: id:u8 name:str title:str dim:u8 dim_obs:u8 n_params:u8 params:(name:str default:f64 domain:u8)[n_params] priors:(kind:u8 a:f64 b:f64)[dim] */
#define SYSTEM_ID_AT 0u
#define SYSTEM_NAME_AT 1u
#define SYSTEM_TITLE_AT(name_len) (2u + (name_len))
#define SYSTEM_DIM_AT(name_len, title_len) (3u + (name_len) + (title_len))
#define SYSTEM_DIM_OBS_AT(name_len, title_len) (4u + (name_len) + (title_len))
#define SYSTEM_N_PARAMS_AT(name_len, title_len) (5u + (name_len) + (title_len))
#define SYSTEM_PARAMS_AT(name_len, title_len) (6u + (name_len) + (title_len))
#define SYSTEM_PRIORS_AT(name_len, title_len, params_bytes) (6u + (name_len) + (title_len) + (params_bytes))
#define SYSTEM_PRIORS_BYTES 17u /* one element */
#define SYSTEM_PRIORS_KIND_AT 0u /* within an element */
#define SYSTEM_PRIORS_A_AT 1u /* within an element */
#define SYSTEM_PRIORS_B_AT 9u /* within an element */
#define SYSTEM_BYTES(name_len, title_len, params_bytes, dim) (6u + (name_len) + (title_len) + (params_bytes) + 17u * (dim))
#define SYSTEM_MIN_BYTES 6u /* every count 0, every string empty */

/* RESET: empty */
#define RESET_BYTES 0u

/* RESET_DONE: empty */
#define RESET_DONE_BYTES 0u

/* ERROR: code:u8 detail:u16 */
#define ERROR_CODE_AT 0u
#define ERROR_DETAIL_AT 1u
#define ERROR_BYTES 3u

#endif /* APP_PROTO_H */
