/*
 * messages.c — HELLO, DESCRIBE, CONFIGURE, STEP and RESET (docs/protocol.md, "Messages").
 *
 * Each request is checked completely (size, then fields in payload order) before anything runs, so a
 * rejected request leaves the device as it was.
 */
#include "messages.h"

#include <math.h>
#include <string.h>

#include "board.h"
#include "proto.h"
#include "session.h"
#include "ux/config.h"
#include "ux/model.h"
#include "wire.h"

#ifndef APP_FW_VERSION
#define APP_FW_VERSION "unversioned"
#endif

static double evidence_z[PROTO_MAX_EVIDENCE];
static double evidence_w[PROTO_MAX_EVIDENCE];
static session_posterior posterior;

static message_result answer_of(uint8_t type, size_t length)
{
    message_result r = {0u, 0u, type, length};
    return r;
}

static message_result error_of(uint8_t code, uint16_t detail)
{
    message_result r = {code, detail, 0u, 0u};
    return r;
}

void messages_init(void)
{
    session_init();
}

bool messages_known(uint8_t type)
{
    return type == MSG_HELLO || type == MSG_DESCRIBE || type == MSG_CONFIGURE || type == MSG_STEP ||
           type == MSG_RESET;
}

static message_result hello(uint8_t *a)
{
    wire_put_u16(a + INFO_PROTOCOL_AT, (uint16_t)PROTO_VERSION);
    a[INFO_MAX_ETA_AT] = (uint8_t)session_max_eta();
    a[INFO_REAL_BYTES_AT] = (uint8_t)UX_REAL_BYTES;
    a[INFO_CYCLE_SOURCE_AT] = board_cycle_source;
    a[INFO_RESET_CAUSE_AT] = board_reset_cause();
    size_t board_len = wire_put_str(a + INFO_BOARD_AT, board_name);
    size_t fw_len = wire_put_str(a + INFO_FW_VERSION_AT(board_len), APP_FW_VERSION);
    a[INFO_N_SYSTEMS_AT(board_len, fw_len)] = session_system_count();
    return answer_of(MSG_INFO, INFO_BYTES(board_len, fw_len));
}

/* The wire's value for a parameter domain and a prior law of the core. */
static uint8_t wire_domain(uint8_t domain)
{
    switch (domain) {
    case UX_PARAM_POSITIVE:
        return DOMAIN_POSITIVE;
    case UX_PARAM_NONNEGATIVE:
        return DOMAIN_NONNEGATIVE;
    default:
        return DOMAIN_REAL;
    }
}

static size_t str_bytes(const char *s)
{
    size_t n = strlen(s);
    return 1u + (n > 255u ? 255u : n);
}

/* SYSTEM: the index-th system of the table, written field by field (its records hold strings). */
static message_result describe(const uint8_t *p, uint8_t *a)
{
    const ux_model *m = ux_model_at(p[DESCRIBE_INDEX_AT]);
    if (m == NULL || p[DESCRIBE_INDEX_AT] >= session_system_count()) {
        return error_of(ERR_CONFIG, DESCRIBE_FIELD_INDEX);
    }
    size_t need = SYSTEM_MIN_BYTES + str_bytes(m->name) - 1u + str_bytes(m->title) - 1u;
    for (unsigned i = 0; i < m->n_params; i++) {
        need += str_bytes(m->param_names[i]) + 8u + 1u;
    }
    if (need > PROTO_MAX_PAYLOAD) { /* a table entry too long for one frame: a build-time mistake */
        return error_of(ERR_INTERNAL, 0u);
    }
    a[SYSTEM_ID_AT] = m->id;
    size_t name_len = wire_put_str(a + SYSTEM_NAME_AT, m->name);
    size_t title_len = wire_put_str(a + SYSTEM_TITLE_AT(name_len), m->title);
    a[SYSTEM_N_PARAMS_AT(name_len, title_len)] = m->n_params;
    uint8_t *at = a + SYSTEM_PARAMS_AT(name_len, title_len);
    for (unsigned i = 0; i < m->n_params; i++) {
        at += 1u + wire_put_str(at, m->param_names[i]);
        wire_put_f64(at, (double)m->defaults[i]);
        at[8] = wire_domain(m->domains[i]);
        at += 9u;
    }
    size_t params_bytes = (size_t)(at - (a + SYSTEM_PARAMS_AT(name_len, title_len)));
    a[SYSTEM_PRIOR_KIND_AT(name_len, title_len, params_bytes)] =
        m->prior.kind == UX_LAW_LAPLACE ? PRIOR_LAPLACE : PRIOR_GAUSSIAN;
    wire_put_f64(a + SYSTEM_PRIOR_A_AT(name_len, title_len, params_bytes), (double)m->prior.a);
    wire_put_f64(a + SYSTEM_PRIOR_B_AT(name_len, title_len, params_bytes), (double)m->prior.b);
    return answer_of(MSG_SYSTEM, SYSTEM_BYTES(name_len, title_len, params_bytes));
}

static message_result configure(const uint8_t *p, size_t len, size_t frame_bytes, uint8_t *a)
{
    if (len < CONFIGURE_MIN_BYTES) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    session_config cfg;
    cfg.system = p[CONFIGURE_SYSTEM_AT];
    cfg.eta = p[CONFIGURE_ETA_AT];
    cfg.mode = p[CONFIGURE_MODE_AT];
    cfg.likelihood = p[CONFIGURE_LIKELIHOOD_AT];
    cfg.n_params = p[CONFIGURE_N_PARAMS_AT];
    const size_t n = cfg.n_params;
    if (len != CONFIGURE_BYTES(n)) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    memset(cfg.params, 0, sizeof cfg.params);
    for (size_t i = 0; i < n && i < SESSION_MAX_PARAMS; i++) {
        cfg.params[i] = wire_get_f64(p + CONFIGURE_PARAMS_AT + CONFIGURE_PARAMS_BYTES * i);
    }
    cfg.prior_kind = p[CONFIGURE_PRIOR_KIND_AT(n)];
    cfg.prior_a = wire_get_f64(p + CONFIGURE_PRIOR_A_AT(n));
    cfg.prior_b = wire_get_f64(p + CONFIGURE_PRIOR_B_AT(n));

    uint8_t count = 0;
    uint32_t ws_bytes = 0;
    session_error e = session_configure(&cfg, &count, &ws_bytes);
    if (e.code != 0u) {
        return error_of(e.code, e.detail);
    }
    a[CONFIGURED_COUNT_AT] = count;
    wire_put_u32(a + CONFIGURED_WORKSPACE_BYTES_AT, ws_bytes);
    return answer_of(MSG_CONFIGURED, CONFIGURED_BYTES);
}

static message_result step(const uint8_t *p, size_t len, size_t frame_bytes, uint8_t *a)
{
    if (len < STEP_MIN_BYTES) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    session_step_in in;
    in.k = wire_get_u32(p + STEP_K_AT);
    uint8_t flags = p[STEP_FLAGS_AT];
    in.u = wire_get_f64(p + STEP_U_AT);
    in.m = wire_get_u16(p + STEP_M_AT);
    in.n_evidence = p[STEP_N_EVIDENCE_AT];
    if (len != STEP_BYTES((size_t)in.n_evidence)) {
        return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
    }
    /* Not configured outranks bad fields: the host's mistake is the missing CONFIGURE. */
    if (!session_configured()) {
        return error_of(ERR_NOT_CONFIGURED, 0u);
    }
    if ((flags & (uint8_t)~STEP_FLAG_PREDICT) != 0u) {
        return error_of(ERR_EVIDENCE, STEP_FIELD_FLAGS);
    }
    in.predict = (flags & STEP_FLAG_PREDICT) != 0u;
    if (!isfinite(in.u)) {
        return error_of(ERR_EVIDENCE, STEP_FIELD_U);
    }
    /* m counts the observations the evidence stands for: none exactly when there is no evidence (a
     * missing observation, a predict-only step). */
    if ((in.m == 0u) != (in.n_evidence == 0u)) {
        return error_of(ERR_EVIDENCE, STEP_FIELD_M);
    }
    if (in.n_evidence > PROTO_MAX_EVIDENCE) {
        return error_of(ERR_EVIDENCE, STEP_FIELD_N_EVIDENCE);
    }
    for (unsigned j = 0; j < in.n_evidence; j++) {
        const uint8_t *e = p + STEP_EVIDENCE_AT + STEP_EVIDENCE_BYTES * j;
        evidence_z[j] = wire_get_f64(e + STEP_EVIDENCE_Z_AT);
        evidence_w[j] = wire_get_f64(e + STEP_EVIDENCE_OMEGA_AT);
        if (!isfinite(evidence_z[j])) {
            return error_of(ERR_EVIDENCE, (uint16_t)STEP_FIELD_EVIDENCE_Z(j));
        }
        /* ω = 0 too: the core's domain is ω > 0, and a refusal here names the field. */
        if (!isfinite(evidence_w[j]) || !(evidence_w[j] > 0.0)) {
            return error_of(ERR_EVIDENCE, (uint16_t)STEP_FIELD_EVIDENCE_OMEGA(j));
        }
    }
    in.z = evidence_z;
    in.omega = evidence_w;

    session_error e = session_step(&in, &posterior);
    if (e.code != 0u) {
        return error_of(e.code, e.detail);
    }
    wire_put_u32(a + POSTERIOR_K_AT, in.k);
    a[POSTERIOR_STATUS_AT] = posterior.status;
    wire_put_f64(a + POSTERIOR_MEAN_AT, posterior.mean);
    wire_put_f64(a + POSTERIOR_VAR_AT, posterior.var);
    wire_put_f64(a + POSTERIOR_LOG_EVIDENCE_AT, posterior.log_evidence);
    wire_put_u64(a + POSTERIOR_CYCLES_PREDICT_AT, posterior.cycles_predict);
    wire_put_u64(a + POSTERIOR_CYCLES_UPDATE_AT, posterior.cycles_update);
    a[POSTERIOR_COUNT_AT] = posterior.count;
    for (unsigned i = 0; i < posterior.count; i++) {
        uint8_t *atom = a + POSTERIOR_ATOMS_AT + POSTERIOR_ATOMS_BYTES * i;
        wire_put_f64(atom + POSTERIOR_ATOMS_X_AT, posterior.x[i]);
        wire_put_f64(atom + POSTERIOR_ATOMS_W_AT, posterior.w[i]);
    }
    return answer_of(MSG_POSTERIOR, POSTERIOR_BYTES((size_t)posterior.count));
}

message_result messages_run(uint8_t type, const uint8_t *payload, size_t length, size_t frame_bytes,
                            uint8_t *answer)
{
    switch (type) {
    case MSG_HELLO:
        if (length != HELLO_BYTES) {
            return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
        }
        return hello(answer);
    case MSG_DESCRIBE:
        if (length != DESCRIBE_BYTES) {
            return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
        }
        return describe(payload, answer);
    case MSG_CONFIGURE:
        return configure(payload, length, frame_bytes, answer);
    case MSG_STEP:
        return step(payload, length, frame_bytes, answer);
    case MSG_RESET:
        if (length != RESET_BYTES) {
            return error_of(ERR_LENGTH, (uint16_t)frame_bytes);
        }
        session_reset();
        return answer_of(MSG_RESET_DONE, 0u);
    default:
        return error_of(ERR_TYPE, type);
    }
}
